// Hand-written declaration of the IO-aware attention API bound in wasm/flash/bind_io.cpp: standard
// attention as a GPU runs it (FlashAttention paper, Algorithm 0) with a trace, the recomputing
// FlashAttention backward, and Rabe & Staats' memory-efficient chunked attention.
// flashForwardTrace (both loop orders) is declared in attention.d.ts.
//
// Byte counters model a GPU kernel: Q, K, V, O, S, P, dO, dK, dV cost elementBytes per element;
// statistics (m, l, lse, D) and dQ's accumulator are fp32. FLOPs count 2 per multiply-add.
// Every function throws a JavaScript Error naming the bad argument and its allowed range; the
// module keeps working afterwards.
import type { AttentionInput, Shape4 } from '../common/types';
import type { HbmTransfer } from './attention';

/** Blocking and traffic-model options shared by the traced IO algorithms. */
export interface IoBlockInput extends AttentionInput {
  /** Br, rows of Q per block: integer in [1, 1024]; default 64. */
  blockQ?: number;
  /** Bc, rows of K and V per block: integer in [1, 1024]; default 64. */
  blockK?: number;
  /**
   * M, the SRAM budget in ELEMENTS, integer in [1, 2^24]. When given, blockQ/blockK are ignored:
   * Bc = ceil(M / 4d), Br = min(Bc, d), d = max(head_dim, value_dim) (FlashAttention-1, Algorithm 1 line 1).
   */
  sramElements?: number;
  /** Bytes per Q/K/V/O (and S, P, dO, dK, dV) element: 1, 2, 4 or 8; default 4. */
  elementBytes?: number;
  /** Which (batch, head) the trace follows: integers within the problem; default 0. */
  traceBatch?: number;
  traceHead?: number;
}

export type StandardStepKind = 'load_q' | 'score_tile' | 'softmax_rows' | 'pv_tile' | 'write_o';

/** One step of standard attention's three passes for the traced (batch, head). Arrays are row-major. */
export interface StandardStep {
  /** Pass 1: load_q, score_tile (S_ij written); pass 2: softmax_rows (S read, P written); pass 3: pv_tile, write_o. */
  kind: StandardStepKind;
  qBlock: number;
  kBlock: number;
  /** Query rows of the step. */
  rowBegin: number;
  rowEnd: number;
  /** Key columns: the tile's for score_tile and pv_tile, [0, S) for softmax_rows. */
  colBegin: number;
  colEnd: number;
  /** score_tile: S_ij (rows x cols); softmax_rows: the S rows read (rows x S). -Infinity where masked. */
  scores: Float32Array;
  /** softmax_rows: the P rows written (rows x S); pv_tile: the P_ij read. */
  probs: Float32Array;
  /** softmax_rows: per row max score and sum of exp(score - max). */
  m: Float32Array;
  l: Float32Array;
  /** pv_tile and write_o: rows x valueDim, O accumulated so far. */
  output: Float32Array;
  /** Cumulative for the traced head, including this step. */
  hbmBytesRead: number;
  hbmBytesWritten: number;
  /** Bytes of S and P resident in HBM after this step (traced head): the N^2 footprint. */
  hbmBytesStored: number;
  /** On-chip bytes live during this step (pass 2 holds whole rows). */
  sramBytesHeld: number;
  /** Cumulative, 2 per multiply-add of Q K^T and P V. */
  flops: number;
  /** The HBM reads and writes of this step, in order. */
  transfers: HbmTransfer[];
}

export interface StandardTraceResult {
  output: Float32Array;
  outputShape: Shape4;
  /** Per row log-sum-exp (computed on chip, not counted as written: Algorithm 0 keeps P instead). */
  lse: Float32Array;
  numQBlocks: number;
  numKBlocks: number;
  blockQ: number;
  blockK: number;
  /** Whole launch (all batches and heads). */
  stats: {
    hbmBytesRead: number;
    hbmBytesWritten: number;
    flops: number;
    peakSramBytes: number;
    /** S and P of every head: 2 * B * H * L * S * elementBytes. */
    hbmIntermediateBytes: number;
  };
  steps: StandardStep[];
}

export interface FlashBackwardInput extends IoBlockInput {
  /** The forward output, [B, Hq, L, Dv] (the shape q and v imply). */
  o: Float32Array | number[];
  /** The gradient of the loss with respect to the output, same shape as o. */
  dO: Float32Array | number[];
  /** The forward's log-sum-exp, B * Hq * L entries; -Infinity for rows with no allowed key. */
  lse: Float32Array | number[];
  /** Record the steps of the traced key/value head's group; default false. Caps L, S <= 1024. */
  trace?: boolean;
}

export type FlashBackwardStepKind = 'compute_delta' | 'load_kv' | 'tile' | 'skip' | 'write_dkdv';

/** One step of the backward for the traced key/value head (all query heads of its group). */
export interface FlashBackwardStep {
  kind: FlashBackwardStepKind;
  /** compute_delta, tile, skip: the query head. */
  qHead: number;
  qBlock: number;
  kBlock: number;
  /** Query rows (empty for load_kv and write_dkdv). */
  rowBegin: number;
  rowEnd: number;
  /** Key rows (empty for compute_delta). */
  colBegin: number;
  colEnd: number;
  /** tile: the recomputed P_ij = exp(S_ij - lse_i), rows x cols. */
  probs: Float32Array;
  /** tile: dS_ij = P_ij o (dP_ij - D_i), rows x cols. */
  dScores: Float32Array;
  /** compute_delta: D_i = rowsum(dO_i o O_i) per row. */
  delta: Float32Array;
  /** Cumulative for the traced group, including this step. */
  hbmBytesRead: number;
  hbmBytesWritten: number;
  sramBytesHeld: number;
  flops: number;
  transfers: HbmTransfer[];
}

export interface FlashBackwardResult {
  dQ: Float32Array;
  dK: Float32Array;
  dV: Float32Array;
  /** [B, Hq, L, D], [B, Hkv, S, D], [B, Hkv, S, Dv]; with GQA dK, dV sum over each group's query heads. */
  dQShape: Shape4;
  dKShape: Shape4;
  dVShape: Shape4;
  numQBlocks: number;
  numKBlocks: number;
  blockQ: number;
  blockK: number;
  stats: {
    hbmBytesRead: number;
    hbmBytesWritten: number;
    /** Every multiply-add x 2, recomputation included. */
    flops: number;
    /** The part spent recomputing S = Q K^T: 2 * D per computed score. */
    recomputeFlops: number;
    tilesComputed: number;
    tilesSkipped: number;
    peakSramBytes: number;
    /** S and P a non-recomputing backward would have stored: 2 * B * Hq * L * S * elementBytes. */
    bytesNotStored: number;
  };
  /** Empty unless trace. */
  steps: FlashBackwardStep[];
}

export interface ChunkedAttentionInput extends AttentionInput {
  /** Query rows per chunk, integer in [1, 2^20]; default 1024 (the paper's query_chunk_size), clamped to L. */
  queryChunk?: number;
  /** Keys per chunk, integer in [1, 2^20]; default ceil(sqrt(S)), clamped to S. */
  keyChunk?: number;
  /** Bytes per intermediate element: 1, 2, 4 or 8; default 4. */
  elementBytes?: number;
  /** Record one step per (query chunk, key chunk) and per merge; default false. */
  trace?: boolean;
  traceBatch?: number;
  traceHead?: number;
}

export interface ChunkedStep {
  /** summarize: one key chunk's (max, weight sum, weighted values) stored; combine: the query chunk's summaries merged. */
  kind: 'summarize' | 'combine';
  qChunk: number;
  kChunk: number;
  rowBegin: number;
  rowEnd: number;
  /** summarize: the chunk's keys; combine: empty. */
  colBegin: number;
  colEnd: number;
  /** Per row: the chunk's own max and sum of exp(s - max) (summarize), or the merged ones (combine). */
  m: Float32Array;
  l: Float32Array;
  /** combine: rows x valueDim output. */
  output: Float32Array;
  /** Intermediate elements alive during this step. */
  liveElements: number;
}

export interface ChunkedAttentionResult {
  output: Float32Array;
  outputShape: Shape4;
  lse: Float32Array;
  queryChunk: number;
  keyChunk: number;
  numQChunks: number;
  numKChunks: number;
  stats: {
    /** The largest intermediate storage alive at once (one head): queryChunk * keyChunk scores + the summaries. */
    peakIntermediateElements: number;
    peakIntermediateBytes: number;
    /** L * S: one head's scores as dense attention materialises them. */
    denseScoreElements: number;
    flops: number;
  };
  /** Empty unless trace. */
  steps: ChunkedStep[];
}

export interface IoApi {
  /** Standard attention (FlashAttention paper, Algorithm 0) with every HBM transfer traced. Caps: L, S <= 1024; Q blocks x K blocks <= 4096; B * H * L * S <= 2^22. */
  standardAttentionTrace(input: IoBlockInput): StandardTraceResult;
  /** dQ, dK, dV from Q, K, V, O, dO and the lse only (P recomputed per tile). Cap: B * Hq * L * S <= 2^22. */
  flashBackward(input: FlashBackwardInput): FlashBackwardResult;
  /** Exact attention in query/key chunks with max-stabilised partial sums; reports peak intermediate memory. Cap: B * Hq * L * S <= 2^22. */
  chunkedAttention(input: ChunkedAttentionInput): ChunkedAttentionResult;
}
