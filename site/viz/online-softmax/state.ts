// The figure's state: which step is shown and which example (seed) it shows, restored from and
// written to the URL hash. A seed the core rejects leaves the last good example in place and
// sets `error`, which the page displays.
import { signal } from '@preact/signals';
import type { AttnFlash } from '../../../wasm/load';
import { readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildExample, STEP_LABELS, type Example } from './model';

// Seed 19's second tile raises the running max, so the first thing a reader sees includes a
// rescale (exp(m_old - m_new) < 1); 'New numbers' walks through other seeds.
const DEFAULT_SEED = 19;

export function createFigureState(core: AttnFlash) {
  const hash = readHash();
  const stepper = createStepper(STEP_LABELS.length, Number(hash.step) || 0);
  const example = signal<Example>(buildExample(core, DEFAULT_SEED));
  const error = signal<string | null>(null);

  const loadSeed = (seed: number, asTyped: string = String(seed)) => {
    try {
      example.value = buildExample(core, seed);
      error.value = null;
    } catch (e) {
      error.value = `Seed "${asTyped}" was rejected by the core: ${(e as Error).message}`;
    }
  };
  if (hash.seed !== undefined) loadSeed(Number(hash.seed), hash.seed);

  syncHash(() => ({ step: stepper.step.value, seed: example.value.seed }));
  return { stepper, example, error, loadSeed };
}

export type FigureState = ReturnType<typeof createFigureState>;
