// Complexity scaling: memory and FLOPs of one attention head from N = 256 to a million, log-log,
// for dense attention, the approximation era's methods and exact FlashAttention, with a dot on
// every line at the reader's N. Every value is the core's count with its implementations' constants.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { Segmented } from '../shared/Segmented';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { fmtBytes, fmtCount, fmtInt } from '../shared/format';
import { Chart } from './Chart';
import { METHOD_COLORS } from './colors';
import { markerKey, METHODS, METRICS, N_MAX, N_MIN, PARAMS, value, type Metric } from './model';
import { LOOK_FOR, narration } from './narration';
import type { FigureState } from './state';

const LEGEND_NOTES: Record<string, string> = {
  dense: 'O(N²)',
  sparse: 'O(N√N), stride ⌈√N⌉',
  lsh: `linear FLOPs at a fixed chunk of ${PARAMS.lshChunk}; the N log N is its sort`,
  linformer: `O(N), k = ${PARAMS.linformerK}`,
  performer: `O(N), ${PARAMS.performerFeatures} features`,
  flash: 'exact: N² FLOPs, O(N) memory',
};

export function App({ state }: { state: FigureState }) {
  const { figure, error, clock, n, points, setN, configure } = state;
  const f = figure.value;
  const { metric, marks } = f.config;
  const N = n.value, pts = points.value;
  const dense = value(pts[0], metric);
  const show = (v: number) => (metric === 'memory' ? fmtBytes(v) : fmtCount(v));
  const toggle = (key: string) => configure({ marks: marks.includes(key) ? marks.filter((k) => k !== key) : [...marks, key] });
  return (
    <div class="viz complexity-scaling">
      <header class="viz-header">
        <h1>What attention costs as N grows</h1>
      </header>
      <div class="controls">
        <label class="slider">
          <span>Sequence length N <output data-testid="n">{fmtInt(N)}</output></span>
          <input type="range" min={String(Math.log10(N_MIN))} max={String(Math.log10(N_MAX))} step="0.01" value={String(clock.time.value)}
            aria-valuetext={`N = ${N}`} onInput={(e) => setN(Math.round(10 ** Number(e.currentTarget.value)))} />
        </label>
        <Segmented label="Quantity" value={metric} choices={METRICS} onChange={(v: Metric) => configure({ metric: v })} />
        <fieldset class="marks">
          <legend class="visually-hidden">Models to mark</legend>
          {f.markers.map((mk) => (
            <label key={mk.model} class="mark">
              <input type="checkbox" checked={marks.includes(markerKey(mk))} onChange={() => toggle(markerKey(mk))} />
              {mk.model.replace(' Pro', '')}
            </label>
          ))}
        </fieldset>
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      {/* Wide: the legend over the chart, the values beside it (grid areas in style.css). Phone: the
          legend, the values and the sources fold behind toggles in one row, as sheets over the figure. */}
      <section class="stage">
        <div class="fold-row">
          <Fold more="Legend" fewer="Hide legend" class="panel-fold">
            <Legend items={METHODS.map(({ method, name }) => ({ swatch: METHOD_COLORS[method], label: `${name}: ${LEGEND_NOTES[method]}` }))} />
          </Fold>
          <Fold more="Values" fewer="Hide values" class="panel-fold">
            <table class="readout" data-testid="readout">
              <thead><tr><th scope="col">N = {fmtInt(N)}, one head, d = {PARAMS.headDim}, FP16</th><th scope="col">{metric === 'memory' ? 'memory' : 'FLOPs'}</th><th scope="col">vs dense</th></tr></thead>
              <tbody>
                {METHODS.map(({ method, name }, i) => (
                  <tr key={method}>
                    <th scope="row"><span class="swatch" style={{ background: METHOD_COLORS[method] }} aria-hidden="true" />{name}</th>
                    <td data-testid={`value-${method}`}>{show(value(pts[i], metric))}</td>
                    <td data-testid={`ratio-${method}`}>{formatRatio(value(pts[i], metric) / dense)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p class="note values-note">Reformer: {PARAMS.lshBuckets} buckets, {PARAMS.lshRounds} rounds, chunks of {PARAMS.lshChunk}; its sort
              takes {fmtCount(pts[2].sortComparisons)} comparisons at this N (N log₂ N per round). Linformer k = {PARAMS.linformerK};
              Performer {PARAMS.performerFeatures} features; FlashAttention's {PARAMS.flashBlockQ} × {PARAMS.flashBlockK} tile.</p>
          </Fold>
          <Fold more="Sources" fewer="Hide sources" always class="panel-fold">
            <p class="note" data-testid="sources">Counts from the core's implementations with their constants.{' '}
              {f.markers.map((mk) => `${mk.model} (${mk.year}, ${fmtInt(mk.contextTokens)} tokens): ${mk.source}. `)}
              A100: {f.a100.source}.</p>
          </Fold>
        </div>
        <Chart figure={f} n={N} points={pts} />
      </section>

      <Narration stepper={clock} lookFor={LOOK_FOR} text={() => narration(f, N, pts)} />

      <footer class="viz-footer">
        <PlayControls stepper={clock} />
        <TimelineScrubber stepper={clock} labels={['256', '1k', '10k', '100k', '1M']} />
      </footer>
    </div>
  );
}

function formatRatio(r: number): string {
  if (r === 1) return '1×';
  if (r >= 0.01) return `${r.toPrecision(2)}×`;
  return `1/${fmtInt(Math.round(1 / r))}`;
}
