// The configuration: the schedule (the figure's main toggle) always in view; GPU, precision and
// head dim next to it; consumers and key blocks behind "More" on narrow screens.
import { useState } from 'preact/hooks';
import { GPUS, HEAD_DIMS, PRECISIONS, SCHEDULES } from './model';
import type { FigureState } from './state';

// Form values are passed as strings: Preact compares a value with the element's (string) value and
// would rewrite a number on every render, restyling the control each time.
export function Controls({ state }: { state: FigureState }) {
  const { figure, configure } = state;
  const c = figure.value.config;
  const [more, setMore] = useState(false);
  return (
    <div class="controls">
      <div class="schedules" role="radiogroup" aria-label="Schedule">
        {SCHEDULES.map((s) => (
          <button key={s.name} type="button" role="radio" aria-checked={c.schedule === s.name}
            class={c.schedule === s.name ? 'selected' : ''} onClick={() => configure({ schedule: s.name })}>
            {s.label}
          </button>
        ))}
      </div>
      <div class="settings">
        <label>GPU <select value={c.gpu} onChange={(e) => configure({ gpu: e.currentTarget.value })}>
          {GPUS.map((g) => <option key={g.id} value={g.id}>{g.label}</option>)}
        </select></label>
        <label>Head dim <select value={String(c.headDim)} onChange={(e) => configure({ headDim: Number(e.currentTarget.value) })}>
          {HEAD_DIMS.map((d) => <option key={d} value={String(d)}>{d}</option>)}
        </select></label>
        <button type="button" class="more-toggle" aria-expanded={more} onClick={() => setMore(!more)}>More</button>
        <div class={more ? 'secondary open' : 'secondary'}>
          <label>Precision <select value={c.precision} onChange={(e) => configure({ precision: e.currentTarget.value as (typeof PRECISIONS)[number] })}>
            {PRECISIONS.map((p) => <option key={p} value={p}>{p.toUpperCase()}</option>)}
          </select></label>
          <label>Consumers <select value={String(c.consumers)} onChange={(e) => configure({ consumers: Number(e.currentTarget.value) })}>
            {[2, 3, 4].map((w) => <option key={w} value={String(w)}>{w}</option>)}
          </select></label>
          <label>Key blocks <input type="number" min={1} max={64} value={String(c.iterations)}
            onChange={(e) => configure({ iterations: Number(e.currentTarget.value) })} /></label>
        </div>
      </div>
    </div>
  );
}
