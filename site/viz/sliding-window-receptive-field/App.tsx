// Sliding-window attention's receptive field: how far position 0's information travels up a stack
// of layers that each see only the W most recent positions, from the core's mask propagation.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { LAYERS, stepLabels, WINDOW } from './model';
import { narration } from './narration';
import { Stack } from './Stack';
import type { FigureState } from './state';
import { fmtInt } from '../shared/format';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'how far position 0’s information climbs: each layer adds W − 1 positions. Press Play or step with →.';

function Slider({ label, value, range, onChange }: {
  label: string; value: number; range: { min: number; max: number }; onChange: (v: number) => void;
}) {
  return (
    <label class="slider">
      <span>{label} <output>{value}</output></span>
      <input type="range" min={range.min} max={range.max} step={1} value={String(value)}
        onInput={(e) => onChange(Number(e.currentTarget.value))} />
    </label>
  );
}

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper, configure, mistral } = state;
  const f = figure.value;
  const step = stepper.step.value;
  const { layers, window } = f.config;
  return (
    <div class="viz sliding-window">
      <header class="viz-header">
        <h1>How far a sliding window reaches</h1>
      </header>
      <div class="controls">
        <Slider label="Layers L" value={layers} range={LAYERS} onChange={(v) => configure({ layers: v })} />
        <Slider label="Window W" value={window} range={WINDOW} onChange={(v) => configure({ window: v })} />
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          { swatch: colors.active, label: 'reached by position 0 in this layer' },
          { swatch: colors.sram, label: 'reached in an earlier layer' },
          { swatch: colors.border, label: 'not reached' },
        ]} />
      </Fold>

      <Stack figure={f} step={step} />

      <dl class="readout" data-testid="readout">
        <div>
          <dt>Reach after {step} of {layers} layers</dt>
          <dd data-testid="reach">{f.frontier[step]} tokens</dd>
        </div>
        <div>
          <dt>Whole stack, from the mask: L (W − 1)</dt>
          <dd data-testid="reach-mask">{layers} × {window - 1} = {f.reachTokens}</dd>
        </div>
        <div>
          <dt>Mistral's wording: L × W</dt>
          <dd data-testid="reach-paper">{layers} × {window} = {f.paperReachTokens}</dd>
        </div>
      </dl>
      <Fold more="Why L × W?" fewer="Hide why">
        <p class="why" data-testid="why">
          The two differ by one position per layer: this window counts the W keys a position sees, itself
          included, so it looks W − 1 back; the Mistral 7B paper counts the window as positions i − W to i.
          At Mistral's scale ({mistral.layers} layers, W = {fmtInt(mistral.window)}) that is {fmtInt(mistral.reachTokens)} versus {fmtInt(mistral.paperReachTokens)} tokens.
        </p>
      </Fold>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(f, step)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={stepLabels(layers)} stops={layers <= 4} />
      </footer>
    </div>
  );
}
