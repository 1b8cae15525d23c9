// The figure's numbers, all from the flash module's cost model: the GPU preset (capacities and
// bandwidth, each with its source), the roofline prediction of one attention forward for standard
// attention (FlashAttention paper, Algorithm 0: S and P written to HBM and read back) and for
// FlashAttention (Algorithm 1), the N x N footprint and the ridge point.
import type { AttentionPredictionResult, AttnFlash, GpuPresetInfo, SourcedNumber } from '../../../wasm/load';
import { boundedCache } from '../shared/boundedCache';

export const GPUS = [
  { id: 'a100-sxm-80gb', label: 'A100' },
  { id: 'h100-sxm', label: 'H100' },
] as const;
export const SEQ_LENS = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];
export const HEAD_DIMS = [64, 128, 256];
export type Mode = 'standard' | 'flash';

export interface Config {
  gpu: string;
  n: number;
  d: number;
  heads: number;
  mode: Mode;
}

export const DEFAULT_CONFIG: Config = { gpu: 'a100-sxm-80gb', n: 4096, d: 64, heads: 16, mode: 'standard' };

// The clock runs over the standard run in this many equal slices (plus a stop where flash ends):
// both modes share one time axis, so FlashAttention's run visibly ends early.
export const SLICES = 20;
// Dots on the HBM link: standard attention's bytes are drawn as this many dots; flash's bytes use
// the same bytes per dot, so the number of dots is proportional to the bytes moved.
export const STANDARD_DOTS = 150;

export interface Figure {
  config: Config;
  preset: GpuPresetInfo;
  standard: AttentionPredictionResult;
  flash: AttentionPredictionResult;
  /** Bytes of S (or of P) for all heads of the layer: the N x N matrices standard attention stores. */
  scoreBytes: number;
  ridge: number;
  /** Clock stops, seconds. */
  stops: number[];
}

// Figures already built, by configuration: a reader toggling the GPU or the sequence length
// revisits the same ones, and the core's answer for a configuration never changes.
const built = boundedCache<Figure>(64);

export const buildFigure = (core: AttnFlash, config: Config): Figure =>
  built(JSON.stringify([config.gpu, config.n, config.d, config.heads, config.mode]), () => computeFigure(core, config));

function computeFigure(core: AttnFlash, config: Config): Figure {
  const preset = core.gpuPreset(config.gpu);
  const shape = { gpu: config.gpu, batch: 1, heads: config.heads, qLen: config.n, headDim: config.d, precision: 'fp16' as const };
  const standard = core.predictAttention({ ...shape, algorithm: 'standard' });
  const flash = core.predictAttention({ ...shape, algorithm: 'flash' });
  const scoreBytes = core.scoreMatrixFootprint({ seqLen: config.n, heads: config.heads, elementBytes: 2 }).perLayerBytes;
  const ridge = core.ridgePoint({ gpu: config.gpu, precision: 'fp16' });
  const slice = standard.timeS / SLICES;
  const stops = Array.from({ length: SLICES + 1 }, (_, k) => k * slice);
  if (flash.timeS < standard.timeS && !stops.some((s) => Math.abs(s - flash.timeS) < slice * 1e-6)) {
    stops.push(flash.timeS);
    stops.sort((a, b) => a - b);
  }
  return { config, preset, standard, flash, scoreBytes, ridge, stops };
}

export const run = (fig: Figure, mode: Mode = fig.config.mode) => (mode === 'standard' ? fig.standard : fig.flash);

// Where a run is at clock time t: the roofline moves bytes at a constant rate over the predicted
// time (max of the memory and compute terms), so the counters fill linearly and stop at the
// core's totals.
export function progress(fig: Figure, t: number, mode: Mode = fig.config.mode) {
  const r = run(fig, mode);
  const elapsedS = Math.min(Math.max(t, 0), r.timeS);
  const f = r.timeS > 0 ? elapsedS / r.timeS : 1;
  return { elapsedS, fraction: f, read: r.hbmBytesRead * f, written: r.hbmBytesWritten * f, done: t >= r.timeS * (1 - 1e-9) };
}

// Tensor-core duty: the share of the run the roofline's compute term fills.
export const tensorBusy = (r: AttentionPredictionResult) => r.computeTimeS / r.timeS;

export interface Level {
  id: 'registers' | 'sram' | 'l2' | 'hbm' | 'host';
  name: string;
  where: string;
  capacity: SourcedNumber;
  /** Multiplier shown with the capacity (registers and SRAM are per SM). */
  perSm: boolean;
  /** Bandwidth of the link that feeds this level's data towards the SMs. */
  bandwidth: SourcedNumber;
  /** Name of that link, for the bandwidth lanes. */
  link: string;
}

// What the core's GPU presets do not hold, said instead of printing a number without a source.
const absent = (why: string): SourcedNumber => ({ value: null, source: `not in the core’s GPU presets: ${why}` });

// Every capacity and bandwidth comes from the preset, with its source; SRAM bandwidth is the
// core's derived aggregate (sramBytesPerS). Unpublished values arrive as null with the reason.
export function levels(p: GpuPresetInfo): Level[] {
  return [
    { id: 'registers', name: 'Registers', where: 'in each SM, split among its threads', capacity: p.registerFilePerSmBytes, perSm: true,
      bandwidth: absent('no document cited gives a register-file bandwidth'), link: 'registers ↔ cores' },
    { id: 'sram', name: 'SRAM (shared memory / L1)', where: 'in each SM', capacity: p.sramPerSmBytes, perSm: true,
      bandwidth: p.sramBytesPerS, link: 'SRAM ↔ cores, all SMs' },
    { id: 'l2', name: 'L2 cache', where: 'on chip, shared by all SMs', capacity: p.l2Bytes, perSm: false,
      bandwidth: p.l2BytesPerS, link: 'L2 ↔ SMs' },
    { id: 'hbm', name: `HBM (${p.memoryType})`, where: 'off chip, on the package', capacity: p.hbmBytes, perSm: false,
      bandwidth: p.hbmBytesPerS, link: 'HBM ↔ chip' },
    { id: 'host', name: 'Host DRAM', where: 'CPU memory, over PCIe', capacity: absent('host memory belongs to the server, not the GPU'),
      perSm: false, bandwidth: p.hostLinkBytesPerS, link: 'host ↔ GPU (PCIe)' },
  ];
}

// The bandwidth lanes draw dots whose speed is proportional to log10(bandwidth / 1 GB/s): each
// tenfold step in bandwidth adds the same speed, so SRAM, HBM and PCIe stay on one screen.
export const LOG_BASE_BYTES_PER_S = 1e9;
export const PX_PER_S_PER_DECADE = 32;
export const laneSpeed = (bytesPerS: number) => PX_PER_S_PER_DECADE * Math.log10(bytesPerS / LOG_BASE_BYTES_PER_S);

/** The bandwidth gaps the figure calls out, from the core's numbers (null where one side is unpublished). */
export function gaps(p: GpuPresetInfo) {
  const ratio = (a: SourcedNumber, b: SourcedNumber) => (a.value && b.value ? a.value / b.value : null);
  return { sramOverHbm: ratio(p.sramBytesPerS, p.hbmBytesPerS), hbmOverHost: ratio(p.hbmBytesPerS, p.hostLinkBytesPerS) };
}

// Decimal units for vendor GB and TB/s (the datasheets' units); binary for on-chip sizes.
export function fmtDecimal(x: number, unit: string): string {
  const prefixes = ['', 'k', 'M', 'G', 'T', 'P'];
  let v = x, i = 0;
  while (Math.abs(v) >= 1000 && i < prefixes.length - 1) { v /= 1000; i += 1; }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${prefixes[i]}${unit}`;
}

export { fmtSeconds as fmtTime } from '../shared/format';
