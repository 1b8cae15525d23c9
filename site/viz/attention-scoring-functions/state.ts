// The figure's state: the d_k shown (the stepper's step, d_k = 4 ... 512) and the seed of the draws,
// restored from and written to the URL hash. A seed the core rejects, or a step outside the d_k
// range, leaves the figure as it was and sets `error`, which the page displays.
import { signal } from '@preact/signals';
import type { AttnClassic } from '../../../wasm/load';
import { figureEffect } from '../shared/figureScope';
import { readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildExample, DIMS, MAX_SEED, type Example } from './model';

const DEFAULT_SEED = 1;

// requestIdleCallback where the browser has it (Safari does not): otherwise a timeout.
const idleApi = window as Partial<Pick<Window, 'requestIdleCallback' | 'cancelIdleCallback'>>;
const whenIdle = (fn: () => void): number =>
  (idleApi.requestIdleCallback ? idleApi.requestIdleCallback(fn, { timeout: 2000 }) : window.setTimeout(fn, 300));
const cancelIdle = (id: number) => (idleApi.cancelIdleCallback ? idleApi.cancelIdleCallback(id) : window.clearTimeout(id));

export function createFigureState(core: AttnClassic) {
  const hash = readHash();
  const step = hash.step === undefined ? 0 : Number(hash.step);
  const stepOk = Number.isInteger(step) && step >= 0 && step < DIMS.length;
  const stepper = createStepper(DIMS.length, stepOk ? step : 0);
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
  // Resample: the next seed's draws, at the same d_k. The experiment takes tens of milliseconds (the
  // additive score is O(n d^2) up to d_k = 512), more than a frame, so the next seed's is computed
  // while the page is idle after each new example, and Resample swaps it in.
  const nextSeed = (seed: number) => (seed % MAX_SEED) + 1;
  let upcoming: Example | null = null;
  figureEffect(() => {
    const seed = nextSeed(example.value.seed);
    if (upcoming?.seed === seed) return;
    const id = whenIdle(() => { upcoming = buildExample(core, seed); });
    return () => cancelIdle(id);
  });
  const resample = () => {
    const seed = nextSeed(example.value.seed);
    if (upcoming?.seed !== seed) return loadSeed(seed);
    example.value = upcoming;
    error.value = null;
  };
  if (hash.seed !== undefined) loadSeed(Number(hash.seed), hash.seed);
  if (!stepOk) {
    error.value = `Step "${hash.step}" is not one of the figure's steps: it must be a whole number from 0 to ${DIMS.length - 1} (d_k = ${DIMS[0]} to ${DIMS[DIMS.length - 1]}).`;
  }

  syncHash(() => ({ step: stepper.step.value, seed: example.value.seed }));
  return { stepper, example, error, resample };
}

export type FigureState = ReturnType<typeof createFigureState>;
