// Hand-written declaration of the decode-time attention API bound in wasm/inference/bind_decode.cpp: paged
// decode over a block pool, split-KV (Flash-Decoding) partial states and their merge, chunked
// prefill, sliding-window masks and receptive fields, the ring-attention schedule and timing
// model, and speculative decoding's acceptance model. Every function throws a JavaScript Error
// naming the bad argument and its allowed range; the module keeps working afterwards.

/** PyTorch is_causal (top_left) or causal_lower_right (bottom_right). */
export type DecodeCausal = 'none' | 'top_left' | 'bottom_right';
type DecodeShape = [number, number, number, number];

/** Q, K, V in SDPA's layout [batch, heads, seq, dim], row-major. */
export interface DecodeQkvArgs {
  q: Float32Array | number[];
  qShape: DecodeShape;
  k: Float32Array | number[];
  kShape: DecodeShape;
  v: Float32Array | number[];
  vShape: DecodeShape;
  /** Any finite number; default 1/sqrt(head_dim). */
  scale?: number;
}

export interface PagedSequenceArgs {
  /** Logical block -> physical block id (< number of pool blocks). */
  blockTable: number[];
  /** Tokens in the cache, >= 1; the table must cover them. */
  contextLen: number;
  /** Optional 0/1 per token (1 = may attend), e.g. a sliding window masking leading keys. */
  keyAllowed?: number[];
}

export interface PagedDecodeStep {
  logicalBlock: number;
  physicalBlock: number;
  /** Logical tokens [tokenBegin, tokenEnd) read from this block (the last block may be partial). */
  tokenBegin: number;
  tokenEnd: number;
  /** Scaled scores of the block's tokens; masked = -Infinity. */
  scores: Float32Array;
  /** Running maximum after the block (-Infinity while every key so far is masked). */
  m: number;
  /** Running sum of exp(score - m) after the block. */
  l: number;
  /** exp(m_old - m_new) applied to l and acc in this block (0 when nothing was accumulated). */
  rescale: number;
  /** Unnormalised accumulator (value_dim entries) after the block. */
  acc: Float32Array;
}

export interface PagedDecodeResult {
  /** [numSeqs, qHeads, 1, valueDim]. */
  output: Float32Array;
  outputShape: DecodeShape;
  /** [numSeqs, qHeads]; -Infinity where every key is masked. */
  lse: Float32Array;
  /** The block walk of (traceSeq, traceHead). */
  steps: PagedDecodeStep[];
}

export interface SplitKvPartition {
  /** Keys [keyBegin, keyEnd) of this partition (empty when numPartitions > kv length). */
  keyBegin: number;
  keyEnd: number;
  /** Per query row [B, Hq, L]: the partition's max score (-Infinity if it saw no key). */
  m: Float32Array;
  /** Per query row: sum of exp(score - m). */
  l: Float32Array;
  /** Per query row x valueDim: the unnormalised sum of exp(score - m) v. */
  acc: Float32Array;
  /** acc / l (zeros for an empty partition). */
  output: Float32Array;
  /** m + log(l) (-Infinity for an empty partition). */
  lse: Float32Array;
}

export interface SplitKvResult {
  /** [B, Hq, L, Dv], merged in mergeOrder then normalised. */
  output: Float32Array;
  outputShape: DecodeShape;
  lse: Float32Array;
  partitions: SplitKvPartition[];
  /** The running (m, l) per row after each merge; `merged` is the partition folded in. */
  merges: { merged: number; m: Float32Array; l: Float32Array }[];
}

export interface RingStepInfo {
  step: number;
  device: number;
  qShard: number;
  /** The K/V shard resident on the device in this step: (device - step) mod P. */
  kvShard: number;
  /** false: every (query, key) pair of the two shards is causally masked (the shard is skipped). */
  computed: boolean;
  /** Visible (query, key) pairs per (batch, head) computed this step. */
  attendedPairs: number;
  /** false in the last step. */
  sends: boolean;
  sendTo: number;
  recvFrom: number;
  /** The shard arriving for the next step. */
  receivedKvShard: number;
}

export interface RingStepTimingInfo {
  /** Slowest device's compute this step, seconds. */
  computeTimeS: number;
  /** One K/V shard over the link, seconds (0 in the last step). */
  sendTimeS: number;
  /** max(computeTimeS, sendTimeS): communication overlaps compute. */
  stepTimeS: number;
  /** computeTimeS >= sendTimeS. */
  commHidden: boolean;
}

export interface RingTimingResult {
  /** FLOP/s of the GPU preset at the precision. */
  peakFlops: number;
  /** Bytes of the largest K/V shard (all batches and KV heads). */
  kvShardBytes: number;
  /** Attention FLOPs of the whole problem (2 per multiply-add of QK^T and PV). */
  flopsTotal: number;
  steps: RingStepTimingInfo[];
  ringTimeS: number;
  /** Sum of the steps' compute: the time with free communication. */
  ringComputeTimeS: number;
  /** Every step hides its send under compute. */
  commHidden: boolean;
  /** Unmasked overlap condition: shard length >= F Hkv e / (2 Hq B_link); F/B for Hq = Hkv, e = 2 (Liu et al. 2023). */
  minShardTokensToHide: number;
  /** K/V bytes a device holds: the resident and the arriving shard. */
  ringKvBytesPerDevice: number;
  /** Naive alternative: (P - 1) shards received before computing, seconds. */
  allgatherCommTimeS: number;
  allgatherComputeTimeS: number;
  allgatherTimeS: number;
  /** The whole K/V on every device, bytes. */
  allgatherKvBytesPerDevice: number;
}

/** One (step, device) of a traced ring: the query rows [qBegin, qEnd) of the device, the K/V shard in residence, and per row the shard's partial (m, l) and the merged state after the step. */
export interface RingTraceStep {
  step: number;
  device: number;
  kvShard: number;
  /** false: the shard is causally invisible to every row of the device and was skipped. */
  computed: boolean;
  qBegin: number;
  qEnd: number;
  /** Keys [kvBegin, kvEnd) of the resident shard. */
  kvBegin: number;
  kvEnd: number;
  /** Per row: the shard's max score (-Infinity when it shows the row no key) and sum of exp(score - m). */
  blockM: Float32Array;
  blockL: Float32Array;
  /** Per row: the running (m, l) after merging this shard (online_softmax::merge). */
  m: Float32Array;
  l: Float32Array;
  /** Per row x valueDim: the running output acc / l after the step (zeros while l is 0). */
  output: Float32Array;
}

export interface RingTraceResult {
  /** [1, 1, qLen, valueDim]: the ring's merged output. */
  output: Float32Array;
  outputShape: DecodeShape;
  lse: Float32Array;
  /** P x P entries, step-major (all devices of step 0, then step 1, ...). */
  steps: RingTraceStep[];
  /** max |ring (float) - dense sdpa (double)| over the output. */
  maxAbsError: number;
  /** The same for a single-device float sdpa: the rounding the ring's error is compared with. */
  denseFloatMaxAbsError: number;
}

export interface DecodeApi {
  /** Paged-attention decode (vLLM paged_attention_v1): one query per (sequence, head) over K/V gathered block by block through a block table with online softmax. Pools are [numBlocks, kvHeads, blockSize, dim]; q is [numSeqs, qHeads, 1, headDim]. At most 4096 blocks. */
  pagedDecode(args: {
    q: Float32Array | number[]; qShape: DecodeShape;
    keyPool: Float32Array | number[]; keyPoolShape: DecodeShape;
    valuePool: Float32Array | number[]; valuePoolShape: DecodeShape;
    sequences: PagedSequenceArgs[]; scale?: number; traceSeq?: number; traceHead?: number;
  }): PagedDecodeResult;
  /** Split-KV / Flash-Decoding: numPartitions (1..1024, default 4) key partitions computed independently, their (m, l, acc) and (output, lse), and the exact merge in mergeOrder (a permutation; default 0, 1, ...). */
  splitKvAttention(args: DecodeQkvArgs & { numPartitions?: number; mergeOrder?: number[]; causal?: DecodeCausal }): SplitKvResult;
  /** Causal prefill of a prompt (q, k, v of equal length) in chunks of chunkLengths (each >= 1, summing to the length; default one chunk); equals one-shot causal attention. blockK in [1, 4096], default 64. keyRowsRead = sum of the rows' causal loop bounds. */
  chunkedPrefill(args: DecodeQkvArgs & { chunkLengths?: number[]; blockK?: number }): {
    output: Float32Array; outputShape: DecodeShape; lse: Float32Array; keyRowsRead: number;
  };
  /** Sliding-window mask, seqLen x seqLen row-major (1 = query i may attend key j, iff i - window < j <= i). seqLen, window in [1, 1024]. */
  slidingWindowMask(args: { seqLen: number; window: number }): Uint8Array;
  /** Receptive field after `layers` sliding-window layers: reachTokens = layers (window - 1) from the mask, paperReachTokens = layers x window (Mistral 7B wording). */
  slidingWindowReceptiveField(args: { layers: number; window: number }): {
    layers: number; window: number; reachTokens: number; paperReachTokens: number;
  };
  /** Positions the token at `source` (default 0) influences after each layer: one Uint8Array of seqLen flags per layer. layers in [1, 256], seqLen in [1, 1024], layers x seqLen^2 <= 2^22. */
  slidingWindowInfluence(args: { layers: number; window: number; seqLen: number; source?: number }): Uint8Array[];
  /** Ring-attention schedule for `devices` (1..64): shard ranges [begin, end) and, step-major, what every device computes, sends and receives. kvLen defaults to qLen. */
  ringAttentionSchedule(args: { devices: number; qLen: number; kvLen?: number; causal?: DecodeCausal }): {
    qShards: [number, number][]; kvShards: [number, number][]; steps: RingStepInfo[];
  };
  /** Ring-attention compute-vs-communication timing on a GPU preset (default 'h100-sxm', precision 'fp16') with a link of linkBytesPerS, against the naive all-gather. seqLen in [devices, 2^24]; the visible pairs are counted in closed form, so any size is instantaneous. */
  ringAttentionTiming(args: {
    devices: number; seqLen: number; linkBytesPerS: number; batch?: number; qHeads?: number; kvHeads?: number;
    headDim?: number; valueDim?: number; causal?: DecodeCausal; elementBytes?: number; gpu?: string;
    precision?: 'fp32' | 'tf32' | 'fp16' | 'bf16' | 'fp8';
  }): RingTimingResult;
  /** Ring attention run in float on one seeded random head (Q from seed, K from seed + 1, V from seed + 2, randomNormal), its merge traced at every (step, device), and its error against dense sdpa in double. devices in [1, 16] (each shard >= 1 position), qLen and kvLen (default qLen) in [1, 1024], headDim in [1, 256] (default 16), valueDim (default headDim); qLen x kvLen x (headDim + valueDim) <= 2^23 and devices x qLen x (valueDim + 4) <= 2^18, which keep a call well under a second. */
  ringAttentionTrace(args: {
    devices: number; qLen: number; kvLen?: number; headDim?: number; valueDim?: number; causal?: DecodeCausal; seed?: number;
  }): RingTraceResult;
  /** Speculative decoding (Leviathan et al. 2023): expected tokens per target run (1 - alpha^(gamma+1)) / (1 - alpha), walltime improvement divided by (gamma costRatio + 1), and the best gamma in [0, maxGamma] (default 32). alpha in [0, 1], gamma in [0, 1024], costRatio >= 0 (default 0). */
  speculativeDecoding(args: { alpha: number; gamma: number; costRatio?: number; maxGamma?: number }): {
    expectedTokens: number; walltimeImprovement: number; bestGamma: number;
  };
  /** Monte-Carlo of the acceptance process: `runs` (1..1e6, default 1e4) target runs, seeded; runs x (gamma + 1) <= 2^25 draws. histogram[k] = runs that produced k + 1 tokens. */
  simulateSpeculativeDecoding(args: { alpha: number; gamma: number; runs?: number; seed?: number }): {
    meanTokens: number; stderrTokens: number; histogram: number[];
  };
}
