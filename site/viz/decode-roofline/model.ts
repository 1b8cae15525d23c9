// The figure's data: one decode step of a model preset under every K/V sharing from MHA (group size 1)
// through GQA to MQA (group size H_q), and under MLA, placed on the roofline of a GPU preset, all from
// the core's decodeRoofline; and the roofs of every GPU preset, from the same call on each.
import type { AttnInference, DecodeRooflineResult, GpuPresetInfo, KvSchemeName } from '../../../wasm/load';
import { fmtInt } from '../shared/format';

export const MODELS = ['llama3-8b', 'llama3-70b', 'deepseek-v2', 'mistral-7b', 'llama3-405b'] as const;
export const CONTEXT = { min: 1024, max: 131072 } as const;
/** 1k to 128k tokens, four stops per doubling. */
export const CONTEXT_STOPS = Array.from({ length: 29 }, (_, i) => Math.round(CONTEXT.min * 2 ** (i / 4)));
export const BATCH = { min: 1, max: 1024 } as const;
/** 1 to 1024 requests, two stops per doubling (rounded to whole requests). */
export const BATCH_STOPS = [...new Set(Array.from({ length: 21 }, (_, i) => Math.round(2 ** (i / 2))))];

export interface Config {
  model: string;
  gpu: string;
  context: number;
  batch: number;
  /** Count the weights as read once per step (shared by the batch). */
  weights: boolean;
}
export const DEFAULT_CONFIG: Config = { model: 'llama3-70b', gpu: 'h100-sxm', context: 8192, batch: 16, weights: true };

export interface Variant {
  /** 'MHA', 'GQA-8' (8 K/V heads, the GQA paper's GQA-G with G groups), 'MQA', 'MLA'. */
  label: string;
  scheme: KvSchemeName;
  step: DecodeRooflineResult;
}

export interface Roof {
  gpu: GpuPresetInfo;
  peak: number;
  bandwidth: number;
  ridge: number;
}

export interface Figure {
  config: Config;
  modelName: string;
  /** A Mixture-of-Experts model's total parameters (null for a dense model): its weight count is one
   *  token's activated parameters, so a batch whose tokens use different experts reads more, up to this. */
  totalParameters: number | null;
  qHeads: number;
  variants: Variant[];
  roofs: Roof[];
}


// The roofs depend on nothing the reader changes but are asked of the core once per page.
let roofCache: Roof[] | null = null;
function roofs(core: AttnInference): Roof[] {
  roofCache ??= core.gpuPresets().flatMap((gpu) => {
    try {
      const r = core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, gpu: gpu.id, weights: false });
      return [{ gpu, peak: r.peakFlopsPerS, bandwidth: r.hbmBytesPerS, ridge: r.ridgePoint }];
    } catch {
      return [];  // a preset the core cannot place (no published bandwidth) has no roof
    }
  });
  return roofCache;
}

const powersOfTwoUpTo = (n: number) => Array.from({ length: Math.floor(Math.log2(n)) + 1 }, (_, i) => 2 ** i).filter((g) => n % g === 0);

export function buildFigure(core: AttnInference, config: Config): Figure {
  const { model, gpu, context, batch, weights } = config;
  if (!(MODELS as readonly string[]).includes(model)) throw new Error(`model must be one of ${MODELS.join(', ')}, got ${model}`);
  const all = roofs(core);
  if (!all.some((r) => r.gpu.id === gpu)) throw new Error(`gpu must be one of ${all.map((r) => r.gpu.id).join(', ')}, got ${gpu}`);
  if (!Number.isInteger(context) || context < CONTEXT.min || context > CONTEXT.max) {
    throw new Error(`context must be a whole number of tokens from ${fmtInt(CONTEXT.min)} to ${fmtInt(CONTEXT.max)}, got ${context}`);
  }
  if (!Number.isInteger(batch) || batch < BATCH.min || batch > BATCH.max) {
    throw new Error(`batch must be a whole number from ${BATCH.min} to ${fmtInt(BATCH.max)}, got ${batch}`);
  }
  const preset = core.modelPreset(model);
  const qHeads = preset.qHeads.value!;
  const common = { model, gpu, contextTokens: context, batch, weights };
  const variants: Variant[] = powersOfTwoUpTo(qHeads).map((g) => {
    if (g === 1) return { label: 'MHA', scheme: 'mha', step: core.decodeRoofline({ ...common, scheme: 'mha' }) };
    if (g === qHeads) return { label: 'MQA', scheme: 'mqa', step: core.decodeRoofline({ ...common, scheme: 'mqa' }) };
    return { label: `GQA-${qHeads / g}`, scheme: 'gqa', step: core.decodeRoofline({ ...common, scheme: 'gqa', gqaGroups: qHeads / g }) };
  });
  variants.push({ label: 'MLA', scheme: 'mla', step: core.decodeRoofline({ ...common, scheme: 'mla' }) });
  return { config, modelName: preset.name, totalParameters: preset.totalParameters?.value ?? null, qHeads, variants, roofs: all };
}

export const nearestIndex = (stops: readonly number[], v: number) =>
  stops.reduce((best, s, i) => (Math.abs(Math.log(s / v)) < Math.abs(Math.log(stops[best] / v)) ? i : best), 0);

export const fmtTokens = (t: number) => (t >= 1024 && t % 1024 === 0 ? `${t / 1024}k` : fmtInt(t));
export { fmtInt };

/** FLOP/s in T or P: 989.5 TFLOP/s, 1.98 PFLOP/s. */
export const fmtFlops = (f: number) => (f >= 1e15 ? `${(f / 1e15).toFixed(2)} PFLOP/s` : f >= 1e12 ? `${(f / 1e12).toFixed(f >= 1e14 ? 0 : 1)} TFLOP/s` : `${(f / 1e9).toFixed(0)} GFLOP/s`);
/** Intensity with three significant digits. */
export const fmtIntensity = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
