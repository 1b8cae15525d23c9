// The figure's state: N, input and seed, and the method shown, restored from and written to the
// URL hash. A configuration not computed before runs in a worker while the last result stays on
// screen (`computing` says so), and only the latest request is shown. A configuration the figure
// or the core rejects keeps the last figure on screen and sets `error`, which the page displays.
import { signal } from '@preact/signals';
import type { AttnClassic } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildFigure, computeOffThread, DEFAULT_CONFIG, METHODS, ready, type Config, type Figure, type InputKind } from './model';

export function createFigureState(core: AttnClassic) {
  const hash = readHash();
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'This comparison cannot be run', (_next, _change, atStep) => {
      if (atStep !== undefined) stepper.seek(atStep);
    });
  const stepper = createStepper(METHODS.length, 0);
  const computing = signal<string | null>(null);
  let latest = 0;
  const setConfig = (change: Partial<Config>, atStep?: number) => {
    const config = { ...figure.value.config, ...change };
    const ticket = ++latest;
    if (ready(config)) {
      computing.value = null;
      configure(config, atStep);
      return;
    }
    computing.value = `Running the ${METHODS.length} methods at N = ${config.n}…`;
    computeOffThread(core, config).then(() => {
      if (ticket !== latest) return;
      computing.value = null;
      configure(config, atStep);
    }, (e: Error) => {
      if (ticket !== latest) return;
      computing.value = null;
      error.value = `This comparison cannot be run: ${e.message}`;
    });
  };
  if (['n', 'input', 'seed', 'step'].some((k) => hash[k] !== undefined)) {
    const step = hash.step === undefined ? 0 : Number(hash.step);
    const config: Config = { n: hashNumber(hash, 'n', DEFAULT_CONFIG.n), input: (hash.input ?? DEFAULT_CONFIG.input) as InputKind,
      seed: hashNumber(hash, 'seed', DEFAULT_CONFIG.seed) };
    if (!Number.isInteger(step) || step < 0 || step >= METHODS.length) {
      setConfig(config);
      error.value = `step must be a whole number from 0 to ${METHODS.length - 1}, got ${hash.step}`;
    } else {
      setConfig(config, step);
    }
  }
  syncHash(() => ({ ...figure.value.config, step: stepper.step.value }));
  return { figure, error, stepper, computing, setConfig };
}

export type FigureState = ReturnType<typeof createFigureState>;
