// Exact attention (wasm/flash/bind_attention.cpp, bind_online_softmax.cpp): SDPA, the traced
// FlashAttention forward pass and the online-softmax state.
import type { AttentionInput, Shape4 } from '../common/types';

export interface SdpaInput extends AttentionInput {
  /** In [0, 1). */
  dropoutP?: number;
  /** Integer in [0, 2^32 - 1]. */
  dropoutSeed?: number;
  returnProbs?: boolean;
}

export interface SdpaResult {
  output: Float32Array;
  outputShape: Shape4;
  /** Per row log-sum-exp; -Infinity for rows with no allowed key (whose output is zeros). */
  lse: Float32Array;
  /** [B, H, L, S] weights that multiplied V (after dropout), when returnProbs. */
  probs?: Float32Array;
}

export interface FlashTraceInput extends AttentionInput {
  /** Br, integer in [1, 1024]; default 64. */
  blockQ?: number;
  /** Bc, integer in [1, 1024]; default 64. */
  blockK?: number;
  /** Bytes per Q/K/V/O element in the HBM traffic model: 1, 2, 4 or 8; default 4. */
  elementBytes?: number;
  traceBatch?: number;
  traceHead?: number;
  /**
   * 'fa2' (default): query blocks outer, O written once (FlashAttention-2, Algorithm 1).
   * 'fa1': key/value blocks outer, O, l, m re-read and re-written per K/V block (FlashAttention-1, Algorithm 1).
   */
  loopOrder?: 'fa2' | 'fa1';
  /**
   * M, the SRAM budget in ELEMENTS, integer in [1, 2^24]. When given, blockQ/blockK are ignored and
   * derived as in FlashAttention-1 Algorithm 1: Bc = ceil(M / 4d), Br = min(Bc, d), d = max(head_dim, value_dim).
   */
  sramElements?: number;
}

/** init_o and load_kv occur only in the 'fa1' loop order. */
export type FlashStepKind = 'load_q' | 'tile' | 'skip' | 'write_o' | 'init_o' | 'load_kv';

/** One block moved between HBM and SRAM in a trace step. */
export interface HbmTransfer {
  /** The HBM array: inputs/outputs, standard attention's S and P, FA1's m and l, the lse, gradients, D = rowsum(dO o O). */
  matrix: 'Q' | 'K' | 'V' | 'O' | 'S' | 'P' | 'm' | 'l' | 'lse' | 'dO' | 'dQ' | 'dK' | 'dV' | 'D';
  direction: 'read' | 'write';
  /** Sequence rows [rowBegin, rowEnd): query rows for Q, O, S, P and per-row statistics; key rows for K, V, dK, dV. */
  rowBegin: number;
  rowEnd: number;
  /** Key columns of an S or P block; feature columns [0, width) otherwise. */
  colBegin: number;
  colEnd: number;
  bytes: number;
}

/** One state of the traced (batch, head) in either loop order. Row arrays are row-major. */
export interface FlashStep {
  kind: FlashStepKind;
  qBlock: number;
  kBlock: number;
  rowBegin: number;
  rowEnd: number;
  colBegin: number;
  colEnd: number;
  /** tile steps: rows x cols scaled, masked scores (-Infinity where masked); empty otherwise. */
  scores: Float32Array;
  /** tile steps: exp(score - m) with the updated m. */
  weights: Float32Array;
  /** Per row, after this step. */
  m: Float32Array;
  l: Float32Array;
  /** Per row: exp(m_old - m_new), the factor applied to l and acc in this step (1 if none). */
  rescale: Float32Array;
  /** rows x valueDim unnormalised accumulator. */
  acc: Float32Array;
  /** rows x valueDim: acc / l, the output if the row stopped here (in 'fa1' order: the normalised O_i written to HBM). */
  output: Float32Array;
  /** Cumulative for the traced head. */
  hbmBytesRead: number;
  hbmBytesWritten: number;
  /** On-chip bytes live during this step. */
  sramBytesHeld: number;
  /** Cumulative, 2 per multiply-add. */
  flops: number;
  /** The HBM reads and writes of this step, in order; their bytes are this step's counter increments. */
  transfers: HbmTransfer[];
}

export interface FlashStats {
  hbmBytesRead: number;
  hbmBytesWritten: number;
  flops: number;
  tilesComputed: number;
  tilesSkipped: number;
  peakSramBytes: number;
}

export interface FlashTraceResult {
  output: Float32Array;
  outputShape: Shape4;
  lse: Float32Array;
  numQBlocks: number;
  numKBlocks: number;
  /** Br and Bc used (derived from sramElements when given). */
  blockQ: number;
  blockK: number;
  /** Whole launch (all batches and heads). */
  stats: FlashStats;
  steps: FlashStep[];
}

/** The (m, l, acc) state of one query row. Lives in wasm memory: call delete() when done. */
export interface OnlineSoftmax {
  readonly m: number;
  readonly l: number;
  readonly valueDim: number;
  /**
   * Folds a tile; values is scores.length x valueDim (at most 2^20 numbers, checked before either
   * array is copied). Returns exp(m_old - m_new). A refused call leaves the state unchanged.
   */
  update(scores: Float32Array | number[], values: Float32Array | number[]): number;
  /** Combines another state over a disjoint set of keys into this one. */
  merge(other: OnlineSoftmax): void;
  finalize(): { output: Float32Array; lse: number };
  acc(): Float32Array;
  delete(): void;
}

export interface AttentionApi {
  sdpa(input: SdpaInput): SdpaResult;
  flashForwardTrace(input: FlashTraceInput): FlashTraceResult;
  OnlineSoftmax: { new (valueDim: number): OnlineSoftmax };
}
