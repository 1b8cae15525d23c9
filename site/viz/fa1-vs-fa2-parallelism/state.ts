// The figure's state: the launch (GPU, batch, heads, N, d, causal) and the clock over waves,
// restored from and written to the URL hash. A launch the core rejects (e.g. more thread blocks
// than the in-browser limit) keeps the last good figure on screen and sets `error`.
import type { AttnFlash } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { gpuFromHash } from '../shared/hashGpu';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createClock } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, type Config, type Figure } from './model';

function configFromHash(hash: Record<string, string>, gpu: string): Config {
  return {
    gpu,
    batch: hashNumber(hash, 'batch', DEFAULT_CONFIG.batch),
    heads: hashNumber(hash, 'heads', DEFAULT_CONFIG.heads),
    n: hashNumber(hash, 'n', DEFAULT_CONFIG.n),
    d: hashNumber(hash, 'd', DEFAULT_CONFIG.d),
    causal: hash.causal === undefined ? DEFAULT_CONFIG.causal : hash.causal === '1',
  };
}

export function createFigureState(core: AttnFlash) {
  const hash = readHash();
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'This launch is too large to lay out in the browser; lower the batch, heads or N', (next, _, atStep) => clock.setStops(next.stops, atStep ?? next.openStep));
  // Opens at the start, as every figure does (shared/Narration.tsx); a new launch opens mid-way,
  // when FA2 fills the SMs and FA1 does not.
  const clock = createClock(figure.value.stops, 0, 9000);
  if (Object.keys(hash).length > 0) {
    const { gpu, notice } = gpuFromHash(core, hash, DEFAULT_CONFIG.gpu);
    configure(configFromHash(hash, gpu), hash.step === undefined ? undefined : Number(hash.step));
    if (notice) error.value = error.value ? `${notice} ${error.value}` : notice;
  }

  syncHash(() => {
    const c = figure.value.config;
    return { gpu: c.gpu, batch: c.batch, heads: c.heads, n: c.n, d: c.d, causal: c.causal ? 1 : 0, step: clock.step.value };
  });
  return { figure, error, clock, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
