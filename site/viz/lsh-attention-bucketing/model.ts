// The figure's data, all from the core: 32 seeded query vectors in 2-D (in 4 clusters, so that
// tokens really have neighbours), Reformer's LSH attention over them (lshAttention: buckets per
// round, the unit keys, the rotations, which pairs each round scored, the error against dense
// shared-QK attention) and the sectors of the plane each bucket owns (lshSectors2d).
import type { AttnClassic } from '../../../wasm/load';
import { boundedCache } from '../shared/boundedCache';

export const TOKENS = 32;
export const HEAD_DIM = 2;
export const BUCKETS = [2, 4, 8, 16] as const;
export const ROUNDS = [1, 2, 4] as const;
export const CHUNKS = [4, 8, 16, 32] as const;
export const SEEDS = [1, 2, 3, 4, 5] as const;
// Queries are sharpness * (one of 4 random cluster centres + noise), so each token has about seven
// near neighbours that dense attention weights most; values are 8 wide (drawn only as the error).
export const CLUSTERS = 4;
const NOISE = 0.1, SHARPNESS = 12, VALUE_DIM = 8;

export interface Config {
  buckets: number;
  rounds: number;
  chunk: number;
  seed: number;
}
export const DEFAULT_CONFIG: Config = { buckets: 4, rounds: 1, chunk: 16, seed: 1 };

export interface Sector { bucket: number; begin: number; end: number }

export interface Figure {
  config: Config;
  /** The raw queries, [TOKENS, 2]. */
  raw: ArrayLike<number>;
  /** The keys Reformer uses (unit queries), [TOKENS, 2]. */
  unit: Float32Array;
  /** buckets[r * TOKENS + j]: token j's bucket in round r. */
  buckets: Uint32Array;
  /** sectors[r]: the arcs of round r's hash. */
  sectors: Sector[][];
  /** The direction of each bucket in round 0: column b of R (b < half) or its negative, [buckets, 2]. */
  directions: Float32Array;
  /** attended[i * TOKENS + j]: rounds in which query i scored key j. */
  attended: Uint8Array;
  /** Unordered pairs i < j scored in either direction in some round (the lines drawn). */
  pairs: [number, number, number][];
  /** Ordered pairs i != j scored, and all N (N - 1) of them. */
  scoredPairs: number;
  allPairs: number;
  error: { relativeFrobenius: number; maxAbs: number; top1Preserved: number };
  scoreEntries: number;
  denseEntries: number;
  chunkLength: number;
  /** Tokens in the order Reformer sorts them in round 0: by bucket, then position (the mask's axes). */
  order: number[];
}

function check(name: string, value: number, allowed: readonly number[]) {
  if (!allowed.includes(value)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got ${value}`);
}

// The hashings a reader has tried, kept: the controls are for going back and forth between them,
// and the core's answer for a configuration never changes.
const figures = boundedCache<Figure>(48);

export function buildFigure(core: AttnClassic, config: Config): Figure {
  const { buckets, rounds, chunk, seed } = config;
  check('buckets', buckets, BUCKETS);
  check('rounds', rounds, ROUNDS);
  check('chunk', chunk, CHUNKS);
  return figures(`${buckets} ${rounds} ${chunk} ${seed}`, () => computeFigure(core, config));
}

function computeFigure(core: AttnClassic, config: Config): Figure {
  const { buckets, rounds, chunk, seed } = config;
  const qShape: [number, number, number, number] = [1, 1, TOKENS, HEAD_DIM];
  const input = core.retrievalInputs({ qShape, kvLen: CLUSTERS, noise: NOISE, sharpness: SHARPNESS, seed });
  const vShape: [number, number, number, number] = [1, 1, TOKENS, VALUE_DIM];
  const v = core.randomNormal(vShape, seed, 1);
  const lsh = core.lshAttention({ q: input.q, qShape, k: input.q, kShape: qShape, v, vShape,
    numBuckets: buckets, numRounds: rounds, chunkLength: chunk, seed, recordAttended: true });
  const s = core.lshSectors2d({ numBuckets: buckets, numRounds: rounds, seed });
  const sectors: Sector[][] = Array.from({ length: rounds }, () => []);
  for (let a = 0; a < s.round.length; a++) sectors[s.round[a]].push({ bucket: s.bucket[a], begin: s.begin[a], end: s.end[a] });

  const half = buckets / 2;
  const directions = new Float32Array(buckets * 2);
  for (let b = 0; b < buckets; b++) {
    const sign = b < half ? 1 : -1;
    for (let axis = 0; axis < 2; axis++) directions[b * 2 + axis] = sign * lsh.rotations[axis * half + (b % half)];
  }
  const attended = lsh.attendedRounds!;
  const pairs: [number, number, number][] = [];
  let scoredPairs = 0;
  for (let i = 0; i < TOKENS; i++) {
    for (let j = 0; j < TOKENS; j++) {
      if (i === j) continue;
      if (attended[i * TOKENS + j] > 0) scoredPairs++;
      if (j > i) {
        const rounds = Math.max(attended[i * TOKENS + j], attended[j * TOKENS + i]);
        if (rounds > 0) pairs.push([i, j, rounds]);
      }
    }
  }
  const order = Array.from({ length: TOKENS }, (_, j) => j).sort((a, b) => lsh.buckets[a] - lsh.buckets[b] || a - b);
  return {
    config, raw: input.q, unit: lsh.points2d, buckets: lsh.buckets, sectors, directions, attended, pairs, scoredPairs,
    allPairs: TOKENS * (TOKENS - 1), error: lsh.error, scoreEntries: lsh.cost.scoreEntries, denseEntries: TOKENS * TOKENS,
    chunkLength: lsh.chunkLength, order,
  };
}

export const STEP_LABELS = ['vectors', 'rotation', 'buckets', 'connections', 'mask & error'] as const;
export const STEP = { vectors: 0, rotation: 1, buckets: 2, connections: 3, mask: 4 } as const;

/** A bucket's colour: hues around the wheel, so opposite buckets (b and b + n/2) get opposite hues. */
export const bucketColor = (bucket: number, buckets: number) => `hsl(${Math.round((bucket * 360) / buckets + 200) % 360} 75% 60%)`;
