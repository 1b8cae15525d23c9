// One paragraph per d_k, with that step's numbers from the core's experiment: the unscaled dot
// product's variance, top weight, entropy and gradient against the scaled and additive scores.
import { fmt } from '../shared/format';
import { fmtSmall, fmtVariance } from './format';
import { DIMS, DOT_TRIALS, type Example } from './model';

const pct = (x: number) => `${Math.round(x * 100)} %`;

export function narration(ex: Example, step: number): string {
  const d = DIMS[step];
  const { dot, scaled, additive } = ex.rows[step].stats;
  const top = Math.max(...dot.firstWeights);
  return `At d_k = ${d}, unscaled dot-product scores have variance ≈ ${fmtVariance(dot.variance)} (about d_k) and in this draw the top key takes ${fmtSmall(top)} of the weight `
    + `(${fmt(dot.maxWeight, 2)} on average over ${DOT_TRIALS} draws); the softmax keeps ${pct(dot.entropyNormalized)} of its maximum entropy and passes back a gradient of ‖J‖ = ${fmtSmall(dot.jacobianNorm)}. `
    + `Divided by √${d}, the scores have variance ${fmtVariance(scaled.variance)}, the top key takes ${fmt(scaled.maxWeight, 2)} on average and ‖J‖ = ${fmtSmall(scaled.jacobianNorm)}. `
    + `The additive score, bounded by tanh, has variance ${fmtVariance(additive.variance)} and ‖J‖ = ${fmtSmall(additive.jacobianNorm)}.`;
}
