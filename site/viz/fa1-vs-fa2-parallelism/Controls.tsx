// The launch: GPU and batch size always in view; heads, N, d and causal behind "More" on narrow
// screens.
import { useState } from 'preact/hooks';
import { NumberSelect } from '../shared/NumberSelect';
import { GPUS, HEAD_DIMS, HEADS, MAX_BATCH, SEQ_LENS } from './model';
import type { FigureState } from './state';

// The batch range takes its value as a string (see shared/NumberSelect).
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
        <label class="field">heads <NumberSelect value={c.heads} label="Heads" onChange={(heads) => configure({ heads })}
          choices={HEADS} /></label>
        <label class="field">N <NumberSelect value={c.n} label="Sequence length N" onChange={(n) => configure({ n })}
          choices={SEQ_LENS} format={(n) => n.toLocaleString('en-US')} /></label>
        <label class="field">d <NumberSelect value={c.d} label="Head dimension d" choices={HEAD_DIMS} onChange={(d) => configure({ d })} /></label>
        <label class="field check"><input type="checkbox" checked={c.causal} onChange={(e) => configure({ causal: e.currentTarget.checked })} /> causal</label>
      </div>
    </div>
  );
}
