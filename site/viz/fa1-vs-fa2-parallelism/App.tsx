// FlashAttention-1 vs FlashAttention-2 parallelism: the same forward launch partitioned into thread
// blocks both ways and scheduled on the GPU's SMs by the core's work-list model. At batch 1 FA1 has
// one block per head and leaves most SMs idle; FA2 also splits the sequence and fills them; at
// large batch the two converge.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { Controls } from './Controls';
import { BLOCK, fmtTime, pairColor } from './model';
import { Narration } from './narration';
import { Panel } from './Panel';
import type { FigureState } from './state';

export function App({ state }: { state: FigureState }) {
  const { figure, error, clock } = state;
  const fig = figure.value;
  const heads = fig.config.heads;
  return (
    <div class="viz parallelism flow">
      <header class="viz-header">
        <h1>FA1 vs FA2: who keeps the SMs busy?</h1>
      </header>
      <Controls state={state} />
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend" class="panel-fold">
        <Legend items={[
          { swatch: pairColor(0, 0, heads), label: 'thread block, coloured by its (batch, head)' },
          { swatch: pairColor(0, 1, heads), label: 'another (batch, head)' },
          { swatch: '#262626', label: 'idle SM' },
          { swatch: '#93c5fd', label: 'playhead', outline: true },
          { swatch: '#e5e5e5', label: 'end of the launch', outline: true },
        ]} />
        <p class="axis-note">Each timeline has a row per SM; time runs left to right in K/V tiles ({BLOCK} × {BLOCK}) computed by one SM, on one axis for both. Predicted times: the roofline time of the launch with every SM busy ({fmtTime(fig.roofline.timeS)}, predictAttention) ÷ the SM utilisation.</p>
      </Fold>
      <div class="timelines" data-drawing>
        <Panel fig={fig} s={fig.fa1} clock={clock} />
        <Panel fig={fig} s={fig.fa2} clock={clock} />
      </div>
      <Narration fig={fig} clock={clock} />
      <footer class="viz-footer">
        <PlayControls stepper={clock} />
        <TimelineScrubber stepper={clock} labels={[]} />
      </footer>
    </div>
  );
}
