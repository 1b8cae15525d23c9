// The numbers behind the timeline, all from the core: how long each operation takes on one SM,
// the run's total against the synchronous schedule, and how busy each hardware unit is.
import { AnimatedNumber } from '../shared/AnimatedNumber';
import { nanos, type Figure } from './model';

export function Stats({ fig }: { fig: Figure }) {
  const { opTimes, rates } = fig.pipeline;
  const { shown, baseline, busy } = fig;
  const units = [
    { key: 'tensor_cores', label: 'Tensor cores', value: busy.tensor_cores },
    { key: 'special_functions', label: 'Exponential units', value: busy.special_functions },
    { key: 'tma', label: 'TMA loads', value: busy.tma },
  ];
  return (
    <aside class="stats" aria-label="Predicted timings">
      <dl class="totals">
        <div>
          <dt>This schedule</dt>
          <dd data-testid="total"><AnimatedNumber value={shown.totalS * 1e6} digits={2} /> µs</dd>
        </div>
        <div>
          <dt>Synchronous</dt>
          <dd data-testid="baseline">{(baseline.totalS * 1e6).toFixed(2)} µs</dd>
        </div>
        <div class="speedup">
          <dt>Speed-up</dt>
          <dd data-testid="speedup"><AnimatedNumber value={shown.speedup} digits={2} />×</dd>
        </div>
        <div>
          <dt>Steady state, per key block</dt>
          <dd data-testid="steady">{(shown.steadyIterationS * 1e9).toFixed(0)} ns <span class="muted">({shown.steadySpeedup.toFixed(2)}×)</span></dd>
        </div>
      </dl>
      <h2>Busy, share of this run</h2>
      <ul class="busy">
        {units.map((u) => (
          <li key={u.key} class={u.key}>
            <span>{u.label}</span>
            <span class="bar" aria-hidden="true"><span style={{ width: `${Math.min(u.value, 1) * 100}%` }} /></span>
            <span data-testid={`busy-${u.key}`}>{(u.value * 100).toFixed(0)}%</span>
          </li>
        ))}
      </ul>
      <h2>One key block, one consumer</h2>
      <table class="op-times">
        <tbody>
          <tr><th scope="row">load K, load V</th><td>{nanos(opTimes.loadKS)}, {nanos(opTimes.loadVS)}</td></tr>
          <tr><th scope="row">GEMM0 S = QKᵀ</th><td>{nanos(opTimes.gemm0S)}</td></tr>
          <tr><th scope="row">softmax (exp)</th><td>{nanos(opTimes.softmaxS)}</td></tr>
          <tr><th scope="row">GEMM1 O += PV</th><td>{nanos(opTimes.gemm1S)}</td></tr>
        </tbody>
      </table>
      <p class="rates">One SM: {(rates.tensorFlopsPerS / 1e12).toFixed(2)} TFLOP/s on tensor cores, {(rates.expPerS / 1e9).toFixed(1)} G exp/s; K/V tiles shared by {rates.kvReaders} blocks through L2.</p>
    </aside>
  );
}
