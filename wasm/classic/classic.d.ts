// Hand-written declaration of the Part 1 API bound in wasm/classic/bind_classic.cpp and
// bind_classic_multihead.cpp (the alignment, scoring-function and multi-head figures). Every
// function throws a JavaScript Error naming the bad argument and its allowed range; the module
// keeps working afterwards. Matrices are row-major Float64Arrays with their [rows, cols] shape.

import type { Causal } from '../common/types';

/** Numbers in, as a plain array or a typed array. */
export type Numbers = Float64Array | Float32Array | number[];

export interface MatrixInfo {
  data: Float64Array;
  shape: [number, number];
}

export type ScoreKind = 'additive' | 'dot' | 'general' | 'scaled_dot';

/**
 * additive (Bahdanau): v^T tanh(W s + U h), needs w [attentionDim, queryDim], u [attentionDim, keyDim], v [attentionDim].
 * dot: s^T h. general (Luong): s^T W h, needs w [queryDim, keyDim]. scaled_dot: q^T k / sqrt(d).
 * Each side at most 4096 rows and columns.
 */
export interface ScoreAttentionInput {
  kind: ScoreKind;
  queries: Numbers;
  queryShape: [number, number];
  keys: Numbers;
  keyShape: [number, number];
  w?: Numbers;
  wShape?: [number, number];
  u?: Numbers;
  uShape?: [number, number];
  v?: Numbers;
  /** Optional: the vectors the weights average (encoder states h_j), one row per key. */
  values?: Numbers;
  valueShape?: [number, number];
}

export interface ScoreAttentionResult {
  /** e_ij, [numQueries, numKeys]. */
  scores: Float64Array;
  /** alpha_ij = softmax of each score row. */
  weights: Float64Array;
  shape: [number, number];
  /** Entropy of each weight row in nats (ln numKeys = uniform, 0 = one-hot). */
  entropies: Float64Array;
  /** c_i = sum_j alpha_ij values_j, present when values were given. */
  context?: MatrixInfo;
}

export interface ScoreFlopsInput {
  kind: ScoreKind;
  queryDim: number;
  /** Default queryDim; must equal it for dot and scaled_dot. */
  keyDim?: number;
  /** The additive MLP width; default queryDim. */
  attentionDim?: number;
  /** true (default): terms of one side hoisted (W h, U h per key, W s per query, 1/sqrt d into the query). */
  reuse?: boolean;
  numQueries?: number;
  numKeys?: number;
}

/** FLOPs (multiply, add, tanh = 1 each); total = numQueries numKeys perPair + numQueries perQuery + numKeys perKey. */
export interface ScoreFlopsInfo {
  perPair: number;
  perQuery: number;
  perKey: number;
  total: number;
}

export interface ScalingExperimentInput {
  /** Default [4, 8, ..., 512]; up to 64 entries in [1, 4096]. */
  dims?: number[];
  /** n keys per query, in [2, 4096]; default 16. */
  numKeys?: number;
  /** Queries per d, default 100; trials (numKeys + 1) max(dims) at most 2^23. Each trial's d-dim q, k are the first d coordinates of one max(dims)-dim draw. */
  trials?: number;
  /** Integer in [0, 2^32 - 1]; default 0. */
  seed?: number;
  /** Also Bahdanau's additive score (W, U ~ N(0, 1/d), v ~ N(0, 1/d)); costs trials (numKeys + 1) sum(d^2) <= 2^26. */
  includeAdditive?: boolean;
}

export interface ScoreStatsInfo {
  /** Unbiased sample variance of the scores. */
  variance: number;
  /** Mean softmax entropy in nats, and divided by ln numKeys. */
  entropy: number;
  entropyNormalized: number;
  /** Mean largest softmax weight (1 = one-hot). */
  maxWeight: number;
  /** Mean Frobenius norm of the softmax Jacobian diag(a) - a a^T: 0 one-hot (no gradient reaches the scores), sqrt(1/n - 1/n^2) uniform, 0.5 for two equal weights. */
  jacobianNorm: number;
  /** The first trial's numKeys scores and their softmax (for one seed and dims, the same draw whatever trials is). */
  firstScores: Float64Array;
  firstWeights: Float64Array;
}

export interface ScalingRowInfo {
  dim: number;
  /** q . k with q, k ~ N(0, I_d): variance ~ d. */
  raw: ScoreStatsInfo;
  /** q . k / sqrt(d): variance ~ 1. */
  scaled: ScoreStatsInfo;
  additive?: ScoreStatsInfo;
}

export interface PositionalEncodingInput {
  /** In [1, 65536]; numPositions x dModel at most 2^20. */
  numPositions: number;
  /** Even, in [2, 4096]. */
  dModel: number;
  /** Default 10000. */
  base?: number;
}

export type PatternName = 'previous_token' | 'head_word' | 'coreference' | 'broadcast';

/**
 * A constructed head (attn/classic/pattern_heads.hpp) illustrating a pattern Clark et al. (2019) found in BERT.
 * previous_token: numTokens. head_word: heads (each token's head index). coreference: numTokens, links
 * [[mention, antecedent], ...], fallback (row target without a link; default the row itself).
 * broadcast: numTokens, separator (default numTokens - 1).
 */
export interface PatternHeadInput {
  pattern: PatternName;
  numTokens?: number;
  heads?: number[];
  links?: [number, number][];
  fallback?: number;
  separator?: number;
  /** Default 'sinusoidal'. */
  features?: 'one_hot' | 'sinusoidal';
  /** Sinusoidal feature width, even, in [2, 1024]; default 64. */
  featureDim?: number;
  /** Guaranteed weight on each row's target, in (0.5, 1); default 0.9. */
  minWeight?: number;
}

export interface PatternHeadInfo {
  /** The key each query row is built to attend to. */
  targets: Float64Array;
  q: MatrixInfo;
  k: MatrixInfo;
  /** softmax(Q K^T / sqrt(d)), [n, n]. */
  weights: MatrixInfo;
  gain: number;
  margin: number;
}

/**
 * mode 'self': x is the sequence. mode 'cross': x is the decoder sequence (queries) and encoder the
 * encoder output (keys, values); cross-attention is never causal (a causal value other than 'none' throws) and keyLengths
 * are the encoder's valid lengths. Weights: wQ, wK [numHeads, dModel, headDim], wV [numHeads, dModel,
 * valueDim], wO [numHeads valueDim, dModel]; with weightsSeed, those not given are drawn N(0, 1/fan_in)
 * (without it, all four are required).
 */
export interface MultiHeadInput {
  mode: 'self' | 'cross';
  x: Numbers;
  /** [batch, seq, dModel]. */
  xShape: [number, number, number];
  encoder?: Numbers;
  encoderShape?: [number, number, number];
  /** In [1, 64]. */
  numHeads: number;
  /** In [1, 1024]. */
  headDim: number;
  /** Default headDim. */
  valueDim?: number;
  weightsSeed?: number;
  wQ?: Numbers;
  wK?: Numbers;
  wV?: Numbers;
  wO?: Numbers;
  /** Self-attention only, the convention of every module (default 'none'): 'top_left' or
   *  'bottom_right' let query i see keys 0..i (with L = S the two alignments are the same mask). */
  causal?: Causal;
  /** One per batch entry, each in [1, L_kv]: keys at or beyond it are padding. */
  keyLengths?: number[];
  /** Default 1/sqrt(headDim). */
  scale?: number;
}

export interface TensorInfo {
  data: Float64Array;
  /** [batch, heads, seq, dim]. */
  shape: [number, number, number, number];
}

export interface MultiHeadResult {
  /** [B, h, L_q, headDim], [B, h, L_kv, headDim], [B, h, L_kv, valueDim]. */
  q: TensorInfo;
  k: TensorInfo;
  v: TensorInfo;
  /** [B, 1, L_q, L_kv], 1 = may attend; shared by every head. */
  mask: { data: Uint8Array; shape: [number, number, number, number] };
  /** [B, h, L_q, L_kv]: each head's softmax weights, 0 where masked. */
  weights: TensorInfo;
  /** [B, h, L_q, valueDim]. */
  headOutputs: TensorInfo;
  /** [B, 1, L_q, dModel] = Concat(heads) W^O. */
  output: TensorInfo;
}

export interface ClassicApi {
  /** Scores, softmax weights, entropies and (with values) context vectors of one score function. */
  scoreAttention(input: ScoreAttentionInput): ScoreAttentionResult;
  /** Exact FLOP count of a score function. */
  scoreFlops(input: ScoreFlopsInput): ScoreFlopsInfo;
  /** The sqrt(d_k) experiment: one row per d. */
  scalingExperiment(input: ScalingExperimentInput): ScalingRowInfo[];
  /** Sinusoidal positional encodings (Vaswani et al. 2017, Sec. 3.5), [numPositions, dModel]. */
  positionalEncoding(input: PositionalEncodingInput): MatrixInfo;
  /** A constructed attention-pattern head. */
  patternHead(input: PatternHeadInput): PatternHeadInfo;
  /** Multi-head self- or cross-attention with every intermediate. */
  multiHeadAttention(input: MultiHeadInput): MultiHeadResult;
}
