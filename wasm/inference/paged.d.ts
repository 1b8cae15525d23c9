// Hand-written declaration of the KV-cache memory API bound in wasm/inference/bind_paged.cpp: a seeded
// serving workload replayed against PagedAttention's block allocator and against contiguous
// reservations (Kwon et al. 2023, arXiv:2309.06180, §3-4), stepping through either replay, and
// the summary of both on the same requests, and a stepper class over both replays for scrubbing.
// Memory figures are token slots.
// Every function throws a JavaScript Error naming the bad argument and its allowed range; the
// module keeps working afterwards.

/** The seeded request trace (defaults: pagedWorkloadDefaults()). */
export interface ServingWorkloadInput {
  /** Integer in [0, 2^32 - 1]; default 2023. */
  seed?: number;
  /** Integer in [1, 256]; default 64. */
  numRequests?: number;
  /** Mean exponential gap between arrivals, in decoding steps, in [0.001, 1e6]; default 2. */
  meanInterarrivalSteps?: number;
  /** Integer in [1, maxPromptTokens]; default 8. */
  minPromptTokens?: number;
  /** Integer in [1, 4096]; default 96. Prompts are uniform in [min, max]. */
  maxPromptTokens?: number;
  /** Mean of the exponential output length before clipping to [1, maxOutputTokens], in [0.001, 1e6]; default 48. */
  meanOutputTokens?: number;
  /** Integer in [1, 4096]; default 256. Also what a 'max_len' reservation reserves beyond the prompt. */
  maxOutputTokens?: number;
  /** Share of requests asking for n > 1 parallel samples, in [0, 1]; default 0.25. */
  parallelFraction?: number;
  /** n is uniform in [2, maxSamples] for those; integer in [2, 8]; default 4. */
  maxSamples?: number;
}

/** The memory both allocators get: numBlocks x blockSize token slots. */
export interface ServingMemoryInput extends ServingWorkloadInput {
  /** Pool size in blocks, integer in [1, 1024]; default 128. */
  numBlocks?: number;
  /** Token slots per block, integer in [1, 256]; default 16 (vLLM's default). */
  blockSize?: number;
  /** KV bytes of one token, prices a swap; in [1, 1e9]; default 819200 (OPT-13B FP16, paper §3). */
  kvBytesPerToken?: number;
}

export interface ServingReplayInput extends ServingMemoryInput {
  /** 'paged': block tables; 'contiguous': one reserved range per sample. */
  allocator: 'paged' | 'contiguous';
  /** Contiguous only: prompt + maxOutputTokens ('max_len', default), next power of two of the final length ('pow2'), or exactly it ('oracle'). */
  reservation?: 'max_len' | 'pow2' | 'oracle';
}

export interface ServingStateInput extends ServingReplayInput {
  /** Events applied, integer in [0, eventCount]; default all of them. */
  event?: number;
}

export interface ServingRequest {
  id: number;
  arrivalStep: number;
  promptTokens: number;
  /** Generated tokens of each parallel sample (n = length). */
  outputTokens: Int32Array;
}

export type ServingEventKind = 'arrive' | 'admit' | 'fork' | 'append' | 'finish' | 'preempt' | 'reject';

/** Allocator events in order, one entry per event in each array; -1 where a field does not apply. */
export interface ServingEvents {
  kind: ServingEventKind[];
  /** Decoding step the event happened in. */
  step: Int32Array;
  request: Int32Array;
  /** 0-based sample of the request; an admit's prompt sequence is its first unfinished sample. */
  sample: Int32Array;
  /** Paged sequence id or contiguous reservation id (fork: the child). */
  sequence: Int32Array;
  /** Fork: the parent sequence. */
  parent: Int32Array;
  /** admit: prompt tokens; append: tokens written (1, or a readmitted sample's recomputed tokens); preempt: tokens to recompute. */
  tokens: Int32Array;
  /** Paged appends: what the (last) token did to the pool; null otherwise. */
  appendKind: ('in_place' | 'new_block' | 'copy_on_write' | null)[];
  /** Paged appends: block written. */
  physicalBlock: Int32Array;
  /** Paged appends: copy-on-write source block (= physicalBlock without a copy). */
  copiedFrom: Int32Array;
  /** Contiguous admits: the slots reserved for the sample (its range's length). */
  reservedSlots: Int32Array;
}

/** End-of-step memory and queue state, one entry per step in each array. */
export interface ServingTimeline {
  /** Slots holding live KV (a shared token once). */
  storedTokens: Int32Array;
  /** Paged: used blocks x blockSize; contiguous: reserved slots. */
  allocatedSlots: Int32Array;
  /** Contiguous: reserved for tokens still to come; paged: 0. */
  reservedFutureSlots: Int32Array;
  /** Paged: unfilled last-block slots; contiguous: reserved beyond the final length (never used). */
  internalFragmentationSlots: Int32Array;
  /** Contiguous: free slots in holes too small for the queue head; paged: 0. */
  externalFragmentationSlots: Int32Array;
  freeSlots: Int32Array;
  runningRequests: Int32Array;
  runningSequences: Int32Array;
  queuedRequests: Int32Array;
  admittedTotal: Int32Array;
  rejectedTotal: Int32Array;
  finishedTotal: Int32Array;
  preemptedTotal: Int32Array;
}

export interface ServingSummary {
  allocator: 'paged' | 'contiguous';
  /** Decoding steps until the last request finished. */
  steps: number;
  requests: number;
  admitted: number;
  rejected: number;
  finished: number;
  /** Requests evicted to free blocks (paged, vLLM's recompute policy). */
  preemptions: number;
  recomputeTokens: number;
  /** Bytes swapping the preempted blocks out would have moved instead (one direction). */
  swapBytesAlternative: number;
  /** Decoded tokens, each counted once. */
  generatedTokens: number;
  meanRunningRequests: number;
  meanRunningSequences: number;
  meanQueuedRequests: number;
  peakRunningRequests: number;
  /** Arrival to first admission, over admitted requests. */
  meanQueueDelaySteps: number;
  /** Mean over steps of live KV / pool capacity. */
  meanStoredFraction: number;
  /** Mean over steps of the waste classes as fractions of capacity (paper Figure 3's categories). */
  meanReservedFutureFraction: number;
  meanInternalFragmentationFraction: number;
  meanExternalFragmentationFraction: number;
  /** Mean over steps with memory taken of live KV / memory taken (the paper's Figure 2 measure). */
  meanUtilisation: number;
}

export interface ServingReplay {
  allocator: 'paged' | 'contiguous';
  numBlocks: number;
  blockSize: number;
  capacitySlots: number;
  requests: ServingRequest[];
  events: ServingEvents;
  timeline: ServingTimeline;
  summary: ServingSummary;
}

export interface PagedSequenceState {
  id: number;
  request: number;
  sample: number;
  /** Tokens held. */
  length: number;
  /** Logical block j -> physical block. */
  blockTable: Int32Array;
}

export interface ContiguousReservationState {
  id: number;
  request: number;
  sample: number;
  /** First slot of the range. */
  offset: number;
  reservedSlots: number;
  usedSlots: number;
  /** Length the sample will reach (hindsight). */
  finalSlots: number;
}

export interface ServingState {
  allocator: 'paged' | 'contiguous';
  /** Events applied. */
  event: number;
  eventCount: number;
  /** Step of the last applied event (0 before any). */
  step: number;
  /** Paged: live sequences by id. */
  sequences?: PagedSequenceState[];
  /** Paged: references to each physical block (0 = free). */
  refcounts?: Int32Array;
  /** Paged: free blocks, the next to be allocated last. */
  freeList?: Int32Array;
  /** Contiguous: reservations by offset. */
  reservations?: ContiguousReservationState[];
  /** Contiguous: free ranges by offset. */
  holes?: { offset: number; slots: number }[];
  /** Paged: {blocksUsed, blocksFree, blocksShared, sequences, logicalTokens, storedTokens, allocatedSlots,
   *  internalFragmentationSlots, utilisation}; contiguous: {capacitySlots, reservedSlots, usedSlots,
   *  reservedFutureSlots, internalFragmentationSlots, freeSlots, largestHoleSlots, utilisation}. */
  stats: Record<string, number>;
}

/**
 * One workload replayed by both allocators (paged, and contiguous with `reservation`), kept in wasm
 * memory so that a figure can ask for the state at any step as often as it scrubs: each query
 * restores the nearest checkpoint and re-applies fewer than the checkpoint interval's events (the core's
 * replay_checkpoints.hpp), never the replay from its start. Call delete() when done.
 * Figure-sized workloads only: numRequests at most 64, numBlocks at most 256, blockSize at most 64,
 * prompt and output lengths at most 1,024 tokens, and at most 50,000 events per replay (beyond that
 * the constructor throws naming config.max_events), so that construction -- two replays, each applied
 * once more to lay down checkpoints -- stays under 1 s (measured about 0.4 s at the caps), and each
 * query re-applies fewer than the checkpoint interval's events (measured under 20 ms at the caps,
 * about 0.2 ms for both allocators on a figure's 12-request workload).
 */
export interface ServingStepper {
  /** Decoding steps of the longer replay; stateAtStep accepts 0 to steps - 1. */
  readonly steps: number;
  /** The whole replay of one allocator, as pagedReplay returns it. */
  replay(allocator: 'paged' | 'contiguous'): ServingReplay;
  /** The allocator's state once every event of steps 0..step is applied (a replay that ended earlier shows its final state). */
  stateAtStep(allocator: 'paged' | 'contiguous', step: number): ServingState;
  delete(): void;
}

export interface PagedApi {
  /** A stepper over both allocators' replays of one workload (see ServingStepper). */
  ServingStepper: { new (input: ServingMemoryInput & { reservation?: 'max_len' | 'pow2' | 'oracle' }): ServingStepper };
  /** Replays the seeded workload with one allocator: every allocator event, the per-step memory timeline and a summary. */
  pagedReplay(input: ServingReplayInput): ServingReplay;
  /** The allocator's state after the first `event` events of the same replay (block tables and pool, or the arena's ranges). */
  pagedStateAt(input: ServingStateInput): ServingState;
  /** Paged against the three contiguous reservation policies on the same requests and memory. */
  pagedSummary(input: ServingMemoryInput): {
    paged: ServingSummary;
    contiguousMaxLen: ServingSummary;
    contiguousPow2: ServingSummary;
    contiguousOracle: ServingSummary;
  };
  /** The default workload and memory parameters. */
  pagedWorkloadDefaults(): Required<ServingMemoryInput>;
}
