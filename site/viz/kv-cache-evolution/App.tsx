// How the KV cache shrank from MHA to MQA, GQA and MLA: one token in one layer as each scheme caches
// it, and what one request needs at a context against an H100's memory, from the core's cache sizes.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { fmtBytes, fmtInt } from '../shared/format';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { Segmented } from '../shared/Segmented';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { FitChart } from './FitChart';
import { CONTEXT_STOPS, fmtTokens, MODELS, nearestStop, SCHEME_NAMES } from './model';
import { fitText, narration, stepLabels } from './narration';
import type { FigureState } from './state';
import { SCHEME_COLORS, TokenRows } from './TokenRows';

const LOOK_FOR = 'how few blocks each newer scheme caches per token, and where each line crosses the GPU’s memory. Drag the context, then press Play or step with →.';

// The parts that show the scheme read the stepper themselves, so that a step re-renders them and
// not the controls, the legend and the note.
const TokenRowsAtStep = ({ state }: { state: FigureState }) => <TokenRows fig={state.figure.value} step={state.stepper.step.value} />;
const FitChartAtStep = ({ state }: { state: FigureState }) => <FitChart fig={state.figure.value} step={state.stepper.step.value} />;

function SchemeTable({ state }: { state: FigureState }) {
  const f = state.figure.value, step = state.stepper.step.value;
  return (
    <table class="readout" data-testid="readout">
      <thead><tr><th>Scheme</th><th>per token</th><th>per request at {fmtTokens(f.config.context)}</th><th class="fit-col">fits up to</th></tr></thead>
      <tbody>
        {f.rows.map((r, i) => (
          <tr key={r.scheme} class={i === step ? 'current' : i > step ? 'pending' : ''}>
            <th scope="row"><span class="swatch" style={{ background: SCHEME_COLORS[r.scheme] }} />{SCHEME_NAMES[r.scheme]}</th>
            <td data-testid={`per-token-${r.scheme}`}>{fmtBytes(r.step.kv.bytesPerToken)}</td>
            <td data-testid={`per-request-${r.scheme}`}>{fmtBytes(r.step.kv.bytesPerRequest)}</td>
            <td class="fit-col" data-testid={`fit-${r.scheme}`} title={fitText(f, r)}>
              {r.step.maxContextFitting === null ? 'any context' : `${fmtInt(r.step.maxContextFitting)} tokens`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper, configure, modelNames } = state;
  const f = figure.value;
  const stop = nearestStop(f.config.context);
  return (
    <div class="viz kv-evolution flow">
      <header class="viz-header">
        <h1>The KV cache from MHA to MLA</h1>
      </header>
      <div class="controls">
        <label class="slider">
          <span>Context <output data-testid="context">{fmtInt(f.config.context)}</output> tokens</span>
          <input type="range" aria-label="Context tokens" min={0} max={CONTEXT_STOPS.length - 1} step={1} value={String(stop)}
            aria-valuetext={`${fmtInt(f.config.context)} tokens`}
            onInput={(e) => configure({ context: CONTEXT_STOPS[Number(e.currentTarget.value)] })} />
        </label>
        <label class="field model">
          <span>Model</span>
          <select aria-label="Model" value={f.config.model} onChange={(e) => configure({ model: e.currentTarget.value })}>
            {MODELS.map((id) => <option key={id} value={id}>{modelNames[id]}</option>)}
          </select>
        </label>
        <Fold more="Weights" fewer="Hide weights" class="secondary">
          <div class="field">
            <span>Weights in memory</span>
            <Segmented label="Count the weights in the GPU's memory" value={f.config.weights ? 'yes' : 'no'}
              choices={[{ value: 'no', text: 'Cache only' }, { value: 'yes', text: 'Cache + weights' }]}
              onChange={(v) => configure({ weights: v === 'yes' })} />
          </div>
        </Fold>
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          ...f.rows.map((r) => ({ swatch: SCHEME_COLORS[r.scheme], label: SCHEME_NAMES[r.scheme] })),
          { swatch: colors.heads[0], label: 'K/V head colours (MLA: latent blue, RoPE key amber)' },
          { swatch: colors.text, label: `${f.gpuName} memory (dashed)`, outline: true },
          { swatch: colors.textMuted, label: '★ / (this model): the preset’s own cache; other rows keep its shape' },
        ]} />
      </Fold>

      <TokenRowsAtStep state={state} />
      <div class="memory-panel">
        <FitChartAtStep state={state} />
        <Fold more="Table" fewer="Hide table" class="panel-fold">
          <SchemeTable state={state} />
        </Fold>
      </div>
      <p class="note">Binary units (1 GiB = 2<sup>30</sup> B); the GPU's 80 GB is decimal, as NVIDIA prints it. {f.config.weights
        ? `Weights: ${fmtInt(f.preset.activeParameters.value!)} parameters × 2 B = ${fmtBytes(f.weightBytes)}, the same for every scheme (an MHA variant's larger K/V projections are not added).`
        : 'Weights not counted: the whole memory holds the cache.'} FP16 cache, one request.</p>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(f, stepper.step.value)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={stepLabels(f)} />
      </footer>
    </div>
  );
}
