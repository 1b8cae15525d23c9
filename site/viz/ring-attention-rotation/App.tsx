// Ring attention's rotation: P devices keep their query shards and pass K/V shards round a ring;
// each step's compute overlaps the send of the shard onward, on a time axis from the core's timing
// model, and each device merges the shards' softmax states exactly (traced by the core).
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Narration } from '../shared/Narration';
import { NumberSelect } from '../shared/NumberSelect';
import { PlayControls } from '../shared/PlayControls';
import { Segmented } from '../shared/Segmented';
import { fmt, fmtBytes, fmtInt, fmtSeconds } from '../shared/format';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { MergeTable } from './MergeTable';
import { DEVICES, fmtGBs, fmtTokens, GPU_NAME, LINKS_GBS, PRECISION_NAME, SEQ_LENS, stepLabels, TRACE_HEAD_DIM, type Figure } from './model';
import { fmtError, narration } from './narration';
import { Ring } from './Ring';
import type { FigureState } from './state';
import { Timeline } from './Timeline';

const n = (x: number) => fmtInt(Math.round(x));
// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'whether each orange send fits under its blue compute bar: then the ring costs no more than the compute. Press Play or step with →.';

function Readout({ f, step }: { f: Figure; step: number }) {
  const { timing, config } = f;
  const s0 = f.steps[0], hidden = s0.compute >= s0.send;
  const saved = 1 - timing.ringTimeS / timing.allgatherTimeS;
  return (
    <dl class="readout" data-testid="readout">
      <div>
        <dt>One rotation: ring vs all-gather</dt>
        <dd data-testid="total">{fmtSeconds(timing.ringTimeS)} vs {fmtSeconds(timing.allgatherTimeS)} <span class="sub">({fmt(100 * saved, 0)}% less; K/V per GPU {fmtBytes(timing.ringKvBytesPerDevice)} vs {fmtBytes(timing.allgatherKvBytesPerDevice)})</span></dd>
      </div>
      <div>
        <dt>Overlap: compute ≥ transfer per step?</dt>
        <dd data-testid="overlap" class={hidden ? 'ok' : 'bad'}>
          {fmtSeconds(s0.compute)} {hidden ? '≥' : '<'} {fmtSeconds(s0.send)}: {hidden ? 'hidden' : 'exposed'}{' '}
          <span class="sub">(shard {n(f.shardTokens)} {f.shardTokens >= timing.minShardTokensToHide ? '≥' : '<'} F·H<sub>kv</sub>·e / (2·H<sub>q</sub>·B) = {n(timing.minShardTokensToHide)} tokens at {config.linkGBs} GB/s)</span>
        </dd>
      </div>
      <div>
        <dt>Merged output vs dense (N = {f.traceLen}, d = {TRACE_HEAD_DIM})</dt>
        <dd data-testid="error">{step >= config.devices ? <>max error {fmtError(f.trace.maxAbsError)}</> : <span class="sub">after step {config.devices}</span>}</dd>
      </div>
    </dl>
  );
}

// The parts that show the step read the clock themselves, so that a step re-renders them and not
// the controls, the note and the frame around them.
const RingAtStep = ({ state }: { state: FigureState }) => <Ring figure={state.figure.value} step={state.clock.step.value} />;
const ReadoutAtStep = ({ state }: { state: FigureState }) => <Readout f={state.figure.value} step={state.clock.step.value} />;
const MergeAtStep = ({ state }: { state: FigureState }) => <MergeTable figure={state.figure.value} step={state.clock.step.value} />;

export function App({ state }: { state: FigureState }) {
  const { figure, error, clock, configure } = state;
  const f = figure.value;
  const c = f.config;
  return (
    <div class="viz ring-rotation">
      <header class="viz-header">
        <h1>Ring attention: K/V travels, compute hides the transfer</h1>
      </header>
      <div class="controls">
        <label class="field">N <NumberSelect value={c.seqLen} label="Sequence length N" choices={SEQ_LENS} format={fmtTokens}
          onChange={(seqLen) => configure({ seqLen })} /></label>
        <label class="field">link <NumberSelect value={c.linkGBs} label="Link bandwidth per direction, your assumption" choices={LINKS_GBS}
          format={fmtGBs} onChange={(linkGBs) => configure({ linkGBs })} /><span class="assumed" title="Device-to-device bandwidth per direction: pick what your interconnect gives; not a sourced figure">assumed</span></label>
        <Segmented label="Devices" value={String(c.devices)} onChange={(d) => configure({ devices: Number(d) })}
          choices={Array.from({ length: DEVICES.max - DEVICES.min + 1 }, (_, i) => String(DEVICES.min + i)).map((v) => ({ value: v, text: v, title: `${v} devices` }))} />
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <div class="stage">
        <Fold more="Show the ring" fewer="Hide the ring" class="ring-fold">
          <RingAtStep state={state} />
        </Fold>
        <Timeline figure={f} clock={clock} />
      </div>
      <p class="model-note">One attention layer of {f.head.name} ({f.head.qHeads} query heads, {f.head.kvHeads} K/V heads, d = {f.head.headDim}, {PRECISION_NAME}) on {GPU_NAME}s at peak; the link bandwidth is your assumption, not a sourced figure. The merge below is computed exactly on a small seeded stand-in.</p>
      <div class="lower">
        <ReadoutAtStep state={state} />
        <Fold more="Merge of one query" fewer="Hide the merge" class="merge-fold">
          <MergeAtStep state={state} />
        </Fold>
      </div>
      <Narration stepper={clock} lookFor={LOOK_FOR} text={() => narration(f, clock.step.value)} />
      <footer class="viz-footer">
        <PlayControls stepper={clock} />
        <TimelineScrubber stepper={clock} labels={stepLabels(c.devices)} stops={c.devices <= 4} />
      </footer>
    </div>
  );
}
