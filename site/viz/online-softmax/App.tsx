// Online softmax, one tile at a time: the state (m, l, O) of one query row as FlashAttention
// folds in two tiles of four keys, then the comparison with the dense softmax.
import { EquationCallout } from '../shared/EquationCallout';
import { ErrorBanner } from '../shared/ErrorBanner';
import { fmt } from '../shared/format';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { Comparison } from './Comparison';
import { STEP_LABELS } from './model';
import { narration } from './narration';
import { ScoreStrip } from './ScoreStrip';
import type { FigureState } from './state';
import { StatePanel } from './StatePanel';
import updateL from './update-l.tex?formula';
import updateM from './update-m.tex?formula';
import updateO from './update-o.tex?formula';
import { Narration } from '../shared/Narration';

const MAX_SEED = 4294967295;

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'm, ℓ and the rescale factor as each tile of four keys is folded in. Step with → or press Play.';

export function App({ state }: { state: FigureState }) {
  const { stepper, example, error, loadSeed } = state;
  const ex = example.value;
  const step = stepper.step.value;
  const cur = ex.steps[step];
  const prev = ex.steps[Math.max(step - 1, 0)];
  const vec = (a: Float32Array) => `(${Array.from(a, (x) => fmt(x)).join(', ')})`;

  return (
    <div class="viz online-softmax flow">
      <header class="viz-header">
        <h1>Online softmax, one tile at a time</h1>
        <Fold more="Legend" fewer="Hide legend" class="panel-fold">
          <Legend items={[
            { swatch: colors.active, label: 'tile being folded in', outline: true },
            { swatch: colors.sram, label: 'weight e^(s − m) in the tile' },
            { swatch: colors.muted, label: 'weight held in ℓ, rescaled as m grows' },
            { swatch: colors.heads[0], label: 'dense softmax p (finish)' },
          ]} />
        </Fold>
        <div class="seed">
          <span>seed <output data-testid="seed">{ex.seed}</output></span>
          <button type="button" onClick={() => loadSeed((ex.seed % MAX_SEED) + 1)} title="Draw new random q, K and V from the next seed">
            New numbers
          </button>
        </div>
      </header>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />

      <ScoreStrip ex={ex} step={step} />

      <div class="panels">
        <StatePanel cur={cur} prev={prev} step={step} />
        <Fold more="Equations" fewer="Hide equations" class="panel-fold">
          <div class="equations">
            {cur.kind === 'tile' ? (
              <>
                <EquationCallout formula={updateM} values={{ mold: fmt(prev.m[0]), tilemax: fmt(Math.max(...cur.scores)), mnew: fmt(cur.m[0]) }} />
                <EquationCallout formula={updateL} values={{ alpha: fmt(cur.rescale[0]), lold: fmt(prev.l[0]), lnew: fmt(cur.l[0]) }} />
                <EquationCallout formula={updateO} values={{ onew: vec(cur.output) }} />
              </>
            ) : cur.kind === 'load_q' ? (
              <p class="note">Before any key is seen: m = −∞, ℓ = 0 and O = 0. Only one tile of keys (4 of the 8) is ever held at once.</p>
            ) : (
              <Comparison ex={ex} />
            )}
          </div>
        </Fold>
      </div>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(ex, step)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={STEP_LABELS} />
      </footer>
    </div>
  );
}
