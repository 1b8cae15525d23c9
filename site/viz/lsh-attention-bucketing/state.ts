// The figure's state: buckets, rounds, chunk length and seed, and the step shown, restored from and
// written to the URL hash. A configuration the figure or the core rejects (a hand-edited hash) keeps
// the last figure on screen and sets `error`, which the page displays.
import type { AttnClassic } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, STEP_LABELS, type Config, type Figure } from './model';

const KEYS = ['buckets', 'rounds', 'chunk', 'seed'] as const;

export function createFigureState(core: AttnClassic) {
  const hash = readHash();
  // A new hashing keeps the step the reader is on: the controls are for comparing hashings.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'This hashing cannot be drawn', (_next, _change, atStep) => {
      if (atStep !== undefined) stepper.seek(atStep);
    });
  const stepper = createStepper(STEP_LABELS.length, 0);
  if (KEYS.some((k) => hash[k] !== undefined) || hash.step !== undefined) {
    const config = Object.fromEntries(KEYS.map((k) => [k, hashNumber(hash, k, DEFAULT_CONFIG[k])])) as unknown as Config;
    const step = hash.step === undefined ? 0 : Number(hash.step);
    if (!Number.isInteger(step) || step < 0 || step >= STEP_LABELS.length) {
      configure(config);
      error.value = `step must be a whole number from 0 to ${STEP_LABELS.length - 1}, got ${hash.step}`;
    } else {
      configure(config, step);
    }
  }
  syncHash(() => ({ ...figure.value.config, step: stepper.step.value }));
  return { figure, error, stepper, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
