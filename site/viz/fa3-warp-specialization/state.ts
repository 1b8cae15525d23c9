// The figure's state: the configuration (GPU, precision, head dim, consumers, key blocks, schedule)
// and the playback position, restored from and written to the URL hash. A configuration the core
// rejects keeps the last good figure on screen and sets `error`, which the page displays.
import type { AttnFlash, Fa3ScheduleName } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { gpuFromHash } from '../shared/hashGpu';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, type Config, type Figure } from './model';

function configFromHash(hash: Record<string, string>, gpu: string): Config {
  return {
    gpu,
    precision: (hash.prec ?? DEFAULT_CONFIG.precision) as Config['precision'],
    headDim: hashNumber(hash, 'd', DEFAULT_CONFIG.headDim),
    consumers: hashNumber(hash, 'wg', DEFAULT_CONFIG.consumers),
    iterations: hashNumber(hash, 'blocks', DEFAULT_CONFIG.iterations),
    schedule: (hash.schedule ?? DEFAULT_CONFIG.schedule) as Fa3ScheduleName,
  };
}

export function createFigureState(core: AttnFlash) {
  const hash = readHash();
  // After a change the timeline jumps to its end, so the new total is visible at once.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c), DEFAULT_CONFIG,
    () => 'The core rejected this configuration', (next, _, atStep) => {
      stepper.playing.value = false;
      stepper.count.value = next.events.length;
      stepper.seek(atStep ?? next.events.length - 1);
    });
  // Opens at the first step, as every figure does (shared/Narration.tsx).
  const stepper = createStepper(figure.value.events.length, 0);
  if (Object.keys(hash).length > 0) {
    const { gpu, notice } = gpuFromHash(core, hash, DEFAULT_CONFIG.gpu);
    configure(configFromHash(hash, gpu), hash.step === undefined ? undefined : Number(hash.step));
    if (notice) error.value = error.value ? `${notice} ${error.value}` : notice;
  }

  syncHash(() => {
    const c = figure.value.config;
    return { gpu: c.gpu, prec: c.precision, d: c.headDim, wg: c.consumers, blocks: c.iterations, schedule: c.schedule, step: stepper.step.value };
  });
  return { figure, error, stepper, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
