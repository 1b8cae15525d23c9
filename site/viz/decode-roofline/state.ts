// The figure's state: model, GPU, context, batch, whether weights count, and the K/V sharing shown,
// restored from and written to the URL hash. A configuration outside the controls' range (a
// hand-edited hash) keeps the default figure on screen and sets `error`, which the page displays.
import type { AttnInference } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, MODELS, type Config, type Figure } from './model';

export function createFigureState(core: AttnInference) {
  const hash = readHash();
  // A new model has its own number of group sizes: open it at the first (MHA); other changes keep the step.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'This decode step cannot be placed', (next, change, atStep) => {
      stepper.playing.value = false;
      stepper.count.value = next.variants.length;
      if (atStep !== undefined) stepper.seek(atStep);
      else if (change.model !== undefined) stepper.seek(0);
      else stepper.seek(stepper.step.value);
    });
  const stepper = createStepper(figure.value.variants.length, 0);
  const keys = ['model', 'gpu', 'ctx', 'batch', 'weights', 'step'];
  if (keys.some((k) => hash[k] !== undefined)) {
    const weights = hash.weights === undefined ? DEFAULT_CONFIG.weights : hash.weights === '1' ? true : hash.weights === '0' ? false : null;
    const step = hashNumber(hash, 'step', 0);
    if (weights === null) {
      error.value = `This decode step cannot be placed: weights must be 0 or 1, got ${hash.weights}`;
    } else if (!Number.isInteger(step) || step < 0 || step > 16) {
      error.value = `This decode step cannot be placed: step must be a whole number from 0 to the last group size, got ${hash.step}`;
    } else {
      configure({
        model: hash.model ?? DEFAULT_CONFIG.model, gpu: hash.gpu ?? DEFAULT_CONFIG.gpu, weights,
        context: hashNumber(hash, 'ctx', DEFAULT_CONFIG.context), batch: hashNumber(hash, 'batch', DEFAULT_CONFIG.batch),
      }, step);
    }
  }
  syncHash(() => {
    const c = figure.value.config;
    return { model: c.model, gpu: c.gpu, ctx: c.context, batch: c.batch, weights: c.weights ? 1 : 0, step: stepper.step.value };
  });
  const modelNames = Object.fromEntries(MODELS.map((id) => [id, core.modelPreset(id).name]));
  return { figure, error, stepper, configure, modelNames };
}

export type FigureState = ReturnType<typeof createFigureState>;
