// Hand-written declaration of the sparse-pattern and complexity API bound in
// wasm/classic/bind_sparse.cpp (Part 2's pattern-zoo and complexity-scaling figures). Every
// function throws a JavaScript Error naming the bad argument and its allowed range; the module
// keeps working afterwards. Counts are exact integers below 2^53 (beyond, the nearest double).
import type { Shape4 } from '../common/types';

export type PatternKind = 'dense' | 'causal' | 'strided' | 'fixed' | 'longformer' | 'bigbird';

/**
 * A fixed sparse pattern (attn/approx/sparse_patterns.hpp). Fields a kind does not use are ignored.
 * strided (Child et al. 2019): stride l; keys i-l..i and every l-th key before i; causal.
 * fixed (Child et al. 2019): stride l, summary c in [1, l]; own block plus the last c keys of each block; causal.
 * longformer: oneSidedWindow keys per side, dilation (default 1), global = first tokens, symmetric.
 * bigbird: block size, oneSidedWindow in blocks, global = first blocks, randomBlocks in [0, 64], seed.
 */
export interface SparsePatternInput {
  kind: PatternKind;
  stride?: number;
  summary?: number;
  oneSidedWindow?: number;
  dilation?: number;
  global?: number;
  block?: number;
  randomBlocks?: number;
  /** Integer in [0, 2^32 - 1]. */
  seed?: number;
}

export interface PatternStatsInfo {
  /** True mask cells of one (batch, head), counted analytically. */
  entries: number;
  /** entries x (2 headDim + 2 valueDim + 2). */
  flops: number;
  /** entries x bytesPerScore. */
  scoreBytes: number;
  /** entries / N^2. */
  density: number;
}

export interface DensityImageInfo {
  pixels: number;
  /** pixels + 1 boundaries: pixel p covers rows/columns [edges[p], edges[p + 1]). */
  edges: Float64Array;
  /** pixels x pixels allowed-cell counts, row-major. */
  allowed: Float64Array;
  /** allowed / cells of each pixel, row-major. */
  fraction: Float32Array;
}

export interface SparseAttentionInfo {
  output: Float32Array;
  outputShape: Shape4;
  /** Against dense attention with the pattern's causality (strided, fixed, causal: causal dense). */
  error: { relativeFrobenius: number; maxAbs: number; top1Preserved: number };
  /** What a kernel computing only the allowed entries does, over every (batch, head). */
  cost: { scoreEntries: number; flops: number; peakBytes: number };
}

/** 'flash': FlashAttention, exact -- dense FLOPs and scores, extra memory 2N + one Br x Bc tile. */
export type ComplexityMethodName = 'dense' | 'sparse' | 'lsh' | 'linformer' | 'performer' | 'flash';

/** Cost-model parameters of the curves; defaults in brackets. */
export interface ComplexityParamsInput {
  /** [64] */ headDim?: number;
  /** [64] */ valueDim?: number;
  /** [2] bytes per stored element (2 = FP16). */ bytesPerElement?: number;
  /** [64] 1 or even, <= 4096. */ lshBuckets?: number;
  /** [4] */ lshRounds?: number;
  /** [64] */ lshChunk?: number;
  /** [256] Linformer's projected length k. */ linformerK?: number;
  /** [256] Performer's random features m. */ performerFeatures?: number;
  /** [64] FlashAttention's query block Br, in [1, 4096]. */ flashBlockQ?: number;
  /** [64] FlashAttention's key/value block Bc, in [1, 4096]. */ flashBlockK?: number;
}

export interface ComplexityPointInfo {
  seqLen: number;
  scoreEntries: number;
  flops: number;
  /** LSH only: rounds x N x ceil(log2 N), the sort by bucket. */
  sortComparisons: number;
  peakBytes: number;
}

export interface ComplexityCurveInfo {
  method: ComplexityMethodName;
  /** 'N^2' | 'N sqrt N' | 'N log N' | 'N' | 'N^2 FLOPs, N memory'. */
  bigO: string;
  seqLen: Float64Array;
  scoreEntries: Float64Array;
  flops: Float64Array;
  sortComparisons: Float64Array;
  peakBytes: Float64Array;
}

export interface TimelineMarkerInfo {
  model: string;
  year: number;
  contextTokens: number;
  /** The primary source of the year and the context length. */
  source: string;
}

/** Reformer's pattern (attn/approx/lsh_pattern.hpp): the pairs LSH attention attends, per pixel. */
export interface LshPatternInfo extends DensityImageInfo {
  /** Pairs (i, j) attended in at least one round (the self pair only for a query with no other). */
  attendedPairs: number;
  /** The chunk length used (chunkLength clamped to seqLen). */
  chunkLength: number;
  /** lsh_attention_cost for one head: every score of the chunk blocks is formed, then masked by bucket (8 B/element). */
  cost: { scoreEntries: number; flops: number; peakBytes: number };
}

export interface MemoryReferenceInfo {
  /** '80 GB: one A100'. */
  label: string;
  /** Decimal bytes, as the datasheet prints them (80e9). */
  bytes: number;
  source: string;
}

export interface SparseApi {
  /** N x N mask, row-major, 1 = may attend. seqLen in [1, 1024]. */
  patternMask(args: { pattern: SparsePatternInput; seqLen: number }): Uint8Array;
  /** seqLen in [1, 2^24]; headDim/valueDim default 64, bytesPerScore (1..16) default 8. BigBird: ceil(seqLen / block) <= 2^18 block rows. */
  patternStats(args: { pattern: SparsePatternInput; seqLen: number; headDim?: number; valueDim?: number;
    bytesPerScore?: number }): PatternStatsInfo;
  /** pixels in [1, min(seqLen, 2048)]; never materialises the N x N mask. BigBird: ceil(seqLen / block) <= 2^18 block rows. */
  patternDensityImage(args: { pattern: SparsePatternInput; seqLen: number; pixels: number }): DensityImageInfo;
  /** Self-attention (qShape, kShape, vShape share B, H and N; N <= 4096; B H N^2 <= 2^22) under the pattern. */
  sparseAttention(args: { pattern: SparsePatternInput; q: Float32Array | number[]; qShape: Shape4;
    k: Float32Array | number[]; kShape: Shape4; v: Float32Array | number[]; vShape: Shape4 }): SparseAttentionInfo;
  /** One method at one N in [1, 2^24] (the dot that follows the slider). */
  complexityPoint(args: { method: ComplexityMethodName; seqLen: number } & ComplexityParamsInput): ComplexityPointInfo;
  /** All methods at `points` [64] log-spaced N from nMin [256] to nMax [10^6]; nMax <= 2^24. */
  complexityCurves(args: { nMin?: number; nMax?: number; points?: number } & ComplexityParamsInput): ComplexityCurveInfo[];
  /** GPT-2 (2019, 1024), Longformer (2020, 4096), Gemini 1.5 Pro (2024, 10^6), with sources. */
  timelineMarkers(): TimelineMarkerInfo[];
  /**
   * Reformer's pattern for seqLen in [1, 65536] queries drawn i.i.d. N(0, 1) in headDim [64] (<= 256)
   * dimensions from seed [0] (which also draws the rotations); numBuckets [8], numRounds [1],
   * chunkLength [64] as lshAttention; pixels in [1, min(seqLen, 2048)]. Bounded: seqLen * headDim <= 2^21 and
   * numRounds * seqLen * (headDim * numBuckets / 2 + 2 * chunkLength) <= 2^26 (well under a second).
   * The queries of the longest draw so far at a seed and headDim are kept, and a shorter seqLen hashes a
   * prefix of them (the same queries a fresh draw gives). At seqLen 8192, headDim 64, 64 buckets: about
   * 17 ms when the queries must be drawn, about 4 ms when they are kept.
   */
  lshPattern(args: { seqLen: number; headDim?: number; numBuckets?: number; numRounds?: number; chunkLength?: number;
    seed?: number; pixels: number }): LshPatternInfo;
  /** One A100 80GB's device memory from the core's GPU presets, with its datasheet source. */
  memoryReference(): MemoryReferenceInfo;
}
