// The configuration: GPU and standard/flash always in view with the N slider; d beside them;
// heads behind "More controls" on narrow screens.
import { MoreControls } from '../shared/MoreControls';
import { NumberSelect } from '../shared/NumberSelect';
import { Segmented } from '../shared/Segmented';
import { GPUS, HEAD_DIMS, SEQ_LENS, type Mode } from './model';
import type { FigureState } from './state';
import { fmtInt } from '../shared/format';

const MODES: { value: Mode; text: string }[] = [
  { value: 'standard', text: 'Standard attention' },
  { value: 'flash', text: 'FlashAttention' },
];

// The N range and the heads input take their values as strings (see shared/NumberSelect).
export function Controls({ state }: { state: FigureState }) {
  const { figure, configure } = state;
  const c = figure.value.config;
  const nIndex = Math.max(0, SEQ_LENS.indexOf(c.n));
  return (
    <div class="controls">
      <Segmented label="GPU" value={c.gpu} onChange={(gpu) => configure({ gpu })}
        choices={GPUS.map((g) => ({ value: g.id, text: g.label, title: `${g.label}: numbers from the core's '${g.id}' preset` }))} />
      <Segmented label="Algorithm" class="segmented mode" value={c.mode} onChange={(mode) => configure({ mode })} choices={MODES} />
      <label class="slider">
        <span>N = <output data-testid="n">{fmtInt(c.n)}</output></span>
        <input type="range" min={0} max={SEQ_LENS.length - 1} step={1} value={String(nIndex)} aria-label="Sequence length N"
          aria-valuetext={`N = ${c.n}`} onInput={(e) => configure({ n: SEQ_LENS[Number(e.currentTarget.value)] })} />
      </label>
      <MoreControls>
        <label class="field">d <NumberSelect value={c.d} label="Head dimension d" choices={HEAD_DIMS} onChange={(d) => configure({ d })} /></label>
        <label class="field">heads <input type="number" min={1} max={4096} value={String(c.heads)} aria-label="Attention heads"
          onChange={(e) => configure({ heads: Number(e.currentTarget.value) })} /></label>
        <span class="fixed">batch 1 · FP16 · forward</span>
      </MoreControls>
    </div>
  );
}
