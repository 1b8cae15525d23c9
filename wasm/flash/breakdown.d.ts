// standardAttentionBreakdown (wasm/flash/bind_standard_breakdown.cpp): unfused standard
// attention's forward pass, one kernel per operation, each timed by the roofline.
import type { CostPrecision } from './cost';

export interface StandardBreakdownInput {
  /** GPU preset id, e.g. 'a100-sxm-80gb'. */
  gpu: string;
  qLen: number;
  headDim: number;
  /** Query rows per block of the two products: K and V are read once per block. */
  blockQ: number;
  batch?: number;
  heads?: number;
  kvLen?: number;
  valueDim?: number;
  /** 'none' (default), 'top_left' or 'bottom_right'; any mask adds a mask pass over S. */
  causal?: 'none' | 'top_left' | 'bottom_right';
  precision?: CostPrecision;
  /** Adds a dropout pass over P. Default false. */
  dropout?: boolean;
}

export interface StandardBreakdownOperation {
  name: 'matmul_qk' | 'mask' | 'softmax' | 'dropout' | 'matmul_pv';
  kind: 'matmul' | 'elementwise';
  /** 0 for elementwise passes (their arithmetic is not counted). */
  flops: number;
  /** Bytes read plus written, all batches and heads. */
  hbmBytes: number;
  /** Roofline time of this launch alone: a lower bound. */
  timeS: number;
}

export interface BreakdownApi {
  /** The operations in execution order. Throws an Error naming the bad argument. */
  standardAttentionBreakdown(input: StandardBreakdownInput): StandardBreakdownOperation[];
}
