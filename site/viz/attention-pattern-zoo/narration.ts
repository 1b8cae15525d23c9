// What each pattern computes, in one or two sentences with its numbers at the current N (shown
// when the step-through reaches a cell, or when the reader hovers, taps or focuses it).
import { fmtBytes, fmtCount, fmtInt as int } from '../shared/format';
import { BIGBIRD, LONGFORMER_ONE_SIDED, LSH_CHUNK, shareOfDense, type Cell, type Figure } from './model';


export function explain(f: Figure, cell: Cell): string {
  const n = int(f.config.n), d = f.dense, share = `${shareOfDense(cell, d)} of dense`;
  switch (cell.id) {
    case 'dense':
      return `Dense: every query scores every key, N² = ${int(cell.entries)} scores, and the N × N matrix is stored: ${fmtBytes(cell.peakBytes)} at FP16 for one head of one layer. The other five cut this down.`;
    case 'strided':
      return `Strided (Sparse Transformer): each query sees the previous l = ${cell.size} positions and every l-th one before them, at most l + N/l ≈ 2√N keys instead of up to N (causal, as in its autoregressive models): ${fmtCount(cell.entries)} scores, ${share}. Any earlier position reaches any later one in at most two hops.`;
    case 'longformer':
      return `Sliding window (Longformer): each token scores only the ${LONGFORMER_ONE_SIDED} tokens on each side, so the cost grows as N·w, linearly in N: ${fmtCount(cell.entries)} scores, ${share}. ${f.config.n <= LONGFORMER_ONE_SIDED + 1 ? `At N = ${n} the window still covers everything.` : 'Stacked layers widen the reach, one window per layer.'}`;
    case 'bigbird':
      return `BigBird: in blocks of ${BIGBIRD.block}, each block row scores its own and neighbouring blocks, ${BIGBIRD.global} global blocks (which also see everything: the full first rows and columns), and ${BIGBIRD.randomBlocks} random blocks that shortcut long distances: ${fmtCount(cell.entries)} scores, ${share}.`;
    case 'lsh':
      return `LSH (Reformer): ${n} random queries are hashed into ${cell.size} buckets by a random rotation, sorted by bucket and cut into chunks of ${LSH_CHUNK}; each scores its own and the previous chunk (${fmtCount(cell.entries)} scores, ${share}) and keeps ${cell.kept === null ? 'those in its bucket (being counted)' : `the ${fmtCount(cell.kept)} pairs that share a bucket`}. Which pairs depends on the vectors, not on positions; the look-back puts more of them left of the diagonal.`;
    case 'linformer':
      return `Low rank (Linformer): keys and values are projected from N = ${n} rows down to k = ${cell.size}, so the score matrix is N × k, the strip on the left: ${fmtCount(cell.entries)} scores, ${share}. No column is a single key any more, which is why precise lookup suffers.`;
  }
}

export const LOOK_FOR = 'how much of the N × N square each pattern lights up, and how that shrinks as N grows. Press Play, step with →, or hover a cell.';
