// One sentence per step: what the layer just did, with the step's numbers from the core's map.
import type { Figure } from './model';

export function narration(f: Figure, step: number): string {
  const w = f.config.window;
  if (step === 0) {
    return `The input: only position 0 holds its token. Each layer lets a position attend to the ${w} most recent positions, itself included. Step through the layers and watch how far position 0's information travels.`;
  }
  const reach = f.frontier[step], before = f.frontier[step - 1];
  return `Layer ${step}: position ${reach} attends to positions ${reach - w + 1}–${reach} of the layer below, and the oldest of them, ${before}, already carries position 0. So each layer adds W − 1 = ${w - 1} positions: after ${step} layer${step > 1 ? 's' : ''} the reach is ${step} × ${w - 1} = ${reach} tokens.`;
}
