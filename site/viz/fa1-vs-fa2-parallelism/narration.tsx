// One sentence on where the launch is, with the core's numbers.
import { fmt } from '../shared/format';
import type { Clock } from '../shared/stepper';
import { fmtInt as n } from '../shared/format';
import { busyAt, doneBy, fmtTime, type Figure } from './model';
import { Narration as Opening } from '../shared/Narration';

const pct = (u: number) => `${fmt(100 * u, 1)}%`;

export function narration(fig: Figure, t: number): string {
  const { config: c, fa1, fa2 } = fig;
  const sms = fa1.work.smCount;
  const gpu = fig.preset.name.replace('NVIDIA ', '');
  const blocks1 = fa1.work.blocks.sm.length, blocks2 = fa2.work.blocks.sm.length;
  if (t <= 0) {
    return `Batch ${c.batch} × ${c.heads} heads, N = ${n(c.n)} on the ${gpu} (${sms} SMs): FA1 launches ${n(blocks1)} thread blocks, FA2 ${n(blocks2)} (${fa2.work.numQBlocks} query blocks per head). Press Play to watch them fill the SMs.`;
  }
  if (t < fig.spanTiles) {
    const side = (s: typeof fa1) => {
      const done = doneBy(s, t), total = s.work.blocks.sm.length;
      if (done === total) return `${s.name} has finished all ${n(total)} blocks`;
      const busy = busyAt(s, t);
      return `${s.name} has ${busy} SMs busy and ${sms - busy} idle, ${n(done)} of ${n(total)} blocks done`;
    };
    return `Tile ${n(Math.round(t))} of ${n(Math.round(fig.spanTiles))}: ${side(fa2)}; ${side(fa1)}.`;
  }
  const ratio = fa1.timeS / fa2.timeS;
  const verdict = ratio > 1.05
    ? `FA2 is ${fmt(ratio, 1)}× faster.`
    : 'With this many (batch, head) pairs both partitions fill the SMs and take about as long.';
  return `Done. FA1: ${n(blocks1)} blocks for ${sms} SMs, ${pct(fa1.work.smUtilization)} of SM time busy, ${fmtTime(fa1.timeS)} predicted. FA2: ${n(blocks2)} blocks, ${pct(fa2.work.smUtilization)} busy, ${fmtTime(fa2.timeS)}. ${verdict}`;
}

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'at batch 1, how few SMs FA1 keeps busy and how FA2 fills them all. Press Play, then raise the batch.';

export function Narration({ fig, clock }: { fig: Figure; clock: Clock }) {
  return <Opening stepper={clock} lookFor={LOOK_FOR} text={() => narration(fig, clock.time.value)} />;
}
