// The figure's state: model, context, whether the weights count, and the scheme shown, restored from
// and written to the URL hash. A configuration the figure does not offer (a hand-edited hash) keeps
// the default figure on screen and sets `error`, which the page displays.
import type { AttnInference } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, MODELS, SCHEMES, type Config, type Figure } from './model';

export function createFigureState(core: AttnInference) {
  const hash = readHash();
  // A new model or context keeps the scheme the reader is on.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'This cache cannot be drawn', (_next, _change, atStep) => {
      if (atStep !== undefined) stepper.seek(atStep);
    });
  const stepper = createStepper(SCHEMES.length, 0);
  if (hash.model !== undefined || hash.ctx !== undefined || hash.weights !== undefined || hash.step !== undefined) {
    const weights = hash.weights === undefined ? DEFAULT_CONFIG.weights : hash.weights === '1' ? true : hash.weights === '0' ? false : null;
    const step = hashNumber(hash, 'step', 0);
    if (weights === null) {
      error.value = `This cache cannot be drawn: weights must be 0 or 1, got ${hash.weights}`;
    } else if (!Number.isInteger(step) || step < 0 || step >= SCHEMES.length) {
      error.value = `This cache cannot be drawn: step must be a whole number from 0 to ${SCHEMES.length - 1}, got ${hash.step}`;
    } else {
      configure({ model: hash.model ?? DEFAULT_CONFIG.model, context: hashNumber(hash, 'ctx', DEFAULT_CONFIG.context), weights }, step);
    }
  }
  syncHash(() => {
    const c = figure.value.config;
    return { model: c.model, ctx: c.context, weights: c.weights ? 1 : 0, step: stepper.step.value };
  });
  const modelNames = Object.fromEntries(MODELS.map((id) => [id, core.modelPreset(id).name]));
  return { figure, error, stepper, configure, modelNames };
}

export type FigureState = ReturnType<typeof createFigureState>;
