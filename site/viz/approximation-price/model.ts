// The figure's data: every approximate method the core has, run for real on one head of seeded
// inputs (random, or retrieval-style: each query a noisy copy of one key), with its error against
// exact attention and its counted FLOPs, both from the core (each method's result: error vs
// attn::sdpa in double, cost from its own counts). Dense attention is the reference point: the
// sparse-attention binding with the dense pattern reports its cost and a zero error.
// Nine methods, each with its dense reference in double, take longer than a frame even at N = 128:
// a new configuration runs in a worker (shared/offThread.ts) while the last result stays on screen;
// results are cached by (N, input, seed). Only the opening configuration runs on the page's thread.
import type { AttnClassic } from '../../../wasm/load';
import { boundedCache } from '../shared/boundedCache';
import { offThread } from '../shared/offThread';

export const SEQ_LENS = [128, 256, 512] as const;
export const SEEDS = [1, 2, 3] as const;
export const HEAD_DIM = 64;
export type InputKind = 'random' | 'retrieval';
export const INPUTS: readonly InputKind[] = ['random', 'retrieval'];

export interface Config {
  n: number;
  input: InputKind;
  seed: number;
}
export const DEFAULT_CONFIG: Config = { n: 128, input: 'retrieval', seed: 1 };

type Shape = [number, number, number, number];
interface Qkv { q: ArrayLike<number>; qShape: Shape; k: ArrayLike<number>; kShape: Shape; v: ArrayLike<number>; vShape: Shape }

export interface MethodSpec {
  id: string;
  name: string;
  /** The row of the published LRA table (lra.ts) for the same method, if it was evaluated there. */
  lra: string | null;
  params: (n: number) => string;
  /** The core call: function name and its arguments besides Q, K, V. */
  call: (n: number, seed: number) => [string, Record<string, unknown>];
  /** Reformer shares queries and keys: its inputs are the queries only (keys = unit queries). */
  sharedQk?: boolean;
}

const bigbirdBlock = 16;
export const METHODS: readonly MethodSpec[] = [
  { id: 'dense', name: 'Dense (exact)', lra: 'Transformer', params: (n) => `all ${n} × ${n} scores`,
    call: () => ['sparseAttention', { pattern: { kind: 'dense' } }] },
  { id: 'longformer', name: 'Longformer', lra: 'Longformer', params: () => 'window 2 × 16, 2 global tokens',
    call: () => ['sparseAttention', { pattern: { kind: 'longformer', oneSidedWindow: 16, global: 2 } }] },
  { id: 'bigbird', name: 'BigBird', lra: 'BigBird', params: () => `blocks of ${bigbirdBlock}: window 3, 1 global, 2 random`,
    call: (_n, seed) => ['sparseAttention', { pattern: { kind: 'bigbird', block: bigbirdBlock, oneSidedWindow: 1, global: 1, randomBlocks: 2, seed } }] },
  { id: 'lsh', name: 'Reformer (LSH)', lra: 'Reformer', sharedQk: true, params: (n) => `${Math.max(2, n / 32)} buckets, chunk 32, 2 rounds`,
    call: (n, seed) => ['lshAttention', { numBuckets: Math.max(2, n / 32), chunkLength: 32, numRounds: 2, seed }] },
  { id: 'linformer', name: 'Linformer', lra: 'Linformer', params: () => 'k = 32 random projections',
    call: (_n, seed) => ['linformer', { projectedLength: 32, seed }] },
  { id: 'performer', name: 'Performer (FAVOR+)', lra: 'Performer', params: () => 'm = 64 orthogonal features',
    call: (_n, seed) => ['performer', { numFeatures: 64, seed }] },
  { id: 'linear', name: 'Linear Transformer', lra: 'Linear Trans.', params: () => 'φ = elu + 1',
    call: () => ['linearAttention', {}] },
  { id: 'synthesizer', name: 'Synthesizer (dense)', lra: 'Synthesizer', params: () => 'MLP, hidden 64, untrained',
    call: (_n, seed) => ['synthesizer', { kind: 'dense', hidden: 64, seed }] },
  { id: 'routing', name: 'Routing Transformer', lra: null, params: (n) => `${Math.round(Math.sqrt(n))} k-means clusters, 4 iterations`,
    call: (n, seed) => ['routingAttention', { numClusters: Math.round(Math.sqrt(n)), iterations: 4, seed }] },
];

interface CoreResult {
  error: { relativeFrobenius: number; maxAbs: number; top1Preserved: number };
  cost: { scoreEntries: number; flops: number; peakBytes: number };
}

export interface Point {
  method: MethodSpec;
  flops: number;
  scoreEntries: number;
  peakBytes: number;
  relativeError: number;
  maxAbs: number;
  top1: number;
}

export interface Figure {
  config: Config;
  points: Point[];
}

function check(c: Config) {
  if (!(SEQ_LENS as readonly number[]).includes(c.n)) throw new Error(`n must be one of ${SEQ_LENS.join(', ')}, got ${c.n}`);
  if (!INPUTS.includes(c.input)) throw new Error(`input must be 'random' or 'retrieval', got '${c.input}'`);
}

// The two inputs of one configuration, from the core. Random: Q, K, V ~ N(0, 1). Retrieval:
// q_i = 2 (k_t(i) + 0.1 e_i), dense attention puts ~0.999 of its weight on the target. Reformer's
// keys are its queries, so its retrieval input makes queries find each other (as the core's error
// table does): q_i = 12 (k_t(i) + 0.1 e_i) with targets among N/2 keys, two queries per target.
function inputs(core: AttnClassic, c: Config): { qkv: Qkv; sharedQk: Qkv } {
  const shape: Shape = [1, 1, c.n, HEAD_DIM];
  const seed = c.seed;
  if (c.input === 'random') {
    const qkv = { q: core.randomNormal(shape, seed, 1), qShape: shape, k: core.randomNormal(shape, seed + 1, 1), kShape: shape,
      v: core.randomNormal(shape, seed + 2, 1), vShape: shape };
    return { qkv, sharedQk: { ...qkv, k: qkv.q } };
  }
  const r = core.retrievalInputs({ qShape: shape, noise: 0.1, sharpness: 2, seed });
  const pairs = core.retrievalInputs({ qShape: shape, kvLen: c.n / 2, noise: 0.1, sharpness: 12, seed });
  const v = core.randomNormal(shape, seed + 2, 1);
  return { qkv: { q: r.q, qShape: shape, k: r.k, kShape: shape, v: r.v, vShape: shape },
    sharedQk: { q: pairs.q, qShape: shape, k: pairs.q, kShape: shape, v, vShape: shape } };
}

function calls(core: AttnClassic, c: Config): [string, unknown][] {
  const { qkv, sharedQk } = inputs(core, c);
  return METHODS.map((m) => {
    const [name, args] = m.call(c.n, c.seed);
    return [name, { ...(m.sharedQk ? sharedQk : qkv), ...args }];
  });
}

const key = (c: Config) => `${c.n}/${c.input}/${c.seed}`;
const results = boundedCache<CoreResult[]>(12);

export const ready = (c: Config) => results.has(key(c));

/** Runs a large configuration's methods in a worker and keeps the results, so buildFigure finds them. */
export async function computeOffThread(core: AttnClassic, c: Config): Promise<void> {
  check(c);
  const out = (await offThread('classic', calls(core, c))) as CoreResult[];
  results(key(c), () => out.map(({ error, cost }) => ({ error, cost })));
}

export function buildFigure(core: AttnClassic, c: Config): Figure {
  check(c);
  const runs = results(key(c), () => calls(core, c).map(([name, args]) => {
    const { error, cost } = (core as unknown as Record<string, (a: unknown) => CoreResult>)[name](args);
    return { error, cost };
  }));
  return {
    config: c,
    points: runs.map((r, i) => ({ method: METHODS[i], flops: r.cost.flops, scoreEntries: r.cost.scoreEntries, peakBytes: r.cost.peakBytes,
      relativeError: r.error.relativeFrobenius, maxAbs: r.error.maxAbs, top1: r.error.top1Preserved })),
  };
}

export const stepLabels = () => METHODS.map((m) => m.name.split(' ')[0]);
