// One partition: what it parallelises over, its numbers from the core (thread blocks, waves, SM
// utilisation, predicted time), the SMs at the playhead (GPUBlock, coloured by the (batch, head)
// each SM works on) and its timeline.
import { AnimatedNumber } from '../shared/AnimatedNumber';
import { fmt, fmtInt } from '../shared/format';
import { GPUBlock } from '../shared/GPUBlock';
import type { Clock } from '../shared/stepper';
import { blockAt, busyAt, fmtTime, pairColor, type Figure, type Side } from './model';
import { Timeline } from './Timeline';

const WHAT = {
  FA1: 'one thread block per (batch, head), looping over all its query blocks',
  FA2: 'one thread block per (batch, head, query block): the sequence is split too',
};

export function Panel({ fig, s, clock }: { fig: Figure; s: Side; clock: Clock }) {
  const t = clock.time.value;
  const w = s.work, b = w.blocks, heads = fig.config.heads;
  const busy = busyAt(s, t);
  const key = s.name.toLowerCase();
  const smFill = (sm: number) => {
    const i = blockAt(s, sm, t);
    return i < 0 ? '#262626' : pairColor(b.batch[i], b.head[i], heads);
  };
  const smTitle = (sm: number) => {
    const i = blockAt(s, sm, t);
    return i < 0 ? `SM ${sm}: idle` : `SM ${sm}: batch ${b.batch[i]}, head ${b.head[i]}, query blocks ${b.qBlockBegin[i]}–${b.qBlockEnd[i] - 1}`;
  };
  const faster = s.name === 'FA2' && fig.fa1.timeS > s.timeS * 1.0005;
  return (
    <section class={`panel ${key}`} aria-label={`${s.name} partition`} data-testid={`panel-${key}`}>
      <header class="panel-head">
        <h2>{s.name} <span>{WHAT[s.name]}</span></h2>
      </header>
      <dl class="stats">
        <div><dt>thread blocks</dt><dd data-testid={`${key}-blocks`}>{fmtInt(b.sm.length)}</dd></div>
        <div><dt>waves of {w.smCount * w.blocksPerSm}</dt><dd data-testid={`${key}-waves`}>{fmtInt(w.waves.length)}</dd></div>
        <div class="util"><dt>SM utilisation</dt><dd><AnimatedNumber value={100 * w.smUtilization} digits={1} class={`${key}-util`} />%</dd></div>
        <div class="time"><dt>predicted time</dt><dd data-testid={`${key}-time`} data-seconds={s.timeS}>{fmtTime(s.timeS)}{faster && <span class="gain"> ({fmt(fig.fa1.timeS / s.timeS, 1)}× faster)</span>}</dd></div>
        <div class="now"><dt>SMs busy now</dt><dd data-testid={`${key}-busy`}>{busy} <span class="muted">of {w.smCount}</span></dd></div>
      </dl>
      <div class="panel-body">
        <GPUBlock smCount={w.smCount} width={150} label={`${busy} of ${w.smCount} SMs busy`} smFill={smFill} smTitle={smTitle} class="sm-map" />
        <Timeline s={s} heads={heads} span={fig.spanTiles} t={t}
          label={`${s.name} timeline: ${w.smCount} SM rows; ${b.sm.length} thread blocks in ${w.waves.length} waves, ending at ${fmt(w.makespanTiles, 0)} tiles; utilisation ${fmt(100 * w.smUtilization, 1)}%`} />
      </div>
    </section>
  );
}
