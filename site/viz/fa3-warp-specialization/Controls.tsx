// The configuration: the schedule (the figure's main toggle) always in view; GPU, precision and
// head dim next to it; consumers and key blocks behind "More controls" on narrow screens.
import { MoreControls } from '../shared/MoreControls';
import { NumberSelect } from '../shared/NumberSelect';
import { Segmented } from '../shared/Segmented';
import { GPUS, HEAD_DIMS, PRECISIONS, SCHEDULES } from './model';
import type { FigureState } from './state';

// The key-blocks input takes its value as a string (see shared/NumberSelect).
export function Controls({ state }: { state: FigureState }) {
  const { figure, configure } = state;
  const c = figure.value.config;
  return (
    <div class="controls">
      <Segmented label="Schedule" class="schedules" value={c.schedule} onChange={(schedule) => configure({ schedule })}
        choices={SCHEDULES.map((s) => ({ value: s.name, text: s.label }))} />
      <div class="settings">
        <label>GPU <select value={c.gpu} onChange={(e) => configure({ gpu: e.currentTarget.value })}>
          {GPUS.map((g) => <option key={g.id} value={g.id}>{g.label}</option>)}
        </select></label>
        <label>Head dim <NumberSelect value={c.headDim} choices={HEAD_DIMS} onChange={(headDim) => configure({ headDim })} /></label>
        <MoreControls>
          <label>Precision <select value={c.precision} onChange={(e) => configure({ precision: e.currentTarget.value as (typeof PRECISIONS)[number] })}>
            {PRECISIONS.map((p) => <option key={p} value={p}>{p.toUpperCase()}</option>)}
          </select></label>
          <label>Consumers <NumberSelect value={c.consumers} choices={[2, 3, 4]} onChange={(consumers) => configure({ consumers })} /></label>
          <label>Key blocks <input type="number" min={1} max={64} value={String(c.iterations)}
            onChange={(e) => configure({ iterations: Number(e.currentTarget.value) })} /></label>
        </MoreControls>
      </div>
    </div>
  );
}
