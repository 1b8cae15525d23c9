// One sentence per step: what each warpgroup is doing at the cursor's moment, from the schedule's
// segments, and at the end the totals and the speed-up the core predicts.
import type { Fa3Segment } from '../../../wasm/load';
import { activeAt, laneOf, micros, SCHEDULES, type Figure } from './model';

const doing = (s: Fa3Segment) => {
  const block = `key block ${s.iteration}`;
  switch (s.op) {
    case 'load_k': return `loading K of ${block} with TMA`;
    case 'load_v': return `loading V of ${block} with TMA`;
    case 'gemm0': return `computing S = QKᵀ for ${block} on the tensor cores${s.unitShare < 1 ? ` (sharing them: ${Math.round(s.unitShare * 100)}% of their rate)` : ''}`;
    case 'softmax': return `exponentiating the scores of ${block} on the special-function units${s.unitShare < 1 ? ` (shared: ${Math.round(s.unitShare * 100)}% rate)` : ''}`;
    case 'gemm1': return `accumulating O += PV for ${block} on the tensor cores${s.unitShare < 1 ? ` (sharing them: ${Math.round(s.unitShare * 100)}% of their rate)` : ''}`;
  }
};

export function narration(fig: Figure, step: number): string {
  const { shown, baseline, events, lanes } = fig;
  const label = SCHEDULES.find((s) => s.name === shown.name)!.label;
  if (step >= events.length - 1) {
    const faster = shown.name === 'sequential'
      ? 'Switch the schedule to see the same work overlap.'
      : `${baseline.totalS / shown.totalS >= 1 ? `${shown.speedup.toFixed(2)}× faster than` : 'slower than'} the synchronous ${micros(baseline.totalS)}; in the steady state one key block takes ${micros(shown.steadyIterationS)} instead of ${micros(baseline.steadyIterationS)} (${shown.steadySpeedup.toFixed(2)}×).`;
    return `${label}: ${fig.config.iterations} key blocks finish after ${micros(shown.totalS)} — ${faster}`;
  }
  const t = events[step];
  const active = activeAt(fig, t);
  const parts = lanes.map((lane, i) => {
    const mine = active.filter((s) => laneOf(s) === i);
    return mine.length ? `${lane} is ${mine.map(doing).join(' and ')}` : `${lane} waits`;
  });
  return `At ${micros(t)}: ${parts.join('; ')}.`;
}
