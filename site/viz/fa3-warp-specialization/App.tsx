// FlashAttention-3's warp specialization on one Hopper SM: a producer warpgroup feeding K and V
// tiles through TMA, consumer warpgroups running GEMM0, softmax and GEMM1 per key block, under the
// synchronous schedule or FA3's overlapping ones. The timeline and every number come from the
// core's fa3Pipeline model (FA3 §3.1-3.2).
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { Controls } from './Controls';
import type { Figure } from './model';
import { narration } from './narration';
import type { FigureState } from './state';
import { Stats } from './Stats';
import { Timeline } from './Timeline';
import { Narration } from '../shared/Narration';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'under ping-pong, one warpgroup’s softmax running beneath the other’s GEMMs. Press Play or step with →.';

// The parts that follow the step, the timeline's cursor and the narration, in a component of their
// own: a step re-renders them alone, not the controls, the legend and the numbers.
function Run({ fig, stepper }: { fig: Figure; stepper: FigureState['stepper'] }) {
  const step = Math.min(stepper.step.value, fig.events.length - 1);
  return (
    <>
      <Timeline fig={fig} cursorS={fig.events[step]} />
      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(fig, step)} />
    </>
  );
}

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper } = state;
  const fig = figure.value;
  return (
    <div class="viz fa3">
      <header class="viz-header">
        <h1>FlashAttention-3: warp specialization and ping-pong scheduling on one SM</h1>
      </header>
      <Controls state={state} />
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <div class="body">
        <section class="chart">
          <Fold more="Legend" fewer="Hide legend" class="panel-fold">
            <Legend items={[
              { swatch: colors.active, label: 'TMA load of K or V (producer)' },
              { swatch: colors.sram, label: 'GEMM on tensor cores' },
              { swatch: colors.heads[0], label: 'softmax exponentials' },
              { swatch: colors.textMuted, label: 'half-height bar: unit shared by consumers in lockstep', outline: true },
              { swatch: `linear-gradient(${colors.sram} 0 50%, ${colors.heads[0]} 50% 100%)`, label: 'split bar: two ops of one warpgroup at once' },
            ]} />
          </Fold>
          <Run fig={fig} stepper={stepper} />
        </section>
        <Fold more="Numbers" fewer="Hide numbers" class="panel-fold"><Stats fig={fig} /></Fold>
      </div>
      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={[]} />
      </footer>
    </div>
  );
}
