// The figure's state: N, and the cell the step-through explains, restored from and written to the
// URL hash. An N the control does not offer (a hand-edited hash) keeps the default figure on screen
// and sets `error`, which the page displays.
//
// The LSH cell's image is hashed in a worker (shared/offThread.ts): the figure is drawn at once
// with that cell waiting, and drawn again with the image when it arrives (if N has not moved on).
// Images are kept per N, so each is hashed once.
import type { AttnClassic } from '../../../wasm/load';
import type { LshPatternInfo } from '../../../wasm/classic/sparse';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { offThread } from '../shared/offThread';
import { createStepper } from '../shared/stepper';
import { buildFigure, DEFAULT_N, lshArgs, N_CHOICES, type Config, type Figure, type LshImage } from './model';

export function createFigureState(core: AttnClassic) {
  const hash = readHash();
  const lshImages = new Map<number, LshImage>();
  const hashing = new Set<number>();
  // A new N keeps the cell being explained: the reader compares the same pattern across lengths.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, c, lshImages.get(c.n)), { n: DEFAULT_N },
    () => 'This length cannot be drawn', (next, _change, atStep) => {
      if (atStep !== undefined) stepper.seek(atStep);
      hashLsh(next.config.n);
    });
  const stepper = createStepper(figure.value.cells.length, 0);

  function hashLsh(n: number) {
    if (lshImages.has(n) || hashing.has(n)) return;
    hashing.add(n);
    offThread('classic', [['lshPattern', lshArgs(n)]]).then(([result]) => {
      const r = result as LshPatternInfo;
      lshImages.set(n, { fraction: r.fraction, attendedPairs: r.attendedPairs });
      // Redrawn without configure(), which would also clear an error the page is showing.
      if (figure.value.config.n === n) figure.value = buildFigure(core, figure.value.config, lshImages.get(n));
    }, (e: Error) => { error.value = `The LSH pattern could not be hashed: ${e.message}`; }).finally(() => hashing.delete(n));
  }

  hashLsh(DEFAULT_N);
  // Then the longest: the worker's module draws its queries once, and every other N hashes a prefix
  // of them (lshPattern keeps them), a few ms instead of a new draw when the reader changes N.
  hashLsh(N_CHOICES[N_CHOICES.length - 1]);
  if (hash.n !== undefined || hash.step !== undefined) {
    configure({ n: hashNumber(hash, 'n', DEFAULT_N) }, Number.isFinite(Number(hash.step)) ? Number(hash.step) : undefined);
  }
  syncHash(() => ({ n: figure.value.config.n, step: stepper.step.value }));
  return { figure, error, stepper, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
