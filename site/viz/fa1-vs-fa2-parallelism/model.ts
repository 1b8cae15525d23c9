// The figure's numbers, all from the flash module: gpuWorkPartition lays out the thread blocks of
// one FlashAttention forward launch as FA1 (one block per (batch, head)) and FA2 (one per (batch,
// head, query block)), schedules them on the preset's SMs and reports waves and SM utilisation
// (FlashAttention-2, arXiv:2307.08691, §3.2); predictAttention gives the roofline time of the
// launch with every SM busy.
import type { AttentionPredictionResult, AttnFlash, GpuPresetInfo, WorkPartitionResult } from '../../../wasm/load';
import { boundedCache } from '../shared/boundedCache';

export const GPUS = [
  { id: 'a100-sxm-80gb', label: 'A100' },
  { id: 'h100-sxm', label: 'H100' },
] as const;
export const SEQ_LENS = [1024, 2048, 4096, 8192, 16384];
export const HEADS = [8, 12, 16, 32, 64];
export const HEAD_DIMS = [64, 128];
export const MAX_BATCH = 64;
// The partition's tile: Br = Bc = 128 (the binding's default, FA2's forward block size for d <= 128).
export const BLOCK = 128;

export interface Config {
  gpu: string;
  batch: number;
  heads: number;
  n: number;
  d: number;
  causal: boolean;
}

// The most thread blocks the core lays out in the browser (kMaxWorkBlocks, wasm/common/limits.hpp;
// tests/e2e/fa1-vs-fa2-parallelism.test.mjs checks the core accepts this many and not one more).
// FA2 has the most: one per (batch, head, query block). The controls offer only launches within it.
export const MAX_WORK_BLOCKS = 65536;
const fa2Blocks = (c: Pick<Config, 'batch' | 'heads' | 'n'>) => c.batch * c.heads * Math.ceil(c.n / BLOCK);
/** Whether the core accepts the launch `c` with `change` applied. */
export const withinLimit = (c: Config, change: Partial<Config>) => fa2Blocks({ ...c, ...change }) <= MAX_WORK_BLOCKS;
/** The largest batch the core accepts with c's heads and N. */
export const maxBatch = (c: Config) => Math.max(1, Math.min(MAX_BATCH, Math.floor(MAX_WORK_BLOCKS / fa2Blocks({ ...c, batch: 1 }))));

export const DEFAULT_CONFIG: Config = { gpu: 'a100-sxm-80gb', batch: 1, heads: 16, n: 8192, d: 128, causal: false };

export interface Side {
  name: 'FA1' | 'FA2';
  work: WorkPartitionResult;
  /** Per SM, the launch indices of its blocks in start order (one slot per SM: they never overlap). */
  bySm: Int32Array[];
  /**
   * Predicted time, seconds: the roofline time of the whole launch (every SM busy) divided by the
   * SM utilisation of this partition -- each SM delivers 1/smCount of the peak, so a launch that
   * keeps a fraction u of the SM-time busy takes 1/u as long.
   */
  timeS: number;
}

export interface Figure {
  config: Config;
  preset: GpuPresetInfo;
  roofline: AttentionPredictionResult;
  fa1: Side;
  fa2: Side;
  /** Clock stops, in tiles: 0 and every wave's end, of both partitions. */
  stops: number[];
  /** The longer makespan: the shared time axis. */
  spanTiles: number;
  /** The stop the figure opens at: the start of FA2's middle wave, when its SMs are full. */
  openStep: number;
}

function side(name: Side['name'], work: WorkPartitionResult, roofline: AttentionPredictionResult): Side {
  const lists: number[][] = Array.from({ length: work.smCount }, () => []);
  work.blocks.sm.forEach((sm, i) => lists[sm].push(i));
  return { name, work, bySm: lists.map((l) => Int32Array.from(l)), timeS: roofline.timeS / work.smUtilization };
}

// Figures already built, by launch: a reader dragging the batch slider revisits the same ones.
const built = boundedCache<Figure>(64);

export const buildFigure = (core: AttnFlash, config: Config): Figure =>
  built(JSON.stringify([config.gpu, config.batch, config.heads, config.n, config.d, config.causal]), () => computeFigure(core, config));

function computeFigure(core: AttnFlash, config: Config): Figure {
  const preset = core.gpuPreset(config.gpu);
  const causal = config.causal ? 'top_left' as const : 'none' as const;
  const launch = { gpu: config.gpu, batch: config.batch, heads: config.heads, qLen: config.n, blockQ: BLOCK, blockK: BLOCK, causal };
  const roofline = core.predictAttention({ gpu: config.gpu, batch: config.batch, heads: config.heads, qLen: config.n, headDim: config.d, causal, algorithm: 'flash', precision: 'fp16' });
  const fa1 = side('FA1', core.gpuWorkPartition({ ...launch, partition: 'fa1' }), roofline);
  const fa2 = side('FA2', core.gpuWorkPartition({ ...launch, partition: 'fa2' }), roofline);
  const ends = new Set<number>([0]);
  for (const s of [fa1, fa2]) for (const w of s.work.waves) ends.add(w.endTiles);
  const stops = [...ends].sort((a, b) => a - b);
  // Wave k + 1 starts where wave k ends (a stop), so at that stop the middle wave fills the SMs.
  const middle = fa2.work.waves[Math.floor((fa2.work.waves.length - 1) / 2)];
  const openStep = Math.max(0, stops.indexOf(middle.startTiles));
  return { config, preset, roofline, fa1, fa2, stops, spanTiles: stops[stops.length - 1], openStep };
}

// The block running on `sm` at time t (tiles), or -1 when the SM is idle.
export function blockAt(s: Side, sm: number, t: number): number {
  const list = s.bySm[sm], start = s.work.blocks.startTiles, end = s.work.blocks.endTiles;
  let lo = 0, hi = list.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (start[list[mid]] <= t) { found = list[mid]; lo = mid + 1; } else hi = mid - 1;
  }
  return found >= 0 && t < end[found] ? found : -1;
}

export function busyAt(s: Side, t: number): number {
  let n = 0;
  for (let sm = 0; sm < s.work.smCount; sm++) if (blockAt(s, sm, t) >= 0) n++;
  return n;
}

// Blocks finished by time t.
export function doneBy(s: Side, t: number): number {
  let n = 0;
  for (const e of s.work.blocks.endTiles) if (e <= t + 1e-9) n++;
  return n;
}

// A colour per (batch, head): golden-angle hues, so neighbouring heads differ and FA2's many
// blocks of one head share their head's colour. As 0-255 RGB for the timeline's pixel buffer.
export function pairRgb(batch: number, head: number, heads: number): [number, number, number] {
  const pair = batch * heads + head;
  const h = (pair * 137.508) % 360, s = 0.7, l = 0.58 + (pair % 3) * 0.06;
  // HSL to RGB (CSS Color 4, hslToRgb).
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
}

// As a CSS colour, cached by pair: the SM map asks for one per SM on every frame of playback.
const pairColors: string[] = [];
export function pairColor(batch: number, head: number, heads: number): string {
  const pair = batch * heads + head;
  return (pairColors[pair] ??= `rgb(${pairRgb(batch, head, heads).join(', ')})`);
}

export { fmtSeconds as fmtTime } from '../shared/format';

