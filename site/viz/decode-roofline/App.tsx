// Why decoding is memory-bound: one decode step's arithmetic intensity under every K/V sharing from
// MHA to MQA and under MLA, on the roofline of a GPU preset, with the time-per-output-token floor that
// the bytes it reads set. Every number from the core's decodeRoofline.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { fmtBytes, fmtInt, fmtSeconds } from '../shared/format';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { Segmented } from '../shared/Segmented';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { BATCH_STOPS, CONTEXT_STOPS, fmtFlops, fmtIntensity, MODELS, nearestIndex } from './model';
import { narration, stepLabels } from './narration';
import { MLA_POINT, POINT, Roofline } from './Roofline';
import type { FigureState } from './state';

// Below 640 px every stop is a 44 px target: more than seven do not fit a phone's row.
const PHONE = window.matchMedia('(max-width: 640px)');
const LOOK_FOR = 'the decode step sits far left of the ridge: each byte read feeds only a few FLOPs. Step through the group sizes with →, then raise the batch.';

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper, configure, modelNames } = state;
  const f = figure.value;
  const step = stepper.step.value;
  const v = f.variants[step], s = v.step;
  return (
    <div class="viz decode-roofline flow">
      <header class="viz-header">
        <h1>Why decoding is memory-bound</h1>
      </header>
      <div class="controls">
        <label class="field pick">
          <span>Model</span>
          <select aria-label="Model" value={f.config.model} onChange={(e) => configure({ model: e.currentTarget.value })}>
            {MODELS.map((id) => <option key={id} value={id}>{modelNames[id]}</option>)}
          </select>
        </label>
        <label class="field pick">
          <span>GPU</span>
          <select aria-label="GPU" value={f.config.gpu} onChange={(e) => configure({ gpu: e.currentTarget.value })}>
            {f.roofs.map((r) => <option key={r.gpu.id} value={r.gpu.id}>{r.gpu.name}</option>)}
          </select>
        </label>
        <label class="slider">
          <span>Context <output data-testid="context">{fmtInt(f.config.context)}</output> tokens</span>
          <input type="range" aria-label="Context tokens" min={0} max={CONTEXT_STOPS.length - 1} step={1}
            value={String(nearestIndex(CONTEXT_STOPS, f.config.context))} aria-valuetext={`${fmtInt(f.config.context)} tokens`}
            onInput={(e) => configure({ context: CONTEXT_STOPS[Number(e.currentTarget.value)] })} />
        </label>
        <label class="slider">
          <span>Batch <output data-testid="batch">{f.config.batch}</output> requests</span>
          <input type="range" aria-label="Batch" min={0} max={BATCH_STOPS.length - 1} step={1}
            value={String(nearestIndex(BATCH_STOPS, f.config.batch))} aria-valuetext={`${f.config.batch} requests`}
            onInput={(e) => configure({ batch: BATCH_STOPS[Number(e.currentTarget.value)] })} />
        </label>
        <Fold more="Bytes" fewer="Hide bytes" class="secondary">
          <div class="field">
            <span>Bytes read per step</span>
            <Segmented label="Bytes counted per step" value={f.config.weights ? 'yes' : 'no'}
              choices={[{ value: 'yes', text: 'KV + weights' }, { value: 'no', text: 'KV only' }]}
              onChange={(w) => configure({ weights: w === 'yes' })} />
          </div>
        </Fold>
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          { swatch: colors.text, label: `${f.roofs.find((r) => r.gpu.id === f.config.gpu)!.gpu.name} roof and ridge` },
          { swatch: colors.muted, label: 'other GPU presets' },
          { swatch: POINT, label: 'one decode step: MHA → GQA → MQA' },
          { swatch: MLA_POINT, label: 'MLA' },
          { swatch: colors.text, label: 'the attention alone (intensity = group size at FP16)', outline: true },
        ]} />
      </Fold>

      <Roofline fig={f} step={step} />

      <dl class="readout" data-testid="readout">
        <div><dt>{v.label}: intensity</dt><dd data-testid="intensity">{fmtIntensity(s.arithmeticIntensity)} FLOP/B</dd></div>
        <div class="wide-only"><dt>Attainable ({s.bound}-bound)</dt><dd data-testid="attainable">{fmtFlops(s.attainableFlopsPerS)}</dd></div>
        <div class="wide-only"><dt>Bytes read per step</dt><dd data-testid="bytes">{fmtBytes(s.bytesRead)}</dd></div>
        <div><dt>TPOT floor: bytes ÷ {(s.hbmBytesPerS / 1e12).toFixed(2)} TB/s</dt><dd data-testid="tpot">{fmtSeconds(s.memoryTimeS)}</dd></div>
      </dl>
      <p class="note" data-testid="note">
        {f.config.weights ? `Bytes: the batch's KV cache (${fmtBytes(s.kvBytesRead)}) plus ${fmtInt(s.weightParameters)} weights × 2 B (${fmtBytes(s.weightBytesRead)}), read once for the batch${f.totalParameters ? ` (a mixture of experts: one token’s active weights of ${fmtInt(f.totalParameters)}, a lower bound)` : ''}. `
          : 'Bytes: the KV cache alone; the weights are not counted. '}
        FP16, dense peak; not counted: writing the new token's K/V, softmax. {s.fits ? '' : `This batch does not fit in the GPU's ${fmtBytes(s.hbmCapacityBytes)} (${fmtBytes(s.footprintBytes)}).`}
      </p>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(f, step)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={stepLabels(f)} stops={f.variants.length <= 7 || !PHONE.matches} />
      </footer>
    </div>
  );
}
