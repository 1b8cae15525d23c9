// The configuration: GPU and standard/flash always in view with the N slider; d beside them;
// heads behind "More" on narrow screens.
import { useState } from 'preact/hooks';
import { NumberSelect } from '../shared/NumberSelect';
import { GPUS, HEAD_DIMS, SEQ_LENS, type Mode } from './model';
import type { FigureState } from './state';

const MODES: { id: Mode; label: string }[] = [
  { id: 'standard', label: 'Standard attention' },
  { id: 'flash', label: 'FlashAttention' },
];

// The N range and the heads input take their values as strings (see shared/NumberSelect).
export function Controls({ state }: { state: FigureState }) {
  const { figure, configure } = state;
  const c = figure.value.config;
  const [more, setMore] = useState(false);
  const nIndex = Math.max(0, SEQ_LENS.indexOf(c.n));
  return (
    <div class="controls">
      <div class="segmented" role="radiogroup" aria-label="GPU">
        {GPUS.map((g) => (
          <button key={g.id} type="button" role="radio" aria-checked={c.gpu === g.id} class={c.gpu === g.id ? 'selected' : ''}
            onClick={() => configure({ gpu: g.id })} title={`${g.label}: numbers from the core's '${g.id}' preset`}>{g.label}</button>
        ))}
      </div>
      <div class="segmented mode" role="radiogroup" aria-label="Algorithm">
        {MODES.map((m) => (
          <button key={m.id} type="button" role="radio" aria-checked={c.mode === m.id} data-mode={m.id}
            class={c.mode === m.id ? 'selected' : ''} onClick={() => configure({ mode: m.id })}>{m.label}</button>
        ))}
      </div>
      <label class="slider">
        <span>N = <output data-testid="n">{c.n.toLocaleString('en-US')}</output></span>
        <input type="range" min={0} max={SEQ_LENS.length - 1} step={1} value={String(nIndex)} aria-label="Sequence length N"
          aria-valuetext={`N = ${c.n}`} onInput={(e) => configure({ n: SEQ_LENS[Number(e.currentTarget.value)] })} />
      </label>
      <label class="field">d <NumberSelect value={c.d} label="Head dimension d" choices={HEAD_DIMS} onChange={(d) => configure({ d })} /></label>
      <button type="button" class="more-toggle" aria-expanded={more} onClick={() => setMore(!more)}>More</button>
      <div class={more ? 'secondary open' : 'secondary'}>
        <label class="field">heads <input type="number" min={1} max={4096} value={String(c.heads)} aria-label="Attention heads"
          onChange={(e) => configure({ heads: Number(e.currentTarget.value) })} /></label>
        <span class="fixed">batch 1 · FP16 · forward</span>
      </div>
    </div>
  );
}
