// Additive, dot-product and scaled dot-product scores side by side as d_k grows from 4 to 512:
// the core's sqrt(d_k) experiment shows the unscaled scores' variance growing like d_k, their
// softmax saturating onto one key and the gradient through it vanishing, while dividing by sqrt(d_k)
// keeps all three steady.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { METHOD_COLORS } from './colors';
import { Drawing } from './Drawing';
import { DIMS, NUM_KEYS, stepLabels } from './model';
import { narration } from './narration';
import type { FigureState } from './state';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'the red dot-product bars collapsing onto one key as d_k grows, and its gradient line falling to 0, while the scaled (green) one stays put. Press Play or step d_k up with →.';

export function App({ state }: { state: FigureState }) {
  const { stepper, example, error, resample } = state;
  const ex = example.value;
  const step = stepper.step.value;
  return (
    <div class="viz scoring-functions">
      <header class="viz-header">
        <h1>Why scaled dot-product attention divides by √d_k</h1>
        <div class="seed">
          <span>d_k <output data-testid="dk">{DIMS[step]}</output></span>
          <span>seed <output data-testid="seed">{ex.seed}</output></span>
          <button type="button" onClick={resample} title="Draw a new query, new keys and new additive weights from the next seed">Resample</button>
        </div>
      </header>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          { swatch: METHOD_COLORS.additive, label: 'additive (Bahdanau)' },
          { swatch: METHOD_COLORS.dot, label: 'dot product' },
          { swatch: METHOD_COLORS.scaled, label: 'scaled dot product' },
          { swatch: colors.active, label: 'd_k shown' },
          { swatch: colors.muted, label: `bars: softmax weights of ${NUM_KEYS} keys, one draw (top key labelled)` },
        ]} />
      </Fold>

      <Drawing example={ex} step={step} />

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(ex, step)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={stepLabels} />
      </footer>
    </div>
  );
}
