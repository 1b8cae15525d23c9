// Hand-written declaration of the GPU-execution API bound in wasm/flash/bind_gpu.cpp: FA1 vs FA2
// thread-block partitioning and waves (FlashAttention-2 §3.2), FlashAttention-3's warp-specialised
// pipeline (FA3 §3.1-3.2), and FA3's FP8 numerical-error experiment (FA3 §4.3, Table 3).
// Every function throws a JavaScript Error naming the bad argument and its allowed range; the
// module keeps working afterwards.
import type { Causal } from '../common/types';

/** PyTorch is_causal (top_left) or causal_lower_right (bottom_right). */

export interface WorkPartitionInput {
  /** GPU preset id, e.g. 'a100-sxm-80gb' or 'h100-sxm' (a preset without a published SM count throws). */
  gpu: string;
  /** fa1: one thread block per (batch, head); fa2: one per (batch, head, query block). */
  partition: 'fa1' | 'fa2';
  /** Integer in [1, 65536]; default 1. */
  batch?: number;
  /** Query heads, integer in [1, 65536]; default 1. */
  heads?: number;
  /** L, integer in [1, 2^24]; default 1024. */
  qLen?: number;
  /** S, integer in [1, 2^24]; default qLen. */
  kvLen?: number;
  /** Br, integer in [1, 4096]; default 128. */
  blockQ?: number;
  /** Bc, integer in [1, 4096]; default 128. */
  blockK?: number;
  /** Default 'none'. */
  causal?: Causal;
  /** Thread blocks resident on one SM at once, integer in [1, 32]; default 1. */
  blocksPerSm?: number;
}

/** Thread blocks in launch order, one entry per block in each array. */
export interface ThreadBlocks {
  batch: Int32Array;
  head: Int32Array;
  /** Query blocks [qBlockBegin, qBlockEnd) the block computes (FA1: all of its head's). */
  qBlockBegin: Int32Array;
  qBlockEnd: Int32Array;
  /** K/V tiles computed; tiles the causal mask hides entirely are skipped. */
  kvTiles: Int32Array;
  /** SM the greedy block scheduler placed the block on. */
  sm: Int32Array;
  /** Launch index / (smCount * blocksPerSm). */
  wave: Int32Array;
  /** Start and end time, in units of one K/V tile on one resident slot. */
  startTiles: Float64Array;
  endTiles: Float64Array;
}

export interface WaveInfo {
  /** Launch index of the wave's first block. */
  firstBlock: number;
  blockCount: number;
  /** blockCount / (smCount * blocksPerSm), in (0, 1]. */
  occupancy: number;
  startTiles: number;
  endTiles: number;
}

export interface WorkPartitionResult {
  partition: 'fa1' | 'fa2';
  gpu: string;
  smCount: number;
  blocksPerSm: number;
  /** ceil(L / Br) and ceil(S / Bc) per (batch, head). */
  numQBlocks: number;
  numKBlocks: number;
  totalTiles: number;
  /** End of the last block, in tiles. */
  makespanTiles: number;
  /** Busy slot-time / (slots * makespan), in (0, 1]. */
  smUtilization: number;
  /** Per SM: summed tile time of the blocks it ran. */
  smBusyTiles: Float64Array;
  blocks: ThreadBlocks;
  waves: WaveInfo[];
}

export type Fa3ScheduleName = 'sequential' | 'intra_overlap' | 'pingpong' | 'pingpong_intra_overlap';
export type Fa3UnitName = 'tma' | 'tensor_cores' | 'special_functions';
export type Fa3OpName = 'load_k' | 'load_v' | 'gemm0' | 'softmax' | 'gemm1';

export interface Fa3ConfigInput {
  /** Operand precision: fp16 (2 bytes, FP16 tensor rate) or fp8 (1 byte, FP8 tensor rate); default fp16. */
  precision?: 'fp16' | 'fp8';
  /** d, integer in [8, 512]; default 128. */
  headDim?: number;
  /** Query rows per consumer warpgroup, integer in [1, 512]; default 64. */
  rowsPerWarpgroup?: number;
  /** Bc, keys per K/V block, integer in [1, 1024]; default 128. */
  blockK?: number;
  /** Consumer warpgroups W, integer in [2, 4] for fa3Pipeline; default 2. */
  consumerWarpgroups?: number;
  /** Circular-buffer stages for K and for V, integer in [1, 8]; default 2. */
  stages?: number;
  /** Queries per head (sets how many CTAs share each K/V tile through L2), integer in [1, 2^24]; default 8448 (FA3 Table 2). */
  qLen?: number;
}

export interface Fa3PipelineInput extends Fa3ConfigInput {
  /** GPU preset id, e.g. 'h100-sxm'. */
  gpu: string;
  /** Key blocks simulated, integer in [1, 64]; default 8. */
  iterations?: number;
}

/** Durations, in seconds, of one K or V load and of one consumer warpgroup's ops for one key block. */
export interface Fa3OpTimes {
  loadKS: number;
  loadVS: number;
  gemm0S: number;
  softmaxS: number;
  gemm1S: number;
}

export interface Fa3Segment {
  unit: Fa3UnitName;
  op: Fa3OpName;
  /** -1 for the producer warpgroup, else the consumer index. */
  warpgroup: number;
  /** Key block j. */
  iteration: number;
  startS: number;
  endS: number;
  /** Fraction of the unit's rate: 1, or 1/W when the consumers run in lockstep (no ping-pong). */
  unitShare: number;
}

export interface Fa3TimelineResult {
  name: Fa3ScheduleName;
  intraWarpgroupOverlap: boolean;
  pingpong: boolean;
  /** End of the last GEMM1, seconds. */
  totalS: number;
  /** Simulated time per key block over the second half of the run, seconds. */
  steadyIterationS: number;
  /** Closed-form steady-state time per key block, seconds. */
  closedFormIterationS: number;
  segments: Fa3Segment[];
}

export interface Fa3ScheduleResult extends Fa3TimelineResult {
  /** Sequential totalS / this totalS. */
  speedup: number;
  /** Sequential closed form / this closed form. */
  steadySpeedup: number;
}

export interface Fa3PipelineResult {
  gpu: string;
  /** One SM's rates: tensor FLOP/s, exponentials/s, load bytes/s (HBM share x kvReaders), kvReaders,
   *  and the SM clock (Hz) the exponential rate assumes: the one the tensor-core peak is quoted at. */
  rates: { tensorFlopsPerS: number; expPerS: number; loadBytesPerS: number; kvReaders: number; clockHz: number };
  opTimes: Fa3OpTimes;
  /** sequential, intra_overlap, pingpong, pingpong_intra_overlap, in that order. */
  schedules: Fa3ScheduleResult[];
}

export interface Fa3TimelineInput {
  /** Each a number of seconds in [0, 1e6]. */
  opTimes: Fa3OpTimes;
  /** Default false. */
  intraWarpgroupOverlap?: boolean;
  /** Default false; needs consumerWarpgroups >= 2. */
  pingpong?: boolean;
  /** Integer in [1, 4]; default 2. */
  consumerWarpgroups?: number;
  /** Integer in [1, 8]; default 2. */
  stages?: number;
  /** Integer in [1, 64]; default 8. */
  iterations?: number;
}

export type NumericsMethodName =
  | 'fp32_standard'
  | 'fp16_standard'
  | 'fp16_flash'
  | 'fp8_standard_per_tensor'
  | 'fp8_flash_per_tensor'
  | 'fp8_flash_per_block'
  | 'fp8_flash_per_tensor_hadamard'
  | 'fp8_flash_per_block_hadamard';

export interface Fp8ExperimentInput {
  /** N queries and keys, integer in [1, 2048]; default 512. */
  seqLen?: number;
  /** d, a power of two in [1, 256]; default 128. */
  headDim?: number;
  /** First query rows compared, integer in [1, seqLen]; default min(seqLen, 64). seqLen * evalRows * headDim <= 2^23 and seqLen * evalRows <= 2^20. */
  evalRows?: number;
  /** Rows per quantisation block and per K/V tile, integer in [1, seqLen]; default min(seqLen, 64). */
  blockRows?: number;
  /** Integer in [0, 2^32 - 1]; default 0. */
  seed?: number;
  /** Chance of an outlier term per entry, in [0, 1]; default 0.001 (FA3 §4.3). */
  outlierProbability?: number;
  /** Standard deviation of the outlier term, in [1e-6, 1e6]; default 10 (FA3 §4.3). */
  outlierStddev?: number;
}

export interface Fp8ExperimentRow {
  method: NumericsMethodName;
  /** RMSE of the outputs against attention in double. */
  rmse: number;
  /** FA3 Table 3's column for this configuration, when it has one (a published figure, not computed). */
  paperLabel?: string;
  paperRmse?: number;
}

export interface GpuApi {
  /** FA1 or FA2 thread blocks of a launch on a GPU preset, their work, SM placement, waves and utilisation. At most 65536 blocks, and at most 2^31 - 1 K/V tiles per block (an FA1 block computes ceil(qLen / blockQ) x ceil(kvLen / blockK)). */
  gpuWorkPartition(input: WorkPartitionInput): WorkPartitionResult;
  /** The four FA3 schedules (sequential, intra overlap, ping-pong, both) on one SM of a preset, with speedups. */
  fa3Pipeline(input: Fa3PipelineInput): Fa3PipelineResult;
  /** One FA3 schedule from explicit op durations (e.g. FA3's own H100 numbers). */
  fa3Timeline(input: Fa3TimelineInput): Fa3TimelineResult;
  /** FA3's FP16/FP8 error experiment at browser size: RMSE per method, with FA3 Table 3's values where published. */
  fp8Experiment(input: Fp8ExperimentInput): { results: Fp8ExperimentRow[]; paperSource: string };
  /** x rounded to IEEE binary16 (nearest, ties to even; overflow to ±Infinity). */
  roundToFp16(x: number): number;
  /** x rounded to OCP FP8 e4m3 (nearest, ties to even; saturating at ±448). */
  roundToE4m3(x: number): number;
}
