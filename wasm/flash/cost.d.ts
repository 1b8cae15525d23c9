// Hand-written declaration of the cost-model API bound in wasm/flash/bind_cost.cpp: roofline queries,
// attention FLOPs and HBM traffic, roofline predictions, and the N x N score-matrix footprint (the GPU
// and model presets it also binds are declared in ../common/presets.d.ts). Every function throws a
// JavaScript Error naming the bad argument and its allowed range; the module keeps working afterwards.
import type { Causal } from '../common/types';

/** Arithmetic precision: fp16 also stands for bf16 ('bf16' is accepted as a name for it). */
export type CostPrecision = 'fp32' | 'tf32' | 'fp16' | 'bf16' | 'fp8';
export type CostPass = 'forward' | 'backward' | 'forward_backward';
export type CostAlgorithm = 'standard' | 'flash';
export type RooflineBound = 'memory' | 'compute';

/** Attention problem: batch, query heads, L queries, S keys, head dims. */
export interface AttentionCostShape {
  /** Integer in [1, 65536]; default 1. */
  batch?: number;
  /** Query heads, integer in [1, 4096]; default 1. */
  heads?: number;
  /** L, integer in [1, 2^24]. */
  qLen: number;
  /** S, integer in [1, 2^24]; default qLen. */
  kvLen?: number;
  /** d of Q and K, integer in [1, 1024]. */
  headDim: number;
  /** dv of V and O, integer in [1, 1024]; default headDim. */
  valueDim?: number;
  /** Default 'none'. */
  causal?: Causal;
}

export interface AttentionFlopsInput extends AttentionCostShape {
  /** Default 'forward'. */
  pass?: CostPass;
}

export interface AttentionFlopsResult {
  /** Exact: 2·B·H·L·avg_k·(d+dv) forward, 2·B·H·L·avg_k·(3d+2dv) backward. */
  flops: number;
  /** Query-key pairs visible in one head (L·avg_k). */
  attendedPairs: number;
  /** FlashAttention's convention (4·B·H·N²·d, /2 causal, ×2.5 backward); null unless qLen = kvLen and headDim = valueDim. */
  benchmarkFlops: number | null;
}

export interface HbmTrafficInput extends AttentionCostShape {
  algorithm: CostAlgorithm;
  /** Default 'forward'. */
  pass?: CostPass;
  /** 1, 2, 4 or 8; default 2. */
  elementBytes?: number;
  /** Br. Flash: required. Standard: the row blocks in which K and V are re-read; default qLen
   *  (the paper's count, each input read once). At most 2^20 query blocks. */
  blockQ?: number;
  /** Bc, flash only (required there). */
  blockK?: number;
  /** Flash only: 'fa2' (FlashAttention-2's order, query blocks outer; the forward pass's default, as
   *  in flashForwardTrace) or 'fa1' (FlashAttention's Algorithm 1, K/V blocks outer, the output block
   *  read and written once per K/V block; the only order modelled for the backward pass, and its
   *  default there). */
  loopOrder?: 'fa1' | 'fa2';
}

export interface HbmTrafficResult {
  hbmBytesRead: number;
  hbmBytesWritten: number;
  hbmBytes: number;
  /** FLOPs the kernel executes (whole tiles for flash, dense matrices for standard). */
  flops: number;
  /** Flash only: tiles of the whole launch (every batch entry and head), the unit of the bytes and
   *  FLOPs above and of flashForwardTrace's stats. */
  tilesComputed?: number;
  /** Flash only: the whole launch's tiles skipped by the causal rule. */
  tilesSkipped?: number;
}

export interface PredictInput extends AttentionCostShape {
  algorithm: CostAlgorithm;
  /** Default 'forward'. */
  pass?: CostPass;
  /** Default 'fp16'. */
  precision?: CostPrecision;
}

export interface PredictOnGpuInput extends PredictInput {
  /** A GPU preset id. */
  gpu: string;
}

export interface AttentionPredictionResult {
  algorithm: CostAlgorithm;
  pass: CostPass;
  precision: Exclude<CostPrecision, 'bf16'>;
  /** FA1 block sizes from the GPU's SRAM; standard attention's products block by them too. */
  blockQ: number;
  blockK: number;
  /** Executed FLOPs: the roofline's compute term. */
  flops: number;
  /** Exact useful FLOPs (masked pairs excluded). */
  usefulFlops: number;
  hbmBytesRead: number;
  hbmBytesWritten: number;
  hbmBytes: number;
  peakFlopsPerS: number;
  hbmBytesPerS: number;
  computeTimeS: number;
  memoryTimeS: number;
  /** max(computeTimeS, memoryTimeS). */
  timeS: number;
  /** flops / hbmBytes, FLOP per byte. */
  arithmeticIntensity: number;
  /** flops / timeS. */
  attainedFlopsPerS: number;
  bound: RooflineBound;
}

export interface PerGpuPrediction {
  gpu: string;
  /** null when the GPU cannot run the precision (e.g. fp8 before Hopper/Ada). */
  prediction: AttentionPredictionResult | null;
  /** The reason prediction is null, else null. */
  error: string | null;
}

export interface ScoreFootprintInput {
  /** N, integer in [1, 2^24]. */
  seqLen: number;
  /** Integer in [1, 4096]; default 1. */
  heads?: number;
  /** Integer in [1, 1024]; default 1. */
  layers?: number;
  /** 1, 2, 4 or 8; default 2 (FP16). */
  elementBytes?: number;
}

export interface CostApi {
  /** Dense peak FLOP/s of a GPU at a precision (default fp16); throws if unsupported. */
  peakFlops(input: { gpu: string; precision?: CostPrecision }): number;
  /** Ridge point, peak / bandwidth, in FLOP per byte. */
  ridgePoint(input: { gpu: string; precision?: CostPrecision }): number;
  /** min(peak, intensity × bandwidth) in FLOP/s; intensityFlopsPerByte in [0, 1e12]. */
  attainableFlops(input: { gpu: string; precision?: CostPrecision; intensityFlopsPerByte: number }): number;
  /** flops / bytes in FLOP per byte (flops >= 0, bytes > 0, both finite). */
  arithmeticIntensity(flops: number, bytes: number): number;
  /** 'memory' below the ridge point, 'compute' at or above it. */
  rooflineBound(input: { gpu: string; precision?: CostPrecision; flops: number; bytes: number }): RooflineBound;
  /** Attention FLOPs: the exact form and FlashAttention's benchmark convention. */
  /** Throws when a count passes 2^53 (not exactly representable), as every count of every module. */
  attentionFlops(input: AttentionFlopsInput): AttentionFlopsResult;
  /** FA1 block sizes Bc = ceil(M / 4d), Br = min(Bc, d) for an SRAM of sramElements (M, in [1, 2^30]) elements. */
  fa1BlockSizes(input: { sramElements: number; headDim: number; valueDim?: number }): { blockQ: number; blockK: number };
  /** HBM bytes and executed FLOPs of standard attention (Algorithm 0/3) or FlashAttention (Algorithm 1/4). */
  attentionHbmTraffic(input: HbmTrafficInput): HbmTrafficResult;
  /** Roofline prediction of one attention launch on one GPU preset. */
  predictAttention(input: PredictOnGpuInput): AttentionPredictionResult;
  /** The same prediction on every GPU preset, in gpuPresets() order. */
  predictAttentionPerGpu(input: PredictInput): PerGpuPrediction[];
  /** Bytes of the N × N score matrix per head, per layer (× heads) and per model (× layers). */
  /** Throws when a total passes 2^53 (not exactly representable), as every count of every module. */
  scoreMatrixFootprint(input: ScoreFootprintInput): { perHeadBytes: number; perLayerBytes: number; perModelBytes: number };
}
