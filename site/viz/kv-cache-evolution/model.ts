// The figure's data: one model preset's KV cache under MHA, MQA, GQA and MLA at one context, with
// what a request needs against an H100's 80 GB, all from the core: the cache's shape and bytes from
// decodeRoofline's `kv` (the kvCacheBytes of each scheme variant of the preset), the longest context
// that fits from its memory check, the curves of bytes per request from the same call at each power
// of two of the context range.
import type { AttnInference, DecodeRooflineResult, KvSchemeName, ModelPresetInfo } from '../../../wasm/load';
import { fmtInt } from '../shared/format';

export const SCHEMES: readonly KvSchemeName[] = ['mha', 'mqa', 'gqa', 'mla'];
export const SCHEME_NAMES: Record<KvSchemeName, string> = { mha: 'MHA', mqa: 'MQA', gqa: 'GQA', mla: 'MLA' };
/** The presets offered: the three, then Mistral's sliding window and the largest Llama. */
export const MODELS = ['llama3-8b', 'llama3-70b', 'deepseek-v2', 'mistral-7b', 'llama3-405b'] as const;
export const GPU = 'h100-sxm';
export const CONTEXT = { min: 1024, max: 131072 } as const;
/** The slider's stops: 1k to 128k tokens, eight per doubling. */
export const CONTEXT_STOPS = Array.from({ length: 57 }, (_, i) => Math.round(CONTEXT.min * 2 ** (i / 8)));
/** Where the curves are sampled: every power of two (a sliding window bends its curve at one). */
const CURVE_CONTEXTS = Array.from({ length: 8 }, (_, i) => CONTEXT.min * 2 ** i);

export interface Config {
  model: string;
  context: number;
  /** Count the model's weights as resident in the GPU's memory (they are read every step too). */
  weights: boolean;
}
export const DEFAULT_CONFIG: Config = { model: 'llama3-70b', context: 8192, weights: false };

export interface SchemeRow {
  scheme: KvSchemeName;
  step: DecodeRooflineResult;
  /** [context, bytes per request] at each power of two from 1k to 128k. */
  curve: [number, number][];
}

export interface Figure {
  config: Config;
  preset: ModelPresetInfo;
  rows: SchemeRow[];
  gpuName: string;
  capacityBytes: number;
  weightBytes: number;
}


// Curves depend on the model only (the cache, not the weights), so a context change reuses them; the
// presets never change.
const curves = new Map<string, [number, number][]>();
const presets = new Map<string, ModelPresetInfo>();
let gpuName: string | undefined;

function curveOf(core: AttnInference, model: string, scheme: KvSchemeName): [number, number][] {
  const key = `${model}/${scheme}`;
  let c = curves.get(key);
  if (!c) {
    c = CURVE_CONTEXTS.map((t) => [t, core.decodeRoofline({ model, scheme, contextTokens: t, weights: false, gpu: GPU }).kv.bytesPerRequest]);
    curves.set(key, c);
  }
  return c;
}

export function buildFigure(core: AttnInference, config: Config): Figure {
  const { model, context, weights } = config;
  if (!(MODELS as readonly string[]).includes(model)) {
    throw new Error(`model must be one of ${MODELS.join(', ')}, got ${model}`);
  }
  if (!Number.isInteger(context) || context < CONTEXT.min || context > CONTEXT.max) {
    throw new Error(`context must be a whole number of tokens from ${fmtInt(CONTEXT.min)} to ${fmtInt(CONTEXT.max)}, got ${context}`);
  }
  const rows = SCHEMES.map((scheme) => ({
    scheme,
    step: core.decodeRoofline({ model, scheme, contextTokens: context, weights, gpu: GPU }),
    curve: curveOf(core, model, scheme),
  }));
  const first = rows[0].step;
  return {
    config, preset: presets.get(model) ?? presets.set(model, core.modelPreset(model)).get(model)!, rows,
    gpuName: (gpuName ??= core.gpuPreset(GPU).name),
    capacityBytes: first.hbmCapacityBytes, weightBytes: first.weightBytesRead,
  };
}

/** The slider stop nearest a context (a hash may name one between stops). */
export const nearestStop = (context: number) =>
  CONTEXT_STOPS.reduce((best, c, i) => (Math.abs(Math.log(c / context)) < Math.abs(Math.log(CONTEXT_STOPS[best] / context)) ? i : best), 0);

export const fmtTokens = (t: number) => (t >= 1024 && t % 1024 === 0 ? `${t / 1024}k` : fmtInt(t));
export { fmtInt };

/** What a row's blocks are: K/V heads, or the latent and the RoPE key. */
export function rowShape(r: SchemeRow, short = false): string {
  const kv = r.step.kv;
  if (r.scheme === 'mla') return short ? `latent ${kv.latentDim} + RoPE ${kv.ropeDim}` : `latent ${kv.latentDim} + RoPE key ${kv.ropeDim}`;
  return `${kv.kvHeads} K + ${kv.kvHeads} V${short ? '' : ' heads'}`;
}
