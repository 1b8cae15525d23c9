// What the figure draws, derived from one fa3Pipeline call (the core's timing model of
// FlashAttention-3's main loop on one SM, FA3 §3.1-3.2): the chosen schedule's segments laid out
// in lanes (the producer warpgroup, then each consumer warpgroup), the moments at which anything
// starts or ends (the figure's steps), and how busy each hardware unit is.
import type { AttnFlash, Fa3OpName, Fa3PipelineResult, Fa3ScheduleName, Fa3ScheduleResult, Fa3Segment, Fa3UnitName } from '../../../wasm/load';
import { boundedCache } from '../shared/boundedCache';

export const SCHEDULES: { name: Fa3ScheduleName; label: string; short: string }[] = [
  { name: 'sequential', label: 'Synchronous (FA2-style)', short: 'Synchronous' },
  { name: 'intra_overlap', label: 'Intra-warpgroup overlap', short: 'Overlap' },
  { name: 'pingpong', label: 'Ping-pong', short: 'Ping-pong' },
  { name: 'pingpong_intra_overlap', label: 'Ping-pong + overlap (FA3)', short: 'FA3' },
];

// FlashAttention-3 targets Hopper: TMA and WGMMA exist only there. (The H200's datasheet gives no
// SM count, which the per-SM model needs, so the core rejects it rather than guess.)
export const GPUS = [
  { id: 'h100-sxm', label: 'H100 SXM' },
  { id: 'h100-pcie', label: 'H100 PCIe' },
];
export const HEAD_DIMS = [64, 128, 256];
export const PRECISIONS = ['fp16', 'fp8'] as const;

export const OP_LABELS: Record<Fa3OpName, string> = {
  load_k: 'load K', load_v: 'load V', gemm0: 'GEMM0 S = QKᵀ', softmax: 'softmax', gemm1: 'GEMM1 O += PV',
};
export const UNIT_LABELS: Record<Fa3UnitName, string> = {
  tma: 'TMA (copy engine)', tensor_cores: 'tensor cores', special_functions: 'special-function units',
};

export interface Config {
  gpu: string;
  precision: (typeof PRECISIONS)[number];
  headDim: number;
  consumers: number;
  iterations: number;
  schedule: Fa3ScheduleName;
}

export const DEFAULT_CONFIG: Config = {
  gpu: 'h100-sxm', precision: 'fp16', headDim: 128, consumers: 2, iterations: 4, schedule: 'pingpong_intra_overlap',
};

export interface Figure {
  config: Config;
  pipeline: Fa3PipelineResult;
  shown: Fa3ScheduleResult;
  baseline: Fa3ScheduleResult;  // the synchronous schedule, the speed-up's reference
  lanes: string[];              // 'producer', 'consumer 1', ...
  // Every start and end time of the shown schedule, ascending, from 0 to its total.
  events: number[];
  // Busy fraction of each unit over the shown schedule's total time (a shared unit counts its share).
  busy: Record<Fa3UnitName, number>;
}

export const laneOf = (s: Fa3Segment) => s.warpgroup + 1;  // producer (-1) is lane 0

// The core's pipelines and the figures built from them, by configuration: one fa3Pipeline call
// gives every schedule, so switching schedules, and going back to a GPU or head dim already seen,
// costs no call to the core.
const pipelines = boundedCache<Fa3PipelineResult>(32);
const built = boundedCache<Figure>(64);

export const buildFigure = (core: AttnFlash, config: Config): Figure =>
  built(JSON.stringify([config.gpu, config.precision, config.headDim, config.consumers, config.iterations, config.schedule]), () => computeFigure(core, config));

function computeFigure(core: AttnFlash, config: Config): Figure {
  const pipeline = pipelines(JSON.stringify([config.gpu, config.precision, config.headDim, config.consumers, config.iterations]), () => core.fa3Pipeline({
    gpu: config.gpu, precision: config.precision, headDim: config.headDim,
    consumerWarpgroups: config.consumers, iterations: config.iterations,
  }));
  const shown = pipeline.schedules.find((s) => s.name === config.schedule)!;
  const baseline = pipeline.schedules.find((s) => s.name === 'sequential')!;
  const times = new Set<number>([0]);
  const busy: Record<Fa3UnitName, number> = { tma: 0, tensor_cores: 0, special_functions: 0 };
  for (const s of shown.segments) {
    times.add(s.startS).add(s.endS);
    busy[s.unit] += ((s.endS - s.startS) * s.unitShare) / shown.totalS;
  }
  return {
    config, pipeline, shown, baseline, busy,
    lanes: ['producer', ...Array.from({ length: config.consumers }, (_, i) => `consumer ${i + 1}`)],
    events: [...times].sort((a, b) => a - b),
  };
}

// The segments running at time t (start <= t < end), for the narration.
export const activeAt = (fig: Figure, t: number) => fig.shown.segments.filter((s) => s.startS <= t && t < s.endS);

// Microseconds with a precision that suits the scale of the run.
export const micros = (seconds: number) => `${(seconds * 1e6).toFixed(seconds < 1e-6 ? 3 : 2)} µs`;
export const nanos = (seconds: number) => `${(seconds * 1e9).toFixed(1)} ns`;
