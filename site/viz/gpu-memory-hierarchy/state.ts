// The figure's state: the configuration (GPU, N, d, heads, standard or flash) and the clock,
// restored from and written to the URL hash. A configuration the core rejects keeps the last good
// figure on screen and sets `error`, which the page shows.
import type { AttnFlash } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { gpuFromHash } from '../shared/hashGpu';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createClock } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, type Config, type Figure, type Mode } from './model';

function configFromHash(hash: Record<string, string>, gpu: string): Config {
  return {
    gpu,
    n: hashNumber(hash, 'n', DEFAULT_CONFIG.n),
    d: hashNumber(hash, 'd', DEFAULT_CONFIG.d),
    heads: hashNumber(hash, 'heads', DEFAULT_CONFIG.heads),
    mode: (hash.mode ?? DEFAULT_CONFIG.mode) as Mode,
  };
}

export function createFigureState(core: AttnFlash) {
  const hash = readHash();
  const configured = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'The core rejected this configuration', (next, change, atStep) => {
      // Switching standard/flash keeps the clock (both share one time axis); anything else changes
      // the times, so the clock jumps to the end of the new run.
      const onlyMode = Object.keys(change).every((k) => k === 'mode');
      if (!onlyMode || atStep !== undefined) clock.setStops(next.stops, atStep ?? next.stops.length - 1);
    });
  const { figure, error } = configured;
  // Opens at the start, as every figure does (shared/Narration.tsx); the totals are one End away.
  const clock = createClock(figure.value.stops, 0, 8000);

  // The mode is the page's own setting, not the core's: it is checked here.
  const configure = (change: Partial<Config>, atStep?: number) => {
    const mode = change.mode ?? figure.value.config.mode;
    if (mode !== 'standard' && mode !== 'flash') {
      error.value = `mode: must be 'standard' or 'flash', got '${String(mode)}'`;
      return;
    }
    configured.configure(change, atStep);
  };
  if (Object.keys(hash).length > 0) {
    const { gpu, notice } = gpuFromHash(core, hash, DEFAULT_CONFIG.gpu);
    configure(configFromHash(hash, gpu), hash.step === undefined ? undefined : Number(hash.step));
    if (notice) error.value = error.value ? `${notice} ${error.value}` : notice;
  }

  syncHash(() => {
    const c = figure.value.config;
    return { gpu: c.gpu, n: c.n, d: c.d, heads: c.heads, mode: c.mode, step: clock.step.value };
  });
  return { figure, error, clock, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
