// The figure's data, all from the core: the ring's step times on a GPU preset for one attention
// layer of a model preset (ringAttentionTiming), and the exact merge of the devices' partial
// softmax states on a small seeded stand-in problem (ringAttentionTrace), with its error against
// dense attention.
import type { AttnInference, RingTimingResult, RingTraceResult } from '../../../wasm/load';
import { boundedCache } from '../shared/boundedCache';
import { fmtInt } from '../shared/format';

export const GPU = 'h100-sxm';
export const GPU_NAME = 'H100 SXM';
export const PRECISION = 'bf16';
export const PRECISION_NAME = 'BF16';
// Part 4's ring table and its worked example use the same model, precision and default ring
// (scripts/post-data/part4.mjs), so the figure opens on the numbers the text quotes.
export const MODEL = 'llama3-70b';
/** The stand-in problem whose merge is computed exactly: this many tokens per device, head dim 16. */
export const TRACE_TOKENS_PER_DEVICE = 6;
export const TRACE_HEAD_DIM = 16;
export const TRACE_SEED = 1;

export const SEQ_LENS = [8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576] as const;
export const DEVICES = { min: 2, max: 8 } as const;
/** Link bandwidth choices in GB/s (10^9 bytes/s, one direction): the reader's assumption, not a sourced figure. */
export const LINKS_GBS = [10, 25, 50, 100, 200, 450] as const;

export interface Config {
  seqLen: number;
  devices: number;
  linkGBs: number;
}
export const DEFAULT_CONFIG: Config = { seqLen: 131072, devices: 4, linkGBs: 50 };

/** The preset's heads and its name, as the core has them. */
export interface Head { name: string; qHeads: number; kvHeads: number; headDim: number }

export interface StepTimes {
  start: number;   // seconds from the start of the rotation
  compute: number; // every device's attention on the resident shard (no mask: all equal)
  send: number;    // forwarding that shard to the next device (0 in the last step)
  end: number;     // start + max(compute, send)
}

export interface Figure {
  config: Config;
  head: Head;
  timing: RingTimingResult;
  steps: StepTimes[];
  /** Clock stops: 0 and the end of every ring step. */
  stops: number[];
  /** Tokens per device shard in the timed problem (the largest shard). */
  shardTokens: number;
  trace: RingTraceResult;
  traceLen: number;
}

function checkConfig(c: Config) {
  if (!SEQ_LENS.includes(c.seqLen as (typeof SEQ_LENS)[number])) {
    throw new Error(`sequence length must be one of ${SEQ_LENS.join(', ')}, got ${c.seqLen}`);
  }
  if (!Number.isInteger(c.devices) || c.devices < DEVICES.min || c.devices > DEVICES.max) {
    throw new Error(`devices must be a whole number from ${DEVICES.min} to ${DEVICES.max}, got ${c.devices}`);
  }
  if (!LINKS_GBS.includes(c.linkGBs as (typeof LINKS_GBS)[number])) {
    throw new Error(`link bandwidth must be one of ${LINKS_GBS.join(', ')} GB/s, got ${c.linkGBs}`);
  }
}

export function modelHead(core: AttnInference): Head {
  const kv = core.kvCacheBytes({ model: MODEL, contextTokens: 1 });
  return { name: core.modelPreset(MODEL).name, qHeads: kv.qHeads, kvHeads: kv.kvHeads, headDim: kv.headDim };
}

// The stand-in's merge depends on the device count alone: one trace per count, kept.
const traces = boundedCache<RingTraceResult>(DEVICES.max);

export function buildFigure(core: AttnInference, head: Head, config: Config): Figure {
  checkConfig(config);
  const { seqLen, devices, linkGBs } = config;
  const timing = core.ringAttentionTiming({
    devices, seqLen, linkBytesPerS: linkGBs * 1e9, qHeads: head.qHeads, kvHeads: head.kvHeads, headDim: head.headDim,
    gpu: GPU, precision: PRECISION, elementBytes: 2,
  });
  let t = 0;
  const steps = timing.steps.map((s) => {
    const start = t;
    t += s.stepTimeS;
    return { start, compute: s.computeTimeS, send: s.sendTimeS, end: t };
  });
  const traceLen = TRACE_TOKENS_PER_DEVICE * devices;
  const trace = traces(String(devices), () => core.ringAttentionTrace({ devices, qLen: traceLen, headDim: TRACE_HEAD_DIM, seed: TRACE_SEED }));
  return {
    config, head, timing, steps, stops: [0, ...steps.map((s) => s.end)], shardTokens: Math.ceil(seqLen / devices), trace, traceLen,
  };
}

/** The trace entry of device d at ring step t (step-major). */
export const traceAt = (f: Figure, t: number, d: number) => f.trace.steps[t * f.config.devices + d];

export const stepLabels = (devices: number) => ['start', ...Array.from({ length: devices }, (_, t) => `step ${t + 1}`)];

export const fmtGBs = (g: number) => `${g} GB/s`;
export const fmtTokens = (n: number) => (n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : fmtInt(n));
