// The figure's data: one seeded serving workload replayed by the core against contiguous
// max-length reservations and against PagedAttention's block pool (Kwon et al. 2023), both through
// one ServingStepper that keeps checkpoints, so the state at any step costs a few re-applied events.
// Everything drawn comes from the replays and the stepper's states; nothing is simulated here.
import type { AttnInference, ServingMemoryInput, ServingReplay, ServingState, ServingStepper } from '../../../wasm/load';

export const REQUESTS = [8, 12, 16, 20] as const;
export const BLOCKS = [24, 32, 48, 64] as const;
export const SEED = { min: 1, max: 999 } as const;

export interface Config {
  seed: number;
  requests: number;
  blocks: number;
}
// Seed 3 with 12 requests on 32 blocks of 16 tokens (a 512-slot pool): about three requests fit
// the contiguous pool at once; the paged pool preempts twice, copies on write four times, and one
// three-sample request is too large for contiguous reservations at all.
export const DEFAULT_CONFIG: Config = { seed: 3, requests: 12, blocks: 32 };

// The workload's fixed shape: short prompts, outputs of mean 32 tokens but up to 128, and three in
// ten requests asking for two or three parallel samples (which share their prompt's blocks).
export const WORKLOAD = {
  blockSize: 16, meanInterarrivalSteps: 3, minPromptTokens: 8, maxPromptTokens: 64,
  meanOutputTokens: 32, maxOutputTokens: 128, parallelFraction: 0.3, maxSamples: 3,
} as const;

export const memoryInput = (c: Config): ServingMemoryInput => ({ ...WORKLOAD, seed: c.seed, numRequests: c.requests, numBlocks: c.blocks });

export interface Figure {
  config: Config;
  stepper: ServingStepper;
  /** Decoding steps of the longer replay (the contiguous one: requests wait for room). */
  steps: number;
  stops: number[];
  /** The scrubber's text for each step. */
  labels: string[];
  paged: ServingReplay;
  contiguous: ServingReplay;
  /** Index of the first event of each step (and the event count at [steps]), per replay. */
  pagedStart: Int32Array;
  contiguousStart: Int32Array;
  /** Most live paged sequences at any step: the table panel keeps that height throughout. */
  maxSequences: number;
  /** Steps where a request arrives that the contiguous pool cannot take then and the paged pool admits. */
  refusedArrivals: number[];
  /** The (first) such request of each of those steps. */
  refusedRequest: Map<number, number>;
}

function stepStarts(replay: ServingReplay, steps: number): Int32Array {
  const starts = new Int32Array(steps + 1);
  const at = replay.events.step;
  let e = 0;
  for (let s = 0; s <= steps; s++) {
    while (e < at.length && at[e] < s) e++;
    starts[s] = e;
  }
  return starts;
}

/** Events [from, to) of `step` in a replay. */
export const eventRange = (starts: Int32Array, step: number): [number, number] => [starts[step], starts[step + 1]];

/** Index into a replay's per-step timeline: a replay that has ended stays at its last step. */
export const timelineIndex = (replay: ServingReplay, step: number) => Math.min(step, replay.summary.steps - 1);

function admittedAt(replay: ServingReplay, starts: Int32Array, step: number, request: number): boolean {
  const [a, b] = eventRange(starts, step);
  for (let i = a; i < b; i++) if (replay.events.kind[i] === 'admit' && replay.events.request[i] === request) return true;
  return false;
}

export function checkConfig(c: Config): void {
  if (!Number.isInteger(c.seed) || c.seed < SEED.min || c.seed > SEED.max) {
    throw new Error(`seed must be a whole number from ${SEED.min} to ${SEED.max}, got ${c.seed}`);
  }
  if (!(REQUESTS as readonly number[]).includes(c.requests)) throw new Error(`requests must be one of ${REQUESTS.join(', ')}, got ${c.requests}`);
  if (!(BLOCKS as readonly number[]).includes(c.blocks)) throw new Error(`blocks must be one of ${BLOCKS.join(', ')}, got ${c.blocks}`);
}

export function buildFigure(core: AttnInference, config: Config): Figure {
  checkConfig(config);
  const stepper = new core.ServingStepper(memoryInput(config));
  const paged = stepper.replay('paged'), contiguous = stepper.replay('contiguous');
  const steps = stepper.steps;
  const pagedStart = stepStarts(paged, steps), contiguousStart = stepStarts(contiguous, steps);
  const refusedRequest = new Map<number, number>();
  for (let s = 0; s < paged.summary.steps; s++) {
    const [a, b] = eventRange(pagedStart, s);
    for (let i = a; i < b; i++) {
      if (paged.events.kind[i] !== 'arrive') continue;
      const r = paged.events.request[i];
      if (admittedAt(paged, pagedStart, s, r) && !admittedAt(contiguous, contiguousStart, s, r)) {
        refusedRequest.set(s, r);
        break;
      }
    }
  }
  return {
    config, stepper, steps, stops: Array.from({ length: steps }, (_, i) => i), labels: Array.from({ length: steps }, (_, i) => `step ${i}`), paged, contiguous, pagedStart, contiguousStart,
    maxSequences: Math.max(1, ...paged.timeline.runningSequences), refusedArrivals: [...refusedRequest.keys()], refusedRequest,
  };
}

export interface StepState {
  step: number;
  paged: ServingState;
  contiguous: ServingState;
}

export const stateAt = (f: Figure, step: number): StepState =>
  ({ step, paged: f.stepper.stateAtStep('paged', step), contiguous: f.stepper.stateAtStep('contiguous', step) });

/** Requests with a live paged sequence, ascending. */
export const liveRequests = (s: ServingState) => [...new Set((s.sequences ?? []).map((q) => q.request))].sort((a, b) => a - b);

/** Tokens held in each physical block: the most any table referencing it has written into it. */
export function blockFill(s: ServingState, blockSize: number): Int32Array {
  const fill = new Int32Array(s.refcounts!.length);
  for (const q of s.sequences!) {
    q.blockTable.forEach((b, j) => { fill[b] = Math.max(fill[b], Math.min(blockSize, q.length - j * blockSize)); });
  }
  return fill;
}

/** The request owning each physical block (the lowest-id sequence referencing it), -1 if free. */
export function blockOwner(s: ServingState): Int32Array {
  const owner = new Int32Array(s.refcounts!.length).fill(-1);
  for (const q of s.sequences!) for (const b of q.blockTable) if (owner[b] < 0) owner[b] = q.request;
  return owner;
}

// Request colours: ten well-separated greens, blues, purples and pinks, so that requests close in
// time differ; red, orange and amber are left to the kinds of waste.
const REQUEST_COLORS = ['#4ade80', '#60a5fa', '#c084fc', '#2dd4bf', '#f472b6', '#a3e635', '#818cf8', '#22d3ee', '#e879f9', '#34d399'];

/** Request r's colour, with `alpha` for the slots it has reserved but not yet written. */
export function requestColor(r: number, alpha = 1): string {
  const hex = REQUEST_COLORS[r % REQUEST_COLORS.length];
  if (alpha === 1) return hex;
  const [red, green, blue] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgba(${red}, ${green}, ${blue}, ${alpha})`;
}
