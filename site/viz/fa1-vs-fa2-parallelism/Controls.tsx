// The launch: GPU and batch size always in view; heads, N, d and causal behind "More controls" on narrow
// screens.
import { fmtInt } from '../shared/format';
import { MoreControls } from '../shared/MoreControls';
import { NumberSelect } from '../shared/NumberSelect';
import { Segmented } from '../shared/Segmented';
import { GPUS, HEAD_DIMS, HEADS, maxBatch, SEQ_LENS, withinLimit } from './model';
import type { FigureState } from './state';

// The batch range takes its value as a string (see shared/NumberSelect). Each control offers only
// what the core accepts with the other settings as they are (model.ts: MAX_WORK_BLOCKS).
export function Controls({ state }: { state: FigureState }) {
  const { figure, configure } = state;
  const c = figure.value.config;
  return (
    <div class="controls">
      <Segmented label="GPU" value={c.gpu} onChange={(gpu) => configure({ gpu })}
        choices={GPUS.map((g) => ({ value: g.id, text: g.label, title: `${g.label}: SM count from the core's '${g.id}' preset` }))} />
      <label class="slider">
        <span>batch <output data-testid="batch">{c.batch}</output></span>
        <input type="range" min={1} max={maxBatch(c)} step={1} value={String(c.batch)} aria-label="Batch size"
          onInput={(e) => configure({ batch: Number(e.currentTarget.value) })} />
      </label>
      <MoreControls>
        <label class="field">heads <NumberSelect value={c.heads} label="Heads" onChange={(heads) => configure({ heads })}
          choices={HEADS.filter((heads) => withinLimit(c, { heads }))} /></label>
        <label class="field">N <NumberSelect value={c.n} label="Sequence length N" onChange={(n) => configure({ n })}
          choices={SEQ_LENS.filter((n) => withinLimit(c, { n }))} format={fmtInt} /></label>
        <label class="field">d <NumberSelect value={c.d} label="Head dimension d" choices={HEAD_DIMS} onChange={(d) => configure({ d })} /></label>
        <label class="field check"><input type="checkbox" checked={c.causal} onChange={(e) => configure({ causal: e.currentTarget.checked })} /> causal</label>
      </MoreControls>
    </div>
  );
}
