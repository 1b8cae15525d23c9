// FlashAttention-1 vs FlashAttention-2 parallelism: the same forward launch partitioned into thread
// blocks both ways and scheduled on the GPU's SMs by the core's work-list model. At batch 1 FA1 has
// one block per head and leaves most SMs idle; FA2 also splits the sequence and fills them; at
// large batch the two converge.
import { useMemo } from 'preact/hooks';
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

// The parts of the figure read the state they show themselves (the signals subscribe each one), so
// a new launch re-renders the controls, the key, the panels and the narration, and leaves the header
// and the play controls, which follow the clock on their own, as they are.
export function App({ state }: { state: FigureState }) {
  const { clock } = state;
  return (
    <div class="viz parallelism flow">
      <header class="viz-header">
        <h1>FA1 vs FA2: who keeps the SMs busy?</h1>
      </header>
      <Controls state={state} />
      <Errors state={state} />
      <Key state={state} />
      <Panels state={state} />
      <FigureNarration state={state} />
      <footer class="viz-footer">
        <PlayControls stepper={clock} />
        <TimelineScrubber stepper={clock} labels={NO_LABELS} />
      </footer>
    </div>
  );
}

const NO_LABELS: string[] = [];

function Errors({ state: { error } }: { state: FigureState }) {
  return <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />;
}

// The key: its swatches follow the head count, its note the launch's roofline time; the same
// element (same vnode) while neither changes tells Preact to skip it.
function Key({ state }: { state: FigureState }) {
  const fig = state.figure.value;
  const heads = fig.config.heads, rooflineS = fig.roofline.timeS;
  return useMemo(() => (
    <Fold more="Legend" fewer="Hide legend" class="panel-fold">
      <Legend items={[
        { swatch: pairColor(0, 0, heads), label: 'thread block, coloured by its (batch, head)' },
        { swatch: pairColor(0, 1, heads), label: 'another (batch, head)' },
        { swatch: '#262626', label: 'idle SM' },
        { swatch: '#93c5fd', label: 'playhead', outline: true },
        { swatch: '#e5e5e5', label: 'end of the launch', outline: true },
      ]} />
      <p class="axis-note">Each timeline has a row per SM; time runs left to right in K/V tiles ({BLOCK} × {BLOCK}) computed by one SM, on one axis for both. Predicted times: the roofline time of the launch with every SM busy ({fmtTime(rooflineS)}, predictAttention, which counts the original FlashAttention's HBM traffic for both sides, so that only the partition differs) ÷ the SM utilisation.</p>
    </Fold>
  ), [heads, rooflineS]);
}

function Panels({ state: { figure, clock } }: { state: FigureState }) {
  const fig = figure.value;
  return (
    <div class="timelines" data-drawing>
      <Panel fig={fig} s={fig.fa1} clock={clock} />
      <Panel fig={fig} s={fig.fa2} clock={clock} />
    </div>
  );
}

function FigureNarration({ state: { figure, clock } }: { state: FigureState }) {
  return <Narration fig={figure.value} clock={clock} />;
}
