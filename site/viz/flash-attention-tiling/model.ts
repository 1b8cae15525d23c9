// The figure's data: one seeded Q, K, V and the two traces the core computes for them, standard
// attention (FlashAttention paper, Algorithm 0) and FlashAttention's tiled forward pass in the
// chosen loop order. Everything below only looks things up in those traces: which step touched a
// block, what state a row had at a step, how many S/P bytes had gone to HBM. No attention maths here.
import type { AttnFlash, FlashStep, FlashTraceResult, HbmTransfer, StandardStep, StandardTraceResult } from '../../../wasm/load';
import { boundedCache } from '../shared/boundedCache';
import { offThread } from '../shared/offThread';

export type Mode = 'flash' | 'standard';
export type Order = 'fa2' | 'fa1';

export interface Config {
  n: number;       // sequence length N (queries = keys)
  d: number;       // head dimension (and value dimension)
  br: number;      // Br, query rows per block
  bc: number;      // Bc, key rows per block
  order: Order;
  mode: Mode;
  causal: boolean;
}

// 16 rows in 4 x 4 blocks: small enough to read every number, large enough that running maxima
// rise and fall across blocks.
export const DEFAULTS: Config = { n: 16, d: 4, br: 4, bc: 4, order: 'fa2', mode: 'flash', causal: false };
export const N_CHOICES = [8, 16, 32, 64, 128, 256, 512, 1024];
export const D_CHOICES = [2, 4, 8, 16, 32, 64];
export const BLOCK_CHOICES = [1, 2, 4, 8, 16, 32, 64];
// The figure draws at most a 32 x 32 grid of tiles: more are too small to read, and drawing them
// (and receiving their steps) takes longer than a frame. The core itself traces up to 4,096.
export const TRACE_TILE_LIMIT = 1024;

export const tileCount = (c: Pick<Config, 'n' | 'br' | 'bc'>) => Math.ceil(c.n / c.br) * Math.ceil(c.n / c.bc);

// A configuration the core will trace: a new N that would need more tiles than the core traces
// takes the smallest larger blocks that fit (choosing N = 1,024 at 4 x 4 gives 32 x 32), so no
// choice on the controls leads to a refusal.
export function fitted(c: Config): Config {
  let { br, bc } = c;
  while (tileCount({ n: c.n, br, bc }) > TRACE_TILE_LIMIT && (br < 64 || bc < 64)) {
    br = Math.min(64, br * 2);
    bc = Math.min(64, bc * 2);
  }
  return { ...c, br, bc };
}

// Whether the two traces are quick enough to compute between two frames: work grows with N^2 d
// (the products) and with the number of tiles (each becomes steps the page receives). Measured in
// Chromium, N = 64, d = 4 at 4 x 4 (the largest that passes) takes about 5 ms on an AVX-512 host;
// anything larger goes to a worker (computeTracesOffThread) while the last run stays on screen.
export const quickToTrace = (c: Config) => (c.n * c.n * c.d) / 2 ** 20 + tileCount(c) / 256 <= 1;

// Seed 3 gives the default run visible rescales (factors well below 1) in its first few tiles.
export const SEED = 3;
// Q, K, V and O as fp16/bf16 (2 bytes) as FlashAttention kernels store them; m, l, lse stay fp32.
export const ELEMENT_BYTES = 2;

export type AnyStep = FlashStep | StandardStep;

export interface Run {
  config: Config;
  q: Float32Array; k: Float32Array; v: Float32Array;
  flash: FlashTraceResult;
  standard: StandardTraceResult;
  steps: AnyStep[];            // the shown mode's steps
  tr: number; tc: number;      // blocks down and across
  // Per block (i * tc + j), the step index that handles it (-1: none):
  tileStep: Int32Array;        // flash: its tile or skip step; standard: its score_tile step
  pvStep: Int32Array;          // standard: its pv_tile step
  skipped: Uint8Array;         // flash: 1 if the trace skips the block (causal)
  softmaxStep: Int32Array;     // standard, per block row: its softmax_rows step
  nnBytes: Float64Array;       // per step, cumulative S and P bytes written to HBM (from transfers)
  // Shared full scales, so the counters compare across the Standard/Flash toggle.
  scale: { hbm: number; nn: number; sram: number; flops: number };
}

export interface Problem { q: Float32Array; k: Float32Array; v: Float32Array; input: Parameters<AttnFlash['flashForwardTrace']>[0] }

// One randomNormal draw laid out as Q | K | V (each N x d), so one seed fixes the whole example.
// The last draw is reused while N and d stay the same, so toggling the mode, loop order, mask or
// block sizes keeps the same arrays and the stage does not redraw its unchanged inputs.
let lastDraw: { n: number; d: number; q: Float32Array; k: Float32Array; v: Float32Array } | null = null;

export function problem(core: AttnFlash, c: Config): Problem {
  if (!lastDraw || lastDraw.n !== c.n || lastDraw.d !== c.d) {
    const size = c.n * c.d;
    const draw = core.randomNormal([1, 1, 1, 3 * size], SEED, 1);
    lastDraw = { n: c.n, d: c.d, q: draw.slice(0, size), k: draw.slice(size, 2 * size), v: draw.slice(2 * size) };
  }
  const { q, k, v } = lastDraw;
  const shape: [number, number, number, number] = [1, 1, c.n, c.d];
  return {
    q, k, v,
    input: {
      q, qShape: shape, k, kShape: shape, v, vShape: shape,
      causal: c.causal ? 'top_left' : 'none', blockQ: c.br, blockK: c.bc, elementBytes: ELEMENT_BYTES,
    },
  };
}

const isSP = (t: HbmTransfer) => t.direction === 'write' && (t.matrix === 'S' || t.matrix === 'P');

// Traces already computed, by configuration (the mode only picks which of the two is shown): a
// reader flipping Standard/FlashAttention or trying block sizes back and forth revisits them.
const computed = boundedCache<{ flash: FlashTraceResult; standard: StandardTraceResult }>(16);

const traceKey = (c: Config) => JSON.stringify([c.n, c.d, c.br, c.bc, c.order, c.causal]);

const traces = (core: AttnFlash, c: Config) =>
  computed(traceKey(c), () => {
    const { input } = problem(core, c);
    return { flash: core.flashForwardTrace({ ...input, loopOrder: c.order }), standard: core.standardAttentionTrace(input) };
  });

/** Whether buildRun can run now without blocking the page (small, or its traces already computed). */
export const readyToBuild = (c: Config) => quickToTrace(c) || computed.has(traceKey(c));

/** Computes a large configuration's traces in a worker and keeps them, so buildRun then finds them. */
export async function computeTracesOffThread(core: AttnFlash, c: Config): Promise<void> {
  const { input } = problem(core, c);
  const [flash, standard] = await offThread('flash', [['flashForwardTrace', { ...input, loopOrder: c.order }], ['standardAttentionTrace', input]]);
  computed(traceKey(c), () => ({ flash: flash as FlashTraceResult, standard: standard as StandardTraceResult }));
}

export function buildRun(core: AttnFlash, c: Config): Run {
  const { q, k, v } = problem(core, c);
  const { flash, standard } = traces(core, c);
  const steps: AnyStep[] = c.mode === 'flash' ? flash.steps : standard.steps;
  const tr = flash.numQBlocks, tc = flash.numKBlocks;

  const tileStep = new Int32Array(tr * tc).fill(-1);
  const pvStep = new Int32Array(tr * tc).fill(-1);
  const skipped = new Uint8Array(tr * tc);
  const softmaxStep = new Int32Array(tr).fill(-1);
  steps.forEach((s, idx) => {
    const b = s.qBlock * tc + s.kBlock;
    if (s.kind === 'tile' || s.kind === 'score_tile') tileStep[b] = idx;
    else if (s.kind === 'skip') { tileStep[b] = idx; skipped[b] = 1; }
    else if (s.kind === 'pv_tile') pvStep[b] = idx;
    else if (s.kind === 'softmax_rows') softmaxStep[s.qBlock] = idx;
  });
  const nnBytes = new Float64Array(steps.length);
  let nn = 0;
  steps.forEach((s, idx) => { for (const t of s.transfers) if (isSP(t)) nn += t.bytes; nnBytes[idx] = nn; });

  const lastF = flash.steps[flash.steps.length - 1], lastS = standard.steps[standard.steps.length - 1];
  const scale = {
    hbm: Math.max(lastF.hbmBytesRead, lastF.hbmBytesWritten, lastS.hbmBytesRead, lastS.hbmBytesWritten),
    nn: lastS.hbmBytesStored,
    sram: Math.max(flash.stats.peakSramBytes, standard.stats.peakSramBytes),
    flops: Math.max(lastF.flops, lastS.flops),
  };
  return { config: c, q, k, v, flash, standard, steps, tr, tc, tileStep, pvStep, skipped, softmaxStep, nnBytes, scale };
}

/** The state of query row r after step `at` (at = -1: before the first step). */
export interface RowState { m: number; l: number; output: Float32Array | null; touched: boolean }

// The latest step at or before `at` that reported row r's statistics (and, separately, its
// output). Rows the trace has not reached yet are m = -inf, l = 0, no output.
export function rowState(run: Run, at: number, r: number): RowState {
  const d = run.config.d;
  let m = -Infinity, l = 0, output: Float32Array | null = null, gotStats = false, touched = false;
  for (let s = at; s >= 0 && (!gotStats || !output); s--) {
    const st = run.steps[s];
    if (r < st.rowBegin || r >= st.rowEnd) continue;
    const local = r - st.rowBegin;
    if (!gotStats && st.m.length > local) { m = st.m[local]; l = st.l[local]; gotStats = true; touched = true; }
    if (!output && st.output.length >= (local + 1) * d) output = st.output.subarray(local * d, (local + 1) * d);
  }
  return { m, l, output, touched };
}

/** Every row's m, ℓ and output after step `at`, walking the trace forward once (rows not reached
 * yet: m = -inf, ℓ = 0, output NaN): what rowState gives row by row, for the whole stage at once. */
export function rowsAt(run: Run, at: number): { m: Float64Array; l: Float64Array; output: Float32Array } {
  const { n, d } = run.config;
  const m = new Float64Array(n).fill(-Infinity), l = new Float64Array(n), output = new Float32Array(n * d).fill(NaN);
  for (let s = 0; s <= at; s++) {
    const st = run.steps[s];
    const stats = Math.min(st.rowEnd - st.rowBegin, st.m.length), outs = Math.min(st.rowEnd - st.rowBegin, Math.floor(st.output.length / d));
    for (let k = 0; k < stats; k++) { m[st.rowBegin + k] = st.m[k]; l[st.rowBegin + k] = st.l[k]; }
    if (outs > 0) output.set(st.output.subarray(0, outs * d), st.rowBegin * d);
  }
  return { m, l, output };
}

export const isFlashStep = (s: AnyStep): s is FlashStep => 'rescale' in s;

// The bytes a step moved, split by direction (from its transfers).
export function stepBytes(s: AnyStep): { read: number; written: number } {
  let read = 0, written = 0;
  for (const t of s.transfers) if (t.direction === 'read') read += t.bytes; else written += t.bytes;
  return { read, written };
}

// The row of a flash tile step that the side panel and narration follow: the one whose running
// max rose the most (smallest rescale factor in (0, 1); 0 means the row had no keys before), else
// the tile's first row with an unmasked key.
export function focusRow(s: FlashStep): number {
  let best = -1, bestFactor = 1;
  for (let i = 0; i < s.rescale.length; i++) if (s.rescale[i] > 0 && s.rescale[i] < bestFactor) { bestFactor = s.rescale[i]; best = i; }
  if (best >= 0) return s.rowBegin + best;
  for (let i = 0; i < s.m.length; i++) if (s.m[i] > -Infinity) return s.rowBegin + i;
  return s.rowBegin;
}

// The row the equations follow at any step: focusRow on tiles, else the step's first row.
export function followedRow(s: AnyStep): number {
  if (isFlashStep(s) && s.kind === 'tile') return focusRow(s);
  return s.rowEnd > s.rowBegin ? s.rowBegin : 0;
}
