// The figure's state: the workload (seed, requests, pool blocks) and the decoding step shown, from
// and to the URL hash; the request whose block tables are drawn; and the two allocators' states at
// the step, asked of the figure's ServingStepper (checkpointed in the core, so scrubbing back and
// forth never replays from the start). A configuration or step the figure does not offer (a
// hand-edited hash) keeps the default figure on screen and sets `error`, which the page displays.
import { computed, signal } from '@preact/signals';
import type { AttnInference } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { figureEffect } from '../shared/figureScope';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createClock } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, liveRequests, stateAt, type Config, type Figure } from './model';

// Playback: about 0.15 s per decoding step at 1x, so the default workload plays in about 25 s.
const MS_PER_STEP = 150;

// Figures built for the last few configurations, the most recently shown last, so that a reader
// going back to a setting gets its replays at once. Each holds a ServingStepper in wasm memory:
// deleted when it leaves the cache and when the figure restarts. The shown figure is never the
// oldest of more than one, so it is never the one evicted.
const CACHED_FIGURES = 8;

function figureCache(core: AttnInference) {
  const built = new Map<string, Figure>();
  const get = (c: Config): Figure => {
    const key = `${c.seed}/${c.requests}/${c.blocks}`;
    const figure = built.get(key) ?? buildFigure(core, c);
    built.delete(key);
    built.set(key, figure);
    if (built.size > CACHED_FIGURES) {
      const [oldest, evicted] = built.entries().next().value!;
      built.delete(oldest);
      evicted.stepper.delete();
    }
    return figure;
  };
  const clear = () => { for (const f of built.values()) f.stepper.delete(); built.clear(); };
  return { get, clear };
}

export function createFigureState(core: AttnInference) {
  const hash = readHash();
  const cache = figureCache(core);
  const { figure, error, configure } = createConfigured<Config, Figure>(cache.get, DEFAULT_CONFIG,
    () => 'This workload cannot be shown', (next, _, atStep) => {
      clock.setStops(next.stops, atStep ?? 0);
      selected.value = null;
    });
  figureEffect(() => cache.clear);
  const clock = createClock(figure.value.stops, 0, figure.value.steps * MS_PER_STEP);
  /** The request whose tables are drawn (null: the figure picks one, see `focus`). */
  const selected = signal<number | null>(null);

  const config = { seed: hashNumber(hash, 'seed', DEFAULT_CONFIG.seed), requests: hashNumber(hash, 'requests', DEFAULT_CONFIG.requests),
    blocks: hashNumber(hash, 'blocks', DEFAULT_CONFIG.blocks) };
  if (hash.seed !== undefined || hash.requests !== undefined || hash.blocks !== undefined) configure(config);
  if (hash.step !== undefined) {
    const step = Number(hash.step), last = figure.value.steps - 1;
    if (Number.isInteger(step) && step >= 0 && step <= last) clock.seek(step);
    else error.value = `This step cannot be shown: step must be a whole number from 0 to ${last}, got ${hash.step}`;
  }
  if (hash.request !== undefined) selected.value = Number.isInteger(Number(hash.request)) ? Number(hash.request) : null;

  // The allocators' states at the step: one stepper query per allocator, only when the step changes.
  const state = computed(() => stateAt(figure.value, clock.step.value));
  // The request whose tables are drawn: the reader's pick while it is live, else one with shared
  // blocks (several samples), else the most recently admitted.
  const live = computed(() => liveRequests(state.value.paged));
  const focus = computed(() => {
    const ids = live.value;
    if (selected.value !== null && ids.includes(selected.value)) return selected.value;
    const seqs = state.value.paged.sequences ?? [];
    const shared = ids.filter((r) => seqs.filter((q) => q.request === r).length > 1);
    if (shared.length) return shared[shared.length - 1];
    return ids.length ? ids[ids.length - 1] : null;
  });

  syncHash(() => {
    const c = figure.value.config;
    const out: Record<string, number> = { seed: c.seed, requests: c.requests, blocks: c.blocks, step: clock.step.value };
    if (selected.value !== null) out.request = selected.value;
    return out;
  });
  return { figure, error, clock, configure, state, selected, focus, live };
}

export type FigureState = ReturnType<typeof createFigureState>;
