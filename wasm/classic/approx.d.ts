// Hand-written declaration of the approximate-attention API bound in wasm/classic/bind_approx.cpp
// (Part 2: Reformer LSH, Linformer, Performer, Linear Transformer, Synthesizer, Routing
// Transformer, and retrieval-style inputs). Every method runs for real on small inputs and
// returns its output, its error against dense attention and its counted cost. Every function
// throws a JavaScript Error naming the bad argument and its allowed range; the module keeps
// working afterwards. Inputs are the shared Q/K/V tensors (one K/V head per query head);
// B * H * L * S is capped as for sdpa. Seeds are integers in [0, 2^32 - 1].
import type { AttentionInput, Causal, Shape4 } from '../common/types';

/** Q, K and V as every attention function takes them (no scale, causal or mask here). */
export type ApproxQkvInput = Pick<AttentionInput, 'q' | 'qShape' | 'k' | 'kShape' | 'v' | 'vShape'>;

export interface ApproxResultInfo {
  output: Float32Array;
  outputShape: Shape4;
  /** Against dense attention (attn::sdpa in double) on the same inputs; see each method for its reference. */
  error: { relativeFrobenius: number; maxAbs: number; top1Preserved: number };
  /** Over every (batch, head): scores formed (0 for Performer and Linear), FLOPs, peak working set (8 B/element). */
  cost: { scoreEntries: number; flops: number; peakBytes: number };
}

/** Reformer (Kitaev et al. 2020): shared-QK, keys = unit queries (k is used for shapes only); N = L = S. */
export interface LshInput extends ApproxQkvInput {
  /** [8] 1 (no hashing) or even in [2, 4096]. */ numBuckets?: number;
  /** [1] hash rounds in [1, 64]. */ numRounds?: number;
  /** [64] chunk length m, clamped to N. */ chunkLength?: number;
  /** [0] rotations and drawing plane. */ seed?: number;
  /** [1/sqrt(d)] */ scale?: number;
  /** [false] also return attendedRounds (N^2 bytes per head, within the score cap). */ recordAttended?: boolean;
}

/** error is measured against dense shared-QK attention (keys = unit queries) without self-attention. */
export interface LshResultInfo extends ApproxResultInfo {
  /** The chunk length used (chunkLength clamped to N). */
  chunkLength: number;
  /** Bucket of token j in round r: index ((b * H + h) * numRounds + r) * N + j. */
  buckets: Uint32Array;
  /** [B, H, N, 2] unit keys projected to 2-D: identity for d <= 2, else a seeded random orthonormal plane. */
  points2d: Float32Array;
  /** [numRounds, d, numBuckets / 2] random rotations R_r (empty for one bucket): h(x) = argmax([xR; -xR]). */
  rotations: Float32Array;
  /** With recordAttended: rounds (0..numRounds) in which query i scored key j inside its bucket, index ((b * H + h) * N + i) * N + j; the diagonal is scored every round but penalised (a token attends itself only when alone). */
  attendedRounds?: Uint8Array;
}

/** The hash's sectors for head dim 2 (same numBuckets, numRounds and seed as lshAttention). */
export interface LshSectorsInput {
  /** [8] 1 or even, at most 64 here. */ numBuckets?: number;
  /** [1] in [1, 64]. */ numRounds?: number;
  /** [0] */ seed?: number;
}

/** Arc s of round round[s]: bucket[s] wins for angles begin[s]..end[s] (radians, counter-clockwise, begin in [-pi, pi), end may pass pi); each round's arcs tile the circle once. */
export interface LshSectorsInfo {
  round: Uint32Array;
  bucket: Uint32Array;
  begin: Float64Array;
  end: Float64Array;
}

/** Linformer (Wang et al. 2020): K, V compressed to k rows by E, F in R^{k x N}. */
export interface LinformerInput extends ApproxQkvInput {
  /** ['random'] E, F ~ N(0, 1/N) from seed; 'identity' = E = F = I (k = N, exact). */ projection?: 'random' | 'identity';
  /** [64] k in [1, 4096] (random only). */ projectedLength?: number;
  seed?: number;
  scale?: number;
}

/** Performer FAVOR+ (Choromanski et al. 2021), non-causal. scale must be > 0. */
export interface PerformerInput extends ApproxQkvInput {
  /** [64] m in [1, 4096]. */ numFeatures?: number;
  /** [true] orthogonal random features; false = i.i.d. Gaussian. */ orthogonal?: boolean;
  seed?: number;
  scale?: number;
}

/** Linear Transformer (Katharopoulos et al. 2020), phi = elu + 1; error vs dense softmax (causal if causal). */
export interface LinearAttentionInput extends ApproxQkvInput {
  /** ['none'] 'top_left' or 'bottom_right': key j visible to query i iff j <= i; needs L == S. */ causal?: Causal;
  /** ['recurrent'] running state (linear), or 'parallel' (the N x N kernel matrix); same result. */ form?: 'recurrent' | 'parallel';
}

/** Synthesizer (Tay et al. 2021) with random, untrained weights; self-attention (L == S); q rows are the tokens. */
export interface SynthesizerInput extends ApproxQkvInput {
  /** ['dense'] 2-layer ReLU MLP per token, or a fixed random N x N matrix. */ kind?: 'dense' | 'random';
  /** [0 = head_dim] MLP hidden width, up to 4096. */ hidden?: number;
  seed?: number;
}

/** Routing Transformer (Roy et al. 2021): k-means on unit queries and keys, shared centroids. */
export interface RoutingInput extends ApproxQkvInput {
  /** [8] in [1, 4096] and at most L + S. */ numClusters?: number;
  /** [4] Lloyd iterations in [0, 100]. */ iterations?: number;
  seed?: number;
  scale?: number;
}

export interface RoutingResultInfo extends ApproxResultInfo {
  /** Cluster of each query: index (b * H + h) * L + i. */ queryCluster: Uint32Array;
  /** Cluster of each key: index (b * H + h) * S + j. */ keyCluster: Uint32Array;
  /** Queries whose cluster holds no key (their output row is zero). */ queriesWithoutKeys: number;
}

/** K, V ~ N(0, 1); q_i = sharpness * (k_t(i) + noise * e_i). */
export interface RetrievalInputsInput {
  qShape: Shape4;
  /** [qShape seq] */ kvLen?: number;
  /** [qShape dim] */ valueDim?: number;
  /** [0.1] in [0, 100] */ noise?: number;
  /** [2] in (0, 100] */ sharpness?: number;
  seed?: number;
}

export interface RetrievalInputsInfo extends ApproxQkvInput {
  /** Target key of each query: index (b * H + h) * L + i. */
  targets: Uint32Array;
}

export interface ApproxApi {
  /** Besides the Q/K/V caps (types.d.ts): numRounds * B * H * (L * S * (D + Dv) + (L + S) * D * numBuckets) <= 2^27. */
  lshAttention(input: LshInput): LshResultInfo;
  /** At most numRounds * numBuckets^3 = 2^24 hash evaluations (milliseconds). */
  lshSectors2d(input: LshSectorsInput): LshSectorsInfo;
  /** Besides the Q/K/V caps: B * H * projectedLength * (S + L) * (D + Dv) <= 2^27 (projectedLength = S for 'identity'). */
  linformer(input: LinformerInput): ApproxResultInfo;
  /** Besides the Q/K/V caps: B * H * numFeatures * (L + S) * (D + Dv) <= 2^27. */
  performer(input: PerformerInput): ApproxResultInfo;
  linearAttention(input: LinearAttentionInput): ApproxResultInfo;
  synthesizer(input: SynthesizerInput): ApproxResultInfo;
  routingAttention(input: RoutingInput): RoutingResultInfo;
  retrievalInputs(input: RetrievalInputsInput): RetrievalInputsInfo;
}
