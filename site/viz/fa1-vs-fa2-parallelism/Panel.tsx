// One partition: what it parallelises over, its numbers from the core (thread blocks, waves, SM
// utilisation, predicted time), the SMs at the playhead (GPUBlock, coloured by the (batch, head)
// each SM works on) and its timeline.
// The panel itself depends on the launch only; the parts that follow the clock (the busy count,
// the SM map, the playhead) are components of their own, so a step re-renders them alone.
import { useMemo } from 'preact/hooks';
import { AnimatedNumber } from '../shared/AnimatedNumber';
import { fmt, fmtInt } from '../shared/format';
import { GPUBlock } from '../shared/GPUBlock';
import type { Clock } from '../shared/stepper';
import { blockAt, fmtTime, pairColor, type Figure, type Side } from './model';
import { Timeline } from './Timeline';

const WHAT = {
  FA1: 'one thread block per (batch, head), looping over all its query blocks',
  FA2: 'one thread block per (batch, head, query block): the sequence is split too',
};
const IDLE = '#262626';

// The block on each SM at time t (-1: idle).
const blocksAt = (s: Side, t: number) => Int32Array.from({ length: s.work.smCount }, (_, sm) => blockAt(s, sm, t));
const busyOf = (on: Int32Array) => on.reduce((n, i) => n + (i >= 0 ? 1 : 0), 0);

function BusyNow({ s, clock }: { s: Side; clock: Clock }) {
  const busy = busyOf(blocksAt(s, clock.time.value));
  return <>{busy} <span class="muted">of {s.work.smCount}</span></>;
}

// The SMs at the playhead. The map is drawn again only when some SM's block changed: FA1's blocks
// run for most of the launch, so most steps leave its map as it was, and the same element (same
// vnode) tells Preact to skip it.
function SmMap({ s, heads, clock }: { s: Side; heads: number; clock: Clock }) {
  const on = blocksAt(s, clock.time.value);
  return useMemo(() => {
    const b = s.work.blocks, busy = busyOf(on);
    const smFill = (sm: number) => (on[sm] < 0 ? IDLE : pairColor(b.batch[on[sm]], b.head[on[sm]], heads));
    const smTitle = (sm: number) => {
      const i = on[sm];
      return i < 0 ? `SM ${sm}: idle` : `SM ${sm}: batch ${b.batch[i]}, head ${b.head[i]}, query blocks ${b.qBlockBegin[i]}–${b.qBlockEnd[i] - 1}`;
    };
    return <GPUBlock smCount={s.work.smCount} width={150} label={`${busy} of ${s.work.smCount} SMs busy`} smFill={smFill} smTitle={smTitle} class="sm-map" />;
  }, [s, heads, on.join()]);
}

export function Panel({ fig, s, clock }: { fig: Figure; s: Side; clock: Clock }) {
  const w = s.work, b = w.blocks, heads = fig.config.heads;
  const key = s.name.toLowerCase();
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
        <div class="now"><dt>SMs busy now</dt><dd data-testid={`${key}-busy`}><BusyNow s={s} clock={clock} /></dd></div>
      </dl>
      <div class="panel-body">
        <SmMap s={s} heads={heads} clock={clock} />
        <Timeline s={s} heads={heads} span={fig.spanTiles} clock={clock}
          label={`${s.name} timeline: ${w.smCount} SM rows; ${b.sm.length} thread blocks in ${w.waves.length} waves, ending at ${fmt(w.makespanTiles, 0)} tiles; utilisation ${fmt(100 * w.smUtilization, 1)}%`} />
      </div>
    </section>
  );
}
