// The log-log chart: one line per method over N = 256 .. 10^6 (the core's curve points), a dot on
// each line at the current N (the core's complexityPoint), the model markers as vertical lines and,
// for memory, the line of one A100's 80 GB. Drawn in CSS pixels at the element's width so labels
// keep their size on a phone. The y axis is labelled in concrete sizes: binary bytes or FLOPs.
// The dots and the line at N are a second SVG over the first, in its own compositing layer: Play
// moves them every frame, and the lines, grid and labels beneath are neither rebuilt nor repainted.
import { useMemo } from 'preact/hooks';
import type { ComplexityPointInfo } from '../../../wasm/classic/sparse';
import { fmtBytes } from '../shared/format';
import { useWidth } from '../shared/useWidth';
import { METHOD_COLORS } from './colors';
import { markerKey, METHODS, N_MAX, N_MIN, value, type Figure } from './model';

const KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;
const MEMORY_TICKS = [KiB, MiB, GiB, TiB];
const FLOP_TICKS = [1e6, 1e9, 1e12, 1e15];
const FLOP_NAMES: Record<number, string> = { 1e6: '1 MFLOP', 1e9: '1 GFLOP', 1e12: '1 TFLOP', 1e15: '1 PFLOP' };
const N_TICKS = [1e3, 1e4, 1e5, 1e6];
const N_NAMES: Record<number, string> = { 1e3: '1k', 1e4: '10k', 1e5: '100k', 1e6: '1M' };

// FlashAttention dashed (exact, unlike the rest); Performer dotted over Linformer, whose line it
// nearly covers (256 features and k = 256 keep about as much memory).
const DASHES: Partial<Record<string, string>> = { flash: '6 4', performer: '2 4' };

const log = Math.log10;
const logScale = (d0: number, d1: number, r0: number, r1: number) => (x: number) => r0 + ((log(x) - log(d0)) / (log(d1) - log(d0))) * (r1 - r0);

export function Chart({ figure, n, points }: { figure: Figure; n: number; points: ComplexityPointInfo[] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const { metric, marks } = figure.config;
  const narrow = width < 640;
  const height = narrow ? 240 : 320;
  const m = { left: narrow ? 58 : 66, right: 12, top: 22, bottom: 30 };
  // y domain: whole decades around every curve (and the A100 line for memory).
  let lo = Infinity, hi = -Infinity;
  for (const c of figure.curves) {
    for (const v of metric === 'memory' ? c.peakBytes : c.flops) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  }
  if (metric === 'memory') hi = Math.max(hi, figure.a100.bytes);
  const y0 = 10 ** Math.floor(log(lo)), y1 = 10 ** Math.ceil(log(hi));
  const x = logScale(N_MIN, N_MAX, m.left, width - m.right);
  const y = logScale(y0, y1, height - m.bottom, m.top);
  const ticks = (metric === 'memory' ? MEMORY_TICKS : FLOP_TICKS).filter((t) => t >= y0 && t <= y1);
  const tickLabel = (t: number) => (metric === 'memory' ? fmtBytes(t, 0) : FLOP_NAMES[t]);
  const path = (xs: Float64Array, ys: Float64Array) => Array.from(xs, (v, i) => `${i ? 'L' : 'M'}${x(v).toFixed(1)},${y(ys[i]).toFixed(1)}`).join('');
  const shown = figure.markers.filter((mk) => marks.includes(markerKey(mk)));
  // The markers' labels, one under another from the top, each stepping over the A100 line (a
  // baseline within a label's height of it would sit on the line).
  const a100Y = metric === 'memory' ? y(figure.a100.bytes) : null;
  const labelYs: number[] = [];
  for (let i = 0, ly = m.top + 10; i < shown.length; i++, ly += 14) {
    if (a100Y !== null && ly > a100Y - 10 && ly < a100Y + 14) ly = a100Y + 14;
    labelYs.push(ly);
  }
  const base = useMemo(() => (
    <svg class="chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
      aria-label={`${metric === 'memory' ? 'Memory' : 'FLOPs'} of one attention head against sequence length, log-log, N from 256 to a million`}>
      <g class="grid">
        {ticks.map((t) => <g key={t}>
          <line x1={m.left} x2={width - m.right} y1={y(t)} y2={y(t)} />
          <text x={m.left - 6} y={y(t)} text-anchor="end" dominant-baseline="middle" class="tick">{tickLabel(t)}</text>
        </g>)}
        {N_TICKS.map((t) => <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={m.top} y2={height - m.bottom} />
          <text x={x(t)} y={height - m.bottom + 16} text-anchor={t === N_MAX ? 'end' : 'middle'} class="tick">{N_NAMES[t]}</text>
        </g>)}
        <text x={m.left} y={height - m.bottom + 16} text-anchor="start" class="tick">256</text>
      </g>
      {a100Y !== null && <line class="a100-line" data-testid="a100-line" x1={m.left} x2={width - m.right} y1={a100Y} y2={a100Y} />}
      {shown.map((mk) => <line key={mk.model} class="marker-line"
        x1={x(mk.contextTokens)} x2={x(mk.contextTokens)} y1={m.top} y2={height - m.bottom} />)}
      {figure.curves.map((c) => (
        <path key={c.method} d={path(c.seqLen, metric === 'memory' ? c.peakBytes : c.flops)} class="curve" data-method={c.method}
          stroke={METHOD_COLORS[c.method]} stroke-dasharray={DASHES[c.method]} />
      ))}
      {/* The labels over the curves, haloed, so that a curve crossing one passes under it. */}
      {a100Y !== null && <text x={m.left + 4} y={a100Y - 5} class="a100-label halo">{figure.a100.label}</text>}
      {shown.map((mk, i) => (
        <text key={mk.model} data-testid={`marker-${markerKey(mk)}`} x={x(mk.contextTokens) + (mk.contextTokens >= N_MAX ? -4 : 4)} y={labelYs[i]}
          text-anchor={mk.contextTokens >= N_MAX ? 'end' : 'start'} class="marker-label halo">{mk.model.replace(' Pro', '')} ({mk.year})</text>
      ))}
    </svg>
  ), [figure, width]);  // everything else it reads follows from these two
  return (
    <div ref={ref} class="chart-frame" data-drawing>
      {base}
      <svg class="chart-overlay" width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-hidden="true">
        <line class="now" x1={x(n)} x2={x(n)} y1={m.top} y2={height - m.bottom} />
        {points.map((p, i) => (
          <circle key={METHODS[i].method} class="dot" data-testid={`dot-${METHODS[i].method}`} data-value={value(p, metric)}
            cx={x(n)} cy={y(value(p, metric))} r={narrow ? 4 : 5} fill={METHOD_COLORS[METHODS[i].method]} />
        ))}
      </svg>
    </div>
  );
}
