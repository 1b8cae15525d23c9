// One paragraph per stop of the rotation, with that step's numbers from the core.
import { fmt, fmtBytes, fmtInt as n, fmtSeconds } from '../shared/format';
import { GPU_NAME, PRECISION_NAME, traceAt, type Figure } from './model';
import { WATCH_DEVICE, WATCH_ROW } from './MergeTable';

export const fmtError = (e: number) => (e === 0 ? '0' : e.toExponential(1).replace('-', '−'));

export function narration(f: Figure, step: number): string {
  const P = f.config.devices, { timing } = f;
  const q = traceAt(f, 0, WATCH_DEVICE).qBegin + WATCH_ROW;
  if (step === 0) {
    const s = f.steps[0];
    return `${P} GPUs each hold ${n(f.shardTokens)} tokens of Q and the same positions' K/V (${fmtBytes(timing.kvShardBytes)} per shard for one ${f.head.name} layer). Step 1: each attends its queries to its own K/V shard, ${fmtSeconds(s.compute)} at the ${GPU_NAME}'s ${PRECISION_NAME} peak, while sending that shard to its right neighbour, ${fmtSeconds(s.send)} at ${f.config.linkGBs} GB/s.`;
  }
  const last = f.steps[step - 1], e = traceAt(f, step - 1, WATCH_DEVICE);
  const merged = `GPU ${WATCH_DEVICE} merged shard ${e.kvShard} (shard m = ${fmt(e.blockM[WATCH_ROW])}, ℓ = ${fmt(e.blockL[WATCH_ROW])}) into query ${q}'s state: m = ${fmt(e.m[WATCH_ROW])}, ℓ = ${fmt(e.l[WATCH_ROW])}.`;
  if (step < P) {
    const overlap = last.compute >= last.send
      ? `compute ${fmtSeconds(last.compute)} ≥ send ${fmtSeconds(last.send)}, so the transfer was hidden`
      : `compute ${fmtSeconds(last.compute)} < send ${fmtSeconds(last.send)}, so every GPU waited ${fmtSeconds(last.send - last.compute)} for its next shard`;
    return `Step ${step} took ${fmtSeconds(last.end - last.start)}: ${overlap}. ${merged} Next, each GPU computes on the shard its left neighbour just sent.`;
  }
  return `Rotation done in ${fmtSeconds(timing.ringTimeS)} (the last step has nothing to forward), against ${fmtSeconds(timing.allgatherTimeS)} to all-gather K/V and then compute. ${merged} Every GPU has now merged all ${P} shards, and the merged output differs from dense attention by at most ${fmtError(f.trace.maxAbsError)} (float32 ring vs float64), the rounding of a single-GPU float32 pass (${fmtError(f.trace.denseFloatMaxAbsError)}).`;
}
