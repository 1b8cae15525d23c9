// One sentence per scheme: the per-token formula with this model's numbers, the cache one request
// needs at the chosen context, and where it stops fitting in the GPU's memory, all from the core.
import { fmtBytes, fmtInt } from '../shared/format';
import { fmtTokens, SCHEME_NAMES, type Figure, type SchemeRow } from './model';

/** "2 × 80 × 8 × 128 × 2 B = 320.0 KiB": the core's terms, multiplied out. */
export const formulaText = (r: SchemeRow) =>
  `${r.step.kv.terms.map((t) => fmtInt(t.value)).join(' × ')} B = ${fmtBytes(r.step.kv.bytesPerToken)}`;

/** Where the request stops fitting, in words. */
export function fitText(f: Figure, r: SchemeRow): string {
  const n = r.step.maxContextFitting;
  const where = f.config.weights ? `${f.gpuName} next to the weights` : `${f.gpuName}'s ${fmtBytes(f.capacityBytes)}`;
  if (n === null) return `its rolling window keeps it fitting in ${where} at any context`;
  if (n === 0) return `nothing fits: the weights alone (${fmtBytes(f.weightBytes)}) exceed ${f.gpuName}'s ${fmtBytes(f.capacityBytes)}`;
  return r.step.fits ? `it fits in ${where} up to ${fmtInt(n)} tokens` : `it stopped fitting in ${where} after ${fmtInt(n)} tokens`;
}

const WHAT: Record<string, (f: Figure, r: SchemeRow) => string> = {
  mha: (f) => `MHA caches a K and a V row for every one of the ${f.preset.qHeads.value} query heads`,
  mqa: (f, r) => `MQA (Shazeer 2019) keeps one K/V head for all query heads: ${fmtInt(f.rows[0].step.kv.bytesPerToken / r.step.kv.bytesPerToken)}× less than MHA`,
  gqa: (f, r) => `GQA (Ainslie et al. 2023) gives each group of ${f.preset.qHeads.value! / r.step.kv.kvHeads} query heads one K/V head: ${r.step.kv.kvHeads} K + ${r.step.kv.kvHeads} V`,
  mla: (_, r) => `MLA (DeepSeek-V2) caches one latent of ${r.step.kv.latentDim} values and a shared RoPE key of ${r.step.kv.ropeDim}${r.step.ownScheme ? '' : ' (DeepSeek-V2’s sizes, not this model’s)'}`,
};

export function narration(f: Figure, step: number): string {
  const r = f.rows[step];
  return `${WHAT[r.scheme](f, r)}: ${formulaText(r)} per token. At ${fmtTokens(f.config.context)} tokens one request's cache is ${fmtBytes(r.step.kv.bytesPerRequest)}; ${fitText(f, r)}.`;
}

export const stepLabels = (f: Figure) => f.rows.map((r) => SCHEME_NAMES[r.scheme]);
