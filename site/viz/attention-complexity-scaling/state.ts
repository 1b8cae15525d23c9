// The figure's state: the metric, the markers shown and N, restored from and written to the URL
// hash. N is a clock over log10 N (shared/stepper.ts createClock): Play sweeps it smoothly from
// 256 to a million, Step jumps decade by decade, the N slider sets it anywhere. A hash the figure
// cannot show (an unknown metric or marker, N out of range) keeps the default on screen and sets
// `error`, which the page displays.
import { computed } from '@preact/signals';
import type { AttnClassic } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { readHash, syncHash } from '../shared/hashState';
import { createClock } from '../shared/stepper';
import { buildFigure, checkN, loadSources, markerKey, nAt, pointsAt, STOPS, type Config, type Figure } from './model';

export function createFigureState(core: AttnClassic) {
  const hash = readHash();
  const sources = loadSources(core);
  const defaults: Config = { metric: 'memory', marks: sources.markers.map(markerKey) };
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(sources, c), defaults,
    () => 'This chart cannot be drawn', () => {});
  const clock = createClock(STOPS, 0, 12000);
  const n = computed(() => nAt(clock.time.value));
  const points = computed(() => pointsAt(core, n.value));
  const setN = (value: number) => { clock.playing.value = false; clock.time.value = Math.log10(value); };

  if (hash.metric !== undefined || hash.marks !== undefined) {
    configure({ metric: (hash.metric ?? defaults.metric) as Config['metric'], marks: hash.marks === undefined ? defaults.marks : hash.marks.split(',').filter(Boolean) });
  }
  if (hash.n !== undefined) {
    try {
      setN(checkN(Number(hash.n)));
    } catch (e) {
      error.value = `This length cannot be drawn: ${(e as Error).message}`;
    }
  } else if (hash.step !== undefined && Number.isFinite(Number(hash.step))) {
    clock.seek(Number(hash.step));
  }
  syncHash(() => ({ metric: figure.value.config.metric, marks: figure.value.config.marks.join(','), n: n.value }));
  return { core, figure, error, clock, n, points, setN, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
