// The attention-pattern zoo: six ways of choosing which query-key scores to compute, side by side
// at one N, each drawn from the core's density image and counted by the core's cost model. Play or
// Step walks through the six, explaining one at a time; hovering, tapping or focusing a cell does too.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { CELL_COLOR } from './draw';
import { HEAD_DIM, N_CHOICES, PIXELS } from './model';
import { explain, LOOK_FOR } from './narration';
import type { FigureState } from './state';
import { Zoo } from './Zoo';
import { fmtInt } from '../shared/format';

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper, configure } = state;
  const f = figure.value;
  const step = stepper.step.value;
  const index = N_CHOICES.indexOf(f.config.n as (typeof N_CHOICES)[number]);
  // Hover, tap or focus explains the cell at once, even the first one while the figure is fresh.
  const pick = (i: number) => { stepper.playing.value = false; stepper.seek(i); stepper.fresh.value = false; };
  return (
    <div class="viz pattern-zoo">
      <header class="viz-header">
        <h1>Which scores each pattern computes</h1>
      </header>
      <div class="controls">
        <label class="slider">
          <span>Sequence length N <output data-testid="n">{fmtInt(f.config.n)}</output></span>
          <input type="range" min="0" max={String(N_CHOICES.length - 1)} step="1" value={String(index)}
            aria-valuetext={`N = ${f.config.n}`} onInput={(e) => configure({ n: N_CHOICES[Number(e.currentTarget.value)] })} />
        </label>
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          { swatch: CELL_COLOR, label: 'scores computed (brighter: a larger share of the pixel’s pairs)' },
          { swatch: colors.border, label: 'skipped', outline: true },
          { swatch: colors.active, label: 'the pattern explained below', outline: true },
        ]} />
        <p class="note">Each image is the N × N score matrix (queries down, keys across) at {PIXELS} × {PIXELS} pixels, one head,
          d = {HEAD_DIM}; memory is the scores kept at FP16 (Reformer and Linformer: their whole working set), as the core counts them.</p>
      </Fold>

      <Zoo figure={f} current={step} onPick={pick} />

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => explain(f, f.cells[step])} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={f.cells.map((c) => c.short)} stops />
      </footer>
    </div>
  );
}
