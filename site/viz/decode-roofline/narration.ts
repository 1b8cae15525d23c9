// One sentence per K/V sharing: the step's bytes and FLOPs, its intensity against the ridge, and the
// time-per-output-token floor they set, all from the core's decodeRoofline.
import { fmtBytes, fmtSeconds } from '../shared/format';
import { fmtIntensity, fmtTokens, type Figure } from './model';

export function narration(f: Figure, step: number): string {
  const v = f.variants[step], s = v.step;
  const what = v.scheme === 'mha' ? `MHA: every query head reads its own K/V head, so the attention does ${fmtIntensity(s.attentionIntensity)} FLOP per byte`
    : v.scheme === 'mla' ? `MLA: all ${f.qHeads} heads score and mix one latent, so the attention alone does ${fmtIntensity(s.attentionIntensity)} FLOP per byte`
    : `${v.label}: each cached K/V byte serves ${fmtIntensity(s.groupSize)} query heads, so the attention does ${fmtIntensity(s.attentionIntensity)} FLOP per byte`;
  const bytes = f.config.weights
    ? `${fmtBytes(s.kvBytesRead)} of cache and ${fmtBytes(s.weightBytesRead)} of weights`
    : `${fmtBytes(s.kvBytesRead)} of cache (weights not counted)`;
  const bound = s.bound === 'memory'
    ? `${fmtIntensity(s.arithmeticIntensity)} FLOP/B, below the ridge at ${fmtIntensity(s.ridgePoint)}: memory-bound`
    : `${fmtIntensity(s.arithmeticIntensity)} FLOP/B, past the ridge at ${fmtIntensity(s.ridgePoint)}: compute-bound`;
  return `${what}. One step for ${f.config.batch} request${f.config.batch > 1 ? 's' : ''} at ${fmtTokens(f.config.context)} tokens reads ${bytes}: ${bound}. Reading them takes at least ${fmtSeconds(s.memoryTimeS)} per output token.`;
}

// The scrubber's stops: GQA's by its number of K/V heads alone ("16" for GQA-16), so that every stop
// fits one line at 375 px.
export const stepLabels = (f: Figure) => f.variants.map((v) => v.label.replace('GQA-', ''));
