// The figure's state: the d_k shown (the stepper's step, d_k = 4 ... 512) and the seed of the draws,
// restored from and written to the URL hash. A seed the core rejects, or a step outside the d_k
// range, leaves the figure as it was and sets `error`, which the page displays.
import { signal } from '@preact/signals';
import type { AttnClassic } from '../../../wasm/load';
import { figureEffect } from '../shared/figureScope';
import { readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildExample, buildExampleOffThread, DIMS, MAX_SEED, type Example } from './model';

/** `first`: the example the page opened with (main.tsx computes it in a worker). */
export function createFigureState(core: AttnClassic, first: Example) {
  const hash = readHash();
  const step = hash.step === undefined ? 0 : Number(hash.step);
  const stepOk = Number.isInteger(step) && step >= 0 && step < DIMS.length;
  const stepper = createStepper(DIMS.length, stepOk ? step : 0);
  const example = signal<Example>(first);
  const error = signal<string | null>(null);

  const loadSeed = (seed: number, asTyped: string = String(seed)) => {
    try {
      example.value = buildExample(core, seed);
      error.value = null;
    } catch (e) {
      error.value = `Seed "${asTyped}" was rejected by the core: ${(e as Error).message}`;
    }
  };
  // Resample: the next seed's draws, at the same d_k. The experiment takes more than a frame, so
  // the next seed's runs in a worker as soon as an example is shown, and Resample shows it when it
  // is there (at once, unless the reader clicks again within a fraction of a second).
  const nextSeed = (seed: number) => (seed % MAX_SEED) + 1;
  let upcoming: { seed: number; example: Promise<Example> } | null = null;
  const prepare = (seed: number) => {
    if (upcoming?.seed !== seed) {
      upcoming = { seed, example: buildExampleOffThread(seed) };
      upcoming.example.catch(() => {});  // a failure is reported when Resample asks for it
    }
    return upcoming.example;
  };
  figureEffect(() => { prepare(nextSeed(example.value.seed)); });
  const resample = () => {
    const from = example.value.seed, seed = nextSeed(from);
    prepare(seed).then((next) => {
      if (example.value.seed !== from) return;  // a later click or a hash change got there first
      example.value = next;
      error.value = null;
    }, (e: Error) => {
      error.value = `Seed "${seed}" was rejected by the core: ${e.message}`;
    });
  };
  // A seed the page did not open with (a later hash change, or one the core refused): computed here.
  if (hash.seed !== undefined && Number(hash.seed) !== first.seed) loadSeed(Number(hash.seed), hash.seed);
  if (!stepOk) {
    error.value = `Step "${hash.step}" is not one of the figure's steps: it must be a whole number from 0 to ${DIMS.length - 1} (d_k = ${DIMS[0]} to ${DIMS[DIMS.length - 1]}).`;
  }

  syncHash(() => ({ step: stepper.step.value, seed: example.value.seed }));
  return { stepper, example, error, resample };
}

export type FigureState = ReturnType<typeof createFigureState>;
