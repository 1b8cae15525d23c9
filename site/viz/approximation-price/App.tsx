// The price of approximation: every approximate method the core has as a point of error (against
// exact attention) over cost (FLOPs), on random or retrieval-style inputs, beside the published
// Long Range Arena accuracies of the same methods (Tay et al. 2020, Table 1), labelled as theirs.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { MoreControls } from '../shared/MoreControls';
import { Narration } from '../shared/Narration';
import { NumberSelect } from '../shared/NumberSelect';
import { PlayControls } from '../shared/PlayControls';
import { Segmented } from '../shared/Segmented';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { Chart } from './Chart';
import { LRA_ROWS, LRA_SOURCE, LRA_TASKS, LRA_URL } from './lra';
import { SEEDS, SEQ_LENS, stepLabels, type InputKind } from './model';
import { narration } from './narration';
import type { FigureState } from './state';
import { fmtInt } from '../shared/format';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'where each method lands: cheaper to the left, more wrong higher up. Switch the input between random and retrieval. Press Play or step with →.';
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const INPUT_CHOICES = [
  { value: 'random' as InputKind, text: 'random', title: 'Q, K, V ~ N(0, 1)' },
  { value: 'retrieval' as InputKind, text: 'retrieval', title: 'each query a noisy copy of one key' },
];

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper, computing, setConfig } = state;
  const f = figure.value;
  const step = stepper.step.value;
  const c = f.config;
  const p = f.points[step], dense = f.points[0];
  const lraRow = p.method.lra;
  return (
    <div class="viz flow approximation-price">
      <header class="viz-header">
        <h1>What approximate attention costs, and what it gets wrong</h1>
      </header>
      <div class="controls">
        <span class="field">input <Segmented label="Input" value={c.input} choices={INPUT_CHOICES} onChange={(input) => setConfig({ input })} /></span>
        <label class="field">N <NumberSelect value={c.n} label="Sequence length N" choices={SEQ_LENS} onChange={(n) => setConfig({ n })} /></label>
        <MoreControls>
          <label class="field">seed <NumberSelect value={c.seed} label="Seed" choices={SEEDS} onChange={(seed) => setConfig({ seed })} /></label>
        </MoreControls>
        {computing.value && <span class="computing" role="status">{computing.value}</span>}
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          { swatch: colors.sram, label: 'exact attention' },
          { swatch: colors.active, label: 'approximate method' },
          { swatch: colors.hbm, label: 'loses > 10% of lookups (retrieval input)' },
        ]} />
      </Fold>

      <div class="panels">
        <Chart figure={f} step={step} />
        <Fold more="Published LRA results" fewer="Hide LRA results" class="lra-fold panel-fold">
          <figure class="lra" data-testid="lra">
            <figcaption>Theirs, not ours: accuracy (%) of trained models on Long Range Arena, from <a href={LRA_URL} target="_blank" rel="noopener">{LRA_SOURCE}</a>. Retrieval is a two-way choice: 50% is chance.</figcaption>
            <div class="lra-scroll">
              <table>
                <thead><tr><th scope="col">model</th>{LRA_TASKS.map((t) => <th key={t} scope="col" class={t === 'Retrieval' ? 'key' : ''}>{t}</th>)}</tr></thead>
                <tbody>
                  {LRA_ROWS.map((r) => (
                    <tr key={r.model} class={r.model === lraRow ? 'current' : ''} data-model={r.model}>
                      <th scope="row">{r.model}</th>
                      {r.scores.map((s, i) => <td key={i} class={LRA_TASKS[i] === 'Retrieval' ? 'key' : ''}>{s.toFixed(2)}</td>)}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </figure>
        </Fold>
      </div>

      <dl class="readout" data-testid="readout">
        <div>
          <dt>{p.method.name}: FLOPs</dt>
          <dd data-testid="flops">{fmtInt(p.flops)} ({(p.flops / dense.flops).toFixed(2)}× exact)</dd>
        </div>
        <div>
          <dt>Error vs exact (rel. Frobenius)</dt>
          <dd data-testid="error">{pct(p.relativeError)}</dd>
        </div>
        <div>
          <dt>Lookups kept (top-1)</dt>
          <dd data-testid="top1">{c.input === 'retrieval' ? pct(p.top1) : '— (no single key to find)'}</dd>
        </div>
      </dl>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(f, step)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={stepLabels()} stops={false} />
      </footer>
    </div>
  );
}
