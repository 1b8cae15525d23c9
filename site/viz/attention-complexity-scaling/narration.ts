// The narration at the current N: what dense attention needs, what FlashAttention needs for the
// same exact result, and the range of the approximations, all read from the core's points.
import type { ComplexityPointInfo } from '../../../wasm/classic/sparse';
import { fmtBytes, fmtCount, fmtInt } from '../shared/format';
import { METHODS, PARAMS, type Figure } from './model';

const at = (points: ComplexityPointInfo[], method: string) => points[METHODS.findIndex((m) => m.method === method)];

export function narration(f: Figure, n: number, points: ComplexityPointInfo[]): string {
  const dense = at(points, 'dense'), flash = at(points, 'flash'), lsh = at(points, 'lsh');
  const approx = ['sparse', 'lsh', 'linformer', 'performer'].map((m) => at(points, m));
  const N = fmtInt(n);
  if (f.config.metric === 'memory') {
    const fits = dense.peakBytes <= f.a100.bytes;
    const lo = Math.min(...approx.map((p) => p.peakBytes)), hi = Math.max(...approx.map((p) => p.peakBytes));
    return `N = ${N}: dense attention stores N² scores, ${fmtBytes(dense.peakBytes)} at FP16 for one head of one layer, ` +
      `${fits ? `${(100 * dense.peakBytes / f.a100.bytes).toPrecision(2)}% of one A100's 80 GB` : `${(dense.peakBytes / f.a100.bytes).toPrecision(3)} times one A100's 80 GB`}. ` +
      `The approximations keep ${fmtBytes(lo)} to ${fmtBytes(hi)}; FlashAttention, exact, keeps ${fmtBytes(flash.peakBytes)}: two numbers per row and one ${PARAMS.flashBlockQ} × ${PARAMS.flashBlockK} tile.`;
  }
  return `N = ${N}: dense attention and FlashAttention both do ${fmtCount(dense.flops)}FLOPs, exactly the same work; ` +
    `the approximations do ${fmtCount(Math.min(...approx.map((p) => p.flops)))}FLOPs to ${fmtCount(Math.max(...approx.map((p) => p.flops)))}FLOPs. ` +
    `Reformer's FLOPs grow linearly (each query scores two chunks of ${PARAMS.lshChunk} keys in each of its ${PARAMS.lshRounds} hashing rounds); its log N is in the sort by bucket, ${fmtCount(lsh.sortComparisons)} comparisons here.`;
}

export const LOOK_FOR = 'the dense line climbing two decades for every decade of N and crossing one A100’s 80 GB, while exact FlashAttention stays down with the linear methods. Press Play to walk N up by decades.';
