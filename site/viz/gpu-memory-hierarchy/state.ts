// The figure's state: the configuration (GPU, N, d, heads, standard or flash) and the clock,
// restored from and written to the URL hash. A configuration the core rejects keeps the last good
// figure on screen and sets `error`, which the page shows.
import { batch, signal } from '@preact/signals';
import type { AttnFlash } from '../../../wasm/load';
import { readHash, syncHash } from '../shared/hashState';
import { createClock } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, type Config, type Figure, type Mode } from './model';

function configFromHash(hash: Record<string, string>): Config {
  const num = (key: string, fallback: number) => (hash[key] === undefined ? fallback : Number(hash[key]));
  return {
    gpu: hash.gpu ?? DEFAULT_CONFIG.gpu,
    n: num('n', DEFAULT_CONFIG.n),
    d: num('d', DEFAULT_CONFIG.d),
    heads: num('heads', DEFAULT_CONFIG.heads),
    mode: (hash.mode ?? DEFAULT_CONFIG.mode) as Mode,
  };
}

export function createFigureState(core: AttnFlash) {
  const hash = readHash();
  const figure = signal<Figure>(buildFigure(core, DEFAULT_CONFIG));
  const error = signal<string | null>(null);
  // Opens at the end of the run, so the totals are on screen before anything plays.
  const clock = createClock(figure.value.stops, figure.value.stops.length - 1, 8000);

  const configure = (change: Partial<Config>, atStep?: number) => {
    const config = { ...figure.value.config, ...change };
    if (config.mode !== 'standard' && config.mode !== 'flash') {
      error.value = `mode: must be 'standard' or 'flash', got '${String(config.mode)}'`;
      return;
    }
    try {
      const next = buildFigure(core, config);
      const onlyMode = Object.keys(change).every((k) => k === 'mode');
      batch(() => {
        figure.value = next;
        error.value = null;
        // Switching standard/flash keeps the clock (both share one time axis); anything else changes
        // the times, so the clock jumps to the end of the new run.
        if (!onlyMode || atStep !== undefined) clock.setStops(next.stops, atStep ?? next.stops.length - 1);
      });
    } catch (e) {
      error.value = `The core rejected this configuration: ${(e as Error).message}`;
    }
  };
  if (Object.keys(hash).length > 0) configure(configFromHash(hash), hash.step === undefined ? undefined : Number(hash.step));

  syncHash(() => {
    const c = figure.value.config;
    return { gpu: c.gpu, n: c.n, d: c.d, heads: c.heads, mode: c.mode, step: clock.step.value };
  });
  return { figure, error, clock, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
