// Hand-written declaration of the decode-step roofline bound in wasm/inference/bind_roofline.cpp
// (core: attn/cost/decode_roofline.hpp): one autoregressive decode step of a model preset under a
// KV scheme, its arithmetic intensity, its place on a GPU preset's roofline, the time-per-output-token
// floor and whether the batch fits in the GPU's memory. The function throws a JavaScript Error naming
// the bad argument and its allowed range; the module keeps working afterwards. Closed forms only: a
// call takes microseconds at any accepted size.
import type { KvBytesInfo, KvDtype, KvSchemeName } from './kvschemes';

export interface DecodeRooflineInput {
  /** A model preset id ('llama3-8b', 'llama3-70b', 'deepseek-v2', ...; see modelPresets()). */
  model: string;
  /**
   * The cache scheme; default the preset's own. Another scheme keeps the preset's layers, query
   * heads, head size and sliding window (DeepSeek-V2's Table 1 comparison): 'mla' on a model without
   * MLA uses DeepSeek-V2's d_c = 512 and d_R = 64.
   */
  scheme?: KvSchemeName;
  /** 'gqa' only: K/V heads G, dividing the preset's query heads, in [1, 65536]; default the preset's own (GQA presets) or 8. */
  gqaGroups?: number;
  /** Tokens per request, in [1, 2^24]. */
  contextTokens: number;
  /** Requests decoded together, in [1, 65536]; default 1. */
  batch?: number;
  /** Element type of the cache and the weights; default 'fp16'. Sets the arithmetic: fp32, fp16 (fp16 and bf16) or fp8. */
  dtype?: KvDtype;
  /** Count the preset's active parameters as read once per step (default true); false = the KV cache alone. */
  weights?: boolean;
  /** A GPU preset id; default 'h100-sxm'. fp8 on a GPU without FP8 tensor cores throws. */
  gpu?: string;
}

export interface DecodeRooflineResult {
  model: string;
  scheme: KvSchemeName;
  /** The preset's own cache (its scheme, and its own K/V head count under GQA). */
  ownScheme: boolean;
  gpu: string;
  precision: 'fp32' | 'fp16' | 'fp8';
  weightsCounted: boolean;
  /** Parameters read per step (the preset's activeParameters), 0 when weights is false. The same for every scheme variant of a preset. */
  weightParameters: number;
  /** Query heads per cached K/V head: 1 MHA, G under GQA, H_q under MQA and MLA (every head reads the one latent). */
  groupSize: number;
  /** The cache the step reads, as kvCacheBytes gives it (kv.totalBytes = kvBytesRead). */
  kv: KvBytesInfo;
  /** 4·L·H_q·d_h·T·B, or 2·L·H_q·(2 d_c + d_R)·T·B under MLA (absorbed form). */
  attentionFlops: number;
  /** 2·P·B. */
  weightFlops: number;
  flops: number;
  kvBytesRead: number;
  /** P × bytes per element: read once for the whole batch. */
  weightBytesRead: number;
  bytesRead: number;
  /** attentionFlops / kvBytesRead: 2·G / bytes per element, independent of context and batch. */
  attentionIntensity: number;
  /** flops / bytesRead, FLOP per byte: rises with the batch only through the shared weight read. */
  arithmeticIntensity: number;
  peakFlopsPerS: number;
  hbmBytesPerS: number;
  /** peakFlopsPerS / hbmBytesPerS, FLOP per byte. */
  ridgePoint: number;
  /** min(peak, arithmeticIntensity × bandwidth). */
  attainableFlopsPerS: number;
  /** 'memory' below the ridge point, 'compute' at or above it. */
  bound: 'memory' | 'compute';
  /** bytesRead / hbmBytesPerS: the time-per-output-token floor set by memory. */
  memoryTimeS: number;
  /** kvBytesRead / hbmBytesPerS: the cache's share of it. */
  kvMemoryTimeS: number;
  /** flops / peakFlopsPerS. */
  computeTimeS: number;
  /** max(memoryTimeS, computeTimeS). */
  tpotLowerBoundS: number;
  /** The batch's cache plus the weights (weights stored once), bytes. */
  footprintBytes: number;
  /** The GPU's memory, bytes (vendor GB = 1e9). */
  hbmCapacityBytes: number;
  fits: boolean;
  /** Longest context per request that fits at this batch next to the counted weights; 0 if the weights alone do not fit; null when any context fits (a sliding window's cache fits). */
  maxContextFitting: number | null;
}

export interface DecodeRooflineApi {
  /**
   * One decode step on the roofline. Counts every total exactly: one beyond 2^53 throws (e.g. a
   * 405B model's FLOPs at batch 65536).
   */
  decodeRoofline(input: DecodeRooflineInput): DecodeRooflineResult;
}
