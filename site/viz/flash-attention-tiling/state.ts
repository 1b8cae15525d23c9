// The figure's state: the configuration (N, d, Br, Bc, loop order, mode, causal) and the step,
// restored from and written to the URL hash. A configuration the core rejects keeps the last good
// run on screen and sets `error`, which the page displays with the core's own message.
import { batch, signal } from '@preact/signals';
import type { AttnFlash } from '../../../wasm/load';
import { readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildRun, DEFAULTS, type Config, type Run } from './model';

// Hash values are passed to the core as typed (numbers parsed, not clamped): the core decides
// what is allowed and says why not.
function configFromHash(hash: Record<string, string>): Config {
  const num = (key: string, fallback: number) => (hash[key] === undefined ? fallback : Number(hash[key]));
  return {
    n: num('n', DEFAULTS.n), d: num('d', DEFAULTS.d), br: num('br', DEFAULTS.br), bc: num('bc', DEFAULTS.bc),
    order: hash.order === 'fa1' ? 'fa1' : 'fa2',
    mode: hash.mode === 'standard' ? 'standard' : 'flash',
    causal: hash.causal === '1' || hash.causal === 'true',
  };
}

export function createFigureState(core: AttnFlash) {
  const hash = readHash();
  const error = signal<string | null>(null);
  const run = signal<Run>(buildRun(core, DEFAULTS));
  const stepper = createStepper(run.value.steps.length, 0);

  // Keeps the reader at the same point of the run (same fraction of the steps) across changes,
  // so toggling Standard/Flash or the loop order compares like with like.
  const setConfig = (patch: Partial<Config>, step?: number) => {
    const next = { ...run.value.config, ...patch };
    try {
      const r = buildRun(core, next);
      const old = stepper.count.value - 1;
      const fraction = old > 0 ? stepper.step.value / old : 0;
      batch(() => {
        run.value = r;
        stepper.count.value = r.steps.length;
        stepper.seek(step ?? fraction * (r.steps.length - 1));
        error.value = null;
      });
    } catch (e) {
      error.value = `${describe(next)} was rejected by the core: ${(e as Error).message}`;
    }
  };
  setConfig(configFromHash(hash), Number(hash.step) || 0);

  syncHash(() => {
    const c = run.value.config;
    return { n: c.n, d: c.d, br: c.br, bc: c.bc, order: c.order, mode: c.mode, causal: c.causal ? 1 : 0, step: stepper.step.value };
  });
  return { core, stepper, run, error, setConfig };
}

const describe = (c: Config) => `N = ${c.n}, d = ${c.d}, Br = ${c.br}, Bc = ${c.bc}`;

export type FigureState = ReturnType<typeof createFigureState>;
