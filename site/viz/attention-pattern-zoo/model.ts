// The pattern zoo's data: six ways of choosing which query-key scores to compute, at one length N.
// Every image and count comes from the core: the fixed patterns' density images and analytic
// counts (patternDensityImage, patternStats), Reformer's pattern from a real hashing of seeded
// query vectors (lshPattern), and the cost model of Reformer and Linformer (complexityPoint).
// Parameters are the papers' own, fixed across N, so the reader sees where a pattern stops
// being dense as N grows.
//
// Hashing N random 64-dimensional queries takes far longer than a frame at the larger N, so the
// LSH image is computed in a worker (state.ts) and passed in when it arrives; everything else is
// computed here, once per N (the results never change, so they are kept).
import type { AttnClassic } from '../../../wasm/load';
import type { SparsePatternInput } from '../../../wasm/classic/sparse';
import { boundedCache } from '../shared/boundedCache';

export const N_CHOICES = [256, 512, 1024, 2048, 4096, 8192] as const;
export const DEFAULT_N = 2048;
/** The density images are PIXELS x PIXELS at every N (the core's fixed size; pixels <= N). */
export const PIXELS = 256;

export const HEAD_DIM = 64;
export const BYTES_PER_ELEMENT = 2;  // FP16 scores, as the plan's N^2 table
export const LONGFORMER_ONE_SIDED = 256;  // w = 512 (Beltagy et al. 2020, pretraining)
export const BIGBIRD = { block: 64, oneSidedWindow: 1, global: 2, randomBlocks: 3, seed: 1 } as const;  // Zaheer et al. 2020, App. D (ITC)
export const LSH_CHUNK = 64;
export const LSH_SEED = 1;  // the random query vectors and rotations
export const LINFORMER_K = 256;  // the projected length of Wang et al. 2020's main results

/** Reformer's hashing as the complexity chart counts it (the core's defaults): 64 buckets, chunks of 64; one round. */
export const LSH_BUCKETS = 64;

/** The lshPattern call of the LSH cell at N (run in a worker). */
export const lshArgs = (n: number) =>
  ({ seqLen: n, headDim: HEAD_DIM, numBuckets: LSH_BUCKETS, numRounds: 1, chunkLength: LSH_CHUNK, seed: LSH_SEED, pixels: PIXELS });

/** What the worker returns for the LSH cell. */
export interface LshImage { fraction: Float32Array; attendedPairs: number }

export type CellId = 'dense' | 'strided' | 'longformer' | 'bigbird' | 'lsh' | 'linformer';

export interface Cell {
  id: CellId;
  title: string;
  /** The paper, short. */
  source: string;
  /** The title where room is short (phones, the step labels). */
  short: string;
  /** Allowed entries / cells of each pixel, PIXELS x PIXELS (Linformer: its N x k matrix, k columns of N); null while LSH hashes. */
  fraction: Float32Array | null;
  /** Scores the method computes for one head (LSH: the chunk blocks, before the bucket mask). */
  entries: number;
  /** LSH: the pairs it keeps after the bucket mask (null while it hashes); others: the entries. */
  kept: number | null;
  flops: number;
  /** Peak memory the core counts, at FP16: the stored scores (LSH and Linformer: their working set). */
  peakBytes: number;
  /** Parameters in words, shown under the title. */
  params: string;
  /** The size parameter the explanation quotes: strided l, LSH buckets, Linformer k (0 for the others). */
  size: number;
}

export interface Config { n: number }

export interface Figure {
  config: Config;
  cells: Cell[];
  dense: Cell;
}

function patternCell(core: AttnClassic, n: number, id: CellId, title: string, source: string, pattern: SparsePatternInput, params: string, size = 0): Cell {
  const stats = core.patternStats({ pattern, seqLen: n, headDim: HEAD_DIM, valueDim: HEAD_DIM, bytesPerScore: BYTES_PER_ELEMENT });
  const image = core.patternDensityImage({ pattern, seqLen: n, pixels: PIXELS });
  return { id, title, short: title, source, fraction: image.fraction, entries: stats.entries, kept: stats.entries, flops: stats.flops, peakBytes: stats.scoreBytes, params, size };
}

// The cells of N, LSH's without its image.
function buildCells(core: AttnClassic, n: number): Cell[] {
  const stride = Math.ceil(Math.sqrt(n));
  const common = { headDim: HEAD_DIM, valueDim: HEAD_DIM, bytesPerElement: BYTES_PER_ELEMENT };
  const dense = patternCell(core, n, 'dense', 'Dense', 'Vaswani et al. 2017', { kind: 'dense' }, 'every query, every key');
  const strided = patternCell(core, n, 'strided', 'Strided', 'Sparse Transformer, Child et al. 2019', { kind: 'strided', stride },
    `l = ⌈√N⌉ = ${stride}, causal`, stride);
  const longformer = patternCell(core, n, 'longformer', 'Sliding window', 'Longformer, Beltagy et al. 2020',
    { kind: 'longformer', oneSidedWindow: LONGFORMER_ONE_SIDED, global: 0 }, `w = ${2 * LONGFORMER_ONE_SIDED}, ${LONGFORMER_ONE_SIDED} each side`);
  const bigbird = patternCell(core, n, 'bigbird', 'Window + global + random', 'BigBird, Zaheer et al. 2020', { kind: 'bigbird', ...BIGBIRD },
    `blocks of ${BIGBIRD.block}: ${2 * BIGBIRD.oneSidedWindow + 1} window, ${BIGBIRD.global} global, ${BIGBIRD.randomBlocks} random`);
  longformer.short = 'Window';
  bigbird.short = 'BigBird';

  const lshCost = core.complexityPoint({ method: 'lsh', seqLen: n, lshBuckets: LSH_BUCKETS, lshRounds: 1, lshChunk: LSH_CHUNK, ...common });
  const lsh: Cell = {
    id: 'lsh', title: 'LSH buckets', short: 'LSH', source: 'Reformer, Kitaev et al. 2020', fraction: null,
    entries: lshCost.scoreEntries, kept: null, flops: lshCost.flops, peakBytes: lshCost.peakBytes,
    params: `${LSH_BUCKETS} buckets, chunks of ${LSH_CHUNK}, 1 round`, size: LSH_BUCKETS,
  };

  const k = Math.min(LINFORMER_K, n);
  const lin = core.complexityPoint({ method: 'linformer', seqLen: n, linformerK: k, ...common });
  const columns = Math.max(1, Math.round((PIXELS * k) / n));  // the k projected keys, across the N x N frame's width
  const linformer: Cell = {
    id: 'linformer', title: 'Low rank', short: 'Low rank', source: 'Linformer, Wang et al. 2020', fraction: new Float32Array(PIXELS * PIXELS).map((_, i) => (i % PIXELS < columns ? 1 : 0)),
    entries: lin.scoreEntries, kept: lin.scoreEntries, flops: lin.flops, peakBytes: lin.peakBytes,
    params: `k = ${k} projected keys`, size: k,
  };
  return [dense, strided, longformer, bigbird, lsh, linformer];
}

/** A cell's scores as a share of dense attention's, to two or three significant digits: "3.3%". */
export function shareOfDense(cell: Cell, dense: Cell): string {
  const p = (100 * cell.entries) / dense.entries;
  return `${p >= 10 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p.toFixed(2)}%`;
}

// Every N the control offers, kept: a reader sliding back and forth revisits them.
const cellsOf = boundedCache<Cell[]>(N_CHOICES.length);

/** The figure at N, with the LSH cell's image when the worker has delivered it. */
export function buildFigure(core: AttnClassic, config: Config, lshImage?: LshImage): Figure {
  const { n } = config;
  if (!(N_CHOICES as readonly number[]).includes(n)) throw new Error(`n must be one of ${N_CHOICES.join(', ')}, got ${n}`);
  const cells = cellsOf(String(n), () => buildCells(core, n)).map((c) =>
    (c.id === 'lsh' && lshImage ? { ...c, fraction: lshImage.fraction, kept: lshImage.attendedPairs } : c));
  return { config, cells, dense: cells[0] };
}
