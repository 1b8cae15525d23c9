// One sentence per step saying what just happened, with the step's numbers from the trace.
import { fmt } from '../shared/format';
import type { Example } from './model';

export function narration(ex: Example, step: number): string {
  const s = ex.steps[step];
  if (s.kind === 'load_q') {
    return 'One query row meets 8 keys, but only one tile of 4 fits on chip at a time. The row starts empty: m = −∞, ℓ = 0, O = 0.';
  }
  if (s.kind === 'tile') {
    const prev = ex.steps[step - 1];
    const tileMax = Math.max(...s.scores);
    if (prev.l[0] === 0) {
      return `Tile ${s.kBlock + 1}: its largest score is ${fmt(tileMax)}, so m = ${fmt(s.m[0])}. Nothing was accumulated before, so nothing needs rescaling; ℓ = ${fmt(s.l[0])} is the sum of the tile's weights e^(s − m).`;
    }
    if (s.m[0] > prev.m[0]) {
      return `Tile ${s.kBlock + 1} holds a larger score (${fmt(tileMax)} > ${fmt(prev.m[0])}). Everything so far was weighted against a maximum that was too small, so ℓ and O's accumulator are multiplied by e^(${fmt(prev.m[0])} − ${fmt(s.m[0])}) = ${fmt(s.rescale[0])} before the new weights are added: the earlier tile's bars shrink by that factor.`;
    }
    return `Tile ${s.kBlock + 1}'s largest score (${fmt(tileMax)}) does not beat m = ${fmt(prev.m[0])}, so the rescale factor is e^0 = 1 and the tile's weights simply add on: ℓ grows from ${fmt(prev.l[0])} to ${fmt(s.l[0])}.`;
  }
  return 'Done: O is the accumulator divided by ℓ once, and log-sum-exp = m + log ℓ is kept for the backward pass. The tiled result equals the dense softmax up to float rounding, without ever holding all 8 scores.';
}
