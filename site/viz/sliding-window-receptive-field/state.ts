// The figure's state: the stack (layers, window) and the layer shown, restored from and written to
// the URL hash. A configuration outside the sliders' range (a hand-edited hash) keeps the default
// figure on screen and sets `error`, which the page displays.
import type { AttnInference } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, mistralScale, type Config, type Figure } from './model';

export function createFigureState(core: AttnInference) {
  const hash = readHash();
  // A new stack opens at its input layer, so Play shows the spread from the start.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'This stack cannot be drawn', (next, _, atStep) => {
      stepper.playing.value = false;
      stepper.count.value = next.reached.length;
      stepper.seek(atStep ?? 0);
    });
  const stepper = createStepper(figure.value.reached.length, 0);
  if (hash.layers !== undefined || hash.window !== undefined || hash.step !== undefined) {
    configure({ layers: hashNumber(hash, 'layers', DEFAULT_CONFIG.layers), window: hashNumber(hash, 'window', DEFAULT_CONFIG.window) },
      hash.step === undefined ? undefined : Number(hash.step));
  }
  syncHash(() => ({ layers: figure.value.config.layers, window: figure.value.config.window, step: stepper.step.value }));
  return { figure, error, stepper, configure, mistral: mistralScale(core) };
}

export type FigureState = ReturnType<typeof createFigureState>;
