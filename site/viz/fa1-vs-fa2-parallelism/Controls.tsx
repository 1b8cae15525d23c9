// The launch: GPU and batch size always in view; heads, N, d and causal behind "More" on narrow
// screens.
import { useState } from 'preact/hooks';
import { GPUS, HEAD_DIMS, HEADS, MAX_BATCH, SEQ_LENS } from './model';
import type { FigureState } from './state';

// Form values are passed as strings: Preact compares a value with the element's (string) value and
// would rewrite a number on every render, restyling the control each time.
export function Controls({ state }: { state: FigureState }) {
  const { figure, configure } = state;
  const c = figure.value.config;
  const [more, setMore] = useState(false);
  return (
    <div class="controls">
      <div class="segmented" role="radiogroup" aria-label="GPU">
        {GPUS.map((g) => (
          <button key={g.id} type="button" role="radio" aria-checked={c.gpu === g.id} class={c.gpu === g.id ? 'selected' : ''}
            onClick={() => configure({ gpu: g.id })} title={`${g.label}: SM count from the core's '${g.id}' preset`}>{g.label}</button>
        ))}
      </div>
      <label class="slider">
        <span>batch <output data-testid="batch">{c.batch}</output></span>
        <input type="range" min={1} max={MAX_BATCH} step={1} value={String(c.batch)} aria-label="Batch size"
          onInput={(e) => configure({ batch: Number(e.currentTarget.value) })} />
      </label>
      <button type="button" class="more-toggle" aria-expanded={more} onClick={() => setMore(!more)}>More</button>
      <div class={more ? 'secondary open' : 'secondary'}>
        <label class="field">heads <select value={String(c.heads)} aria-label="Heads" onChange={(e) => configure({ heads: Number(e.currentTarget.value) })}>
          {(HEADS.includes(c.heads) ? HEADS : [...HEADS, c.heads]).map((h) => <option key={h} value={String(h)}>{h}</option>)}
        </select></label>
        <label class="field">N <select value={String(c.n)} aria-label="Sequence length N" onChange={(e) => configure({ n: Number(e.currentTarget.value) })}>
          {(SEQ_LENS.includes(c.n) ? SEQ_LENS : [...SEQ_LENS, c.n]).map((n) => <option key={n} value={String(n)}>{n.toLocaleString('en-US')}</option>)}
        </select></label>
        <label class="field">d <select value={String(c.d)} aria-label="Head dimension d" onChange={(e) => configure({ d: Number(e.currentTarget.value) })}>
          {HEAD_DIMS.map((d) => <option key={d} value={String(d)}>{d}</option>)}
        </select></label>
        <label class="field check"><input type="checkbox" checked={c.causal} onChange={(e) => configure({ causal: e.currentTarget.checked })} /> causal</label>
      </div>
    </div>
  );
}
