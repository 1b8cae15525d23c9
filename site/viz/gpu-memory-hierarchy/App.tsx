// The GPU memory hierarchy and why attention is memory-bound: registers, SRAM, L2, HBM and host
// memory with the preset's capacities and bandwidths (and their sources), the bandwidth gap between
// the links drawn on a log scale with the SRAM/HBM and HBM/PCIe ratios, and one attention forward
// played against a stopwatch: standard attention sends S and P through HBM and back, FlashAttention
// keeps them on chip. Every number comes from the core's cost model. Only the components that
// draw the clock read it, so playback re-renders them and not the whole figure.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { useState } from 'preact/hooks';
import { Controls } from './Controls';
import { Diagram } from './Diagram';
import { Gap } from './Gap';
import { Levels } from './Levels';
import { fmtDecimal, STANDARD_DOTS } from './model';
import { Narration } from './narration';
import type { FigureState } from './state';
import { Stopwatch } from './Stopwatch';

export function App({ state }: { state: FigureState }) {
  const { figure, error, clock } = state;
  const fig = figure.value;
  const [activeLevel, setActiveLevel] = useState('hbm');
  return (
    <div class={`viz hierarchy flow mode-${fig.config.mode}`}>
      <header class="viz-header">
        <h1>The GPU memory hierarchy: why attention waits on HBM</h1>
      </header>
      <Controls state={state} />
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      {/* Wide: the legend over the drawing, the levels beside it (grid areas in style.css). Phone:
          the legend and the levels fold behind toggles in one row, and the drawing, the stopwatch
          and the narration fill the frame. The bandwidth lanes fold at every width. */}
      <div class="fold-row">
        <Fold more="Legend" fewer="Hide legend" class="panel-fold key">
          <Legend items={[
            { swatch: colors.hbm, label: 'S or P crossing the HBM link' },
            { swatch: colors.active, label: 'Q, K, V or O crossing it' },
            { swatch: colors.sram, label: 'SM computing (share = tensor-core busy time)' },
            { swatch: colors.muted, label: 'Bandwidth lanes: length and dot speed ∝ log₁₀ of the link’s bandwidth' },
          ]} />
          <p class="scale-note">Each dot ≈ {fmtDecimal(fig.standard.hbmBytes / STANDARD_DOTS, 'B')}: the number of dots is proportional to the bytes the cost model counts; one stopwatch turn is the standard run.</p>
        </Fold>
        <Fold more="Levels" fewer="Hide levels" class="panel-fold levels-fold">
          <Levels fig={fig} active={activeLevel} onLevel={setActiveLevel} />
        </Fold>
        <Fold always more="Bandwidths" fewer="Hide bandwidths" class="panel-fold">
          <Gap fig={fig} active={activeLevel} onLevel={setActiveLevel} />
        </Fold>
      </div>
      <section class="stage">
        <Diagram fig={fig} clock={clock} activeLevel={activeLevel} onLevel={setActiveLevel} />
        <Stopwatch fig={fig} clock={clock} />
      </section>
      <Narration fig={fig} clock={clock} />
      <footer class="viz-footer">
        <PlayControls stepper={clock} />
        <TimelineScrubber stepper={clock} labels={[]} />
      </footer>
    </div>
  );
}
