// The figure's state: the configuration (N, d, Br, Bc, loop order, mode, causal) and the step,
// restored from and written to the URL hash. A configuration the core rejects keeps the last good
// run on screen and sets `error`, which the page displays with the core's own message. A large
// configuration is traced in a worker: the last run stays on screen, `computing` says what is
// being computed, and only the latest request is shown when it arrives.
import { signal } from '@preact/signals';
import type { AttnFlash } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildRun, computeTracesOffThread, DEFAULTS, fitted, readyToBuild, type Config, type Run } from './model';

// Hash values are passed to the core as typed (numbers parsed, not clamped): the core decides
// what is allowed and says why not.
function configFromHash(hash: Record<string, string>): Config {
  return {
    n: hashNumber(hash, 'n', DEFAULTS.n), d: hashNumber(hash, 'd', DEFAULTS.d),
    br: hashNumber(hash, 'br', DEFAULTS.br), bc: hashNumber(hash, 'bc', DEFAULTS.bc),
    order: hash.order === 'fa1' ? 'fa1' : 'fa2',
    mode: hash.mode === 'standard' ? 'standard' : 'flash',
    causal: hash.causal === '1' || hash.causal === 'true',
  };
}

export function createFigureState(core: AttnFlash) {
  const hash = readHash();
  // A change keeps the reader at the same point of the run (same fraction of the steps), so
  // toggling Standard/Flash or the loop order compares like with like.
  const { figure: run, error, configure } = createConfigured<Config, Run>((c) => buildRun(core, c), DEFAULTS,
    (c) => `${describe(c)} was rejected by the core`, (next, _, step) => {
      const old = stepper.count.value - 1;
      const fraction = old > 0 ? stepper.step.value / old : 0;
      stepper.count.value = next.steps.length;
      stepper.seek(step ?? fraction * (next.steps.length - 1));
    });
  const stepper = createStepper(run.value.steps.length, 0);
  const computing = signal<string | null>(null);
  let latest = 0;
  const setConfig = (change: Partial<Config>, atStep?: number) => {
    const config = fitted({ ...run.value.config, ...change });
    const ticket = ++latest;
    if (readyToBuild(config)) {
      computing.value = null;
      configure(config, atStep);
      return;
    }
    computing.value = `Computing the traces for ${describe(config)}…`;
    computeTracesOffThread(core, config).then(() => {
      if (ticket !== latest) return;
      computing.value = null;
      configure(config, atStep);
    }, (e: Error) => {
      if (ticket !== latest) return;
      computing.value = null;
      error.value = `${describe(config)} was rejected by the core: ${e.message}`;
    });
  };
  setConfig(configFromHash(hash), Number(hash.step) || 0);

  syncHash(() => {
    const c = run.value.config;
    return { n: c.n, d: c.d, br: c.br, bc: c.bc, order: c.order, mode: c.mode, causal: c.causal ? 1 : 0, step: stepper.step.value };
  });
  return { core, stepper, run, error, computing, setConfig };
}

const describe = (c: Config) => `N = ${c.n}, d = ${c.d}, Br = ${c.br}, Bc = ${c.bc}`;

export type FigureState = ReturnType<typeof createFigureState>;
