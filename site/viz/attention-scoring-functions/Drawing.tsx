// The figure's drawing: the three score functions side by side, each with the softmax weights of
// one draw of 16 keys as bars (the saturation: one bar takes everything; the bars are painted on a
// canvas over the drawing) and its statistics over many draws, and under them the norm of the
// softmax's Jacobian against d_k for all three (the gradient that reaches the scores, vanishing
// for the unscaled dot product). Drawn in CSS pixels at the element's width, so the text keeps its
// size on a phone.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { cssPixelContext } from '../shared/canvas';
import { fmt } from '../shared/format';
import { useWidth } from '../shared/useWidth';
import { METHOD_COLORS } from './colors';
import { fmtSmall, fmtVariance } from './format';
import { DIMS, METHOD_FORMULAS, METHOD_NAMES, METHODS, type Example, type Method } from './model';

// The chart's y-axis: mean norms over 16 keys stay near 0.3 (one draw's can reach 0.5, two equal weights).
const NORM_AXIS_MAX = 0.4;
const NORM_TICKS = [0, 0.1, 0.2, 0.3];

function Panel({ method, example, step, x, width, narrow, barTop, barH }: {
  method: Method; example: Example; step: number; x: number; width: number; narrow: boolean; barTop: number; barH: number;
}) {
  const s = example.rows[step].stats[method];
  const w = s.firstWeights;
  const slot = width / w.length;
  const top = w.indexOf(Math.max(...w));
  const base = barTop + barH;
  const labelX = Math.min(Math.max(x + (top + 0.5) * slot, x + 14), x + width - 14);
  const line = (i: number) => base + 16 + i * (narrow ? 15 : 16);
  return (
    <g data-testid={`panel-${method}`}>
      <text x={x} y={14} class="panel-title" fill={METHOD_COLORS[method]}>{METHOD_NAMES[method]}</text>
      <text x={x} y={30} class="formula">{METHOD_FORMULAS[method]}</text>
      <rect x={x} y={barTop} width={width} height={barH} class="bar-area" />
      <text x={labelX} y={Math.max(base - w[top] * barH - 4, barTop + 11)} class="top-label" text-anchor="middle" data-testid={`top-${method}`}>
        {fmtSmall(w[top])}
      </text>
      <text x={x} y={line(0)} class="stat" data-testid={`variance-${method}`}>{narrow ? 'var ' : 'variance '}<tspan class="num">{fmtVariance(s.variance)}</tspan></text>
      <text x={x} y={line(1)} class="stat" data-testid={`entropy-${method}`}>{narrow ? 'H ' : 'entropy '}<tspan class="num">{fmt(s.entropy, 2)}</tspan> nats</text>
      <text x={x} y={line(2)} class="stat" data-testid={`jacobian-${method}`}>‖J‖ <tspan class="num">{fmtSmall(s.jacobianNorm)}</tspan></text>
    </g>
  );
}

function GradientChart({ example, step, y0, width, height, narrow }: {
  example: Example; step: number; y0: number; width: number; height: number; narrow: boolean;
}) {
  const left = 40, right = 14, top = y0 + 24, bottom = y0 + height - 20;
  const px = (i: number) => left + (i / (DIMS.length - 1)) * (width - left - right);
  const py = (v: number) => bottom - (v / NORM_AXIS_MAX) * (bottom - top);
  const ticks = DIMS.map((d, i) => ({ d, i })).filter(({ i }) => !narrow || i % 2 === 0 || i === DIMS.length - 1);
  return (
    <g data-testid="gradient-chart">
      <text x={0} y={y0 + 12} class="chart-title">
        {narrow ? 'Gradient through the softmax ‖∂α/∂e‖' : 'Gradient through the softmax, ‖∂α/∂e‖ (Frobenius norm of the Jacobian, mean over draws)'}
      </text>
      {NORM_TICKS.map((t) => (
        <g key={t}>
          <line x1={left} x2={width - right} y1={py(t)} y2={py(t)} class="grid" />
          <text x={left - 6} y={py(t)} class="tick" text-anchor="end" dominant-baseline="middle">{t.toFixed(1)}</text>
        </g>
      ))}
      <line x1={px(step)} x2={px(step)} y1={top - 4} y2={bottom} class="current-d" />
      {ticks.map(({ d, i }) => (
        <text key={d} x={px(i)} y={bottom + 15} class={i === step ? 'tick current' : 'tick'} text-anchor="middle">{d}</text>
      ))}
      <text x={0} y={bottom + 15} class="tick axis-name">d_k</text>
      {METHODS.map((m) => (
        <g key={m} data-testid={`line-${m}`}>
          <polyline points={example.rows.map((r, i) => `${px(i)},${py(r.stats[m].jacobianNorm)}`).join(' ')}
            fill="none" stroke={METHOD_COLORS[m]} stroke-width={2} />
          {example.rows.map((r, i) => (
            <circle key={i} cx={px(i)} cy={py(r.stats[m].jacobianNorm)} r={i === step ? 4.5 : 2.5}
              fill={METHOD_COLORS[m]} data-norm={r.stats[m].jacobianNorm} class={i === step ? 'point current' : 'point'} />
          ))}
        </g>
      ))}
    </g>
  );
}

// The bars of all three panels, painted on one canvas over the panels' areas: 48 SVG rectangles
// changing height on every step were most of a step's layout. The weights drawn are listed in
// data-weights, by method.
function Bars({ example, step, panelX, panelW, barTop, barH, width }: {
  example: Example; step: number; panelX: (i: number) => number; panelW: number; barTop: number; barH: number; width: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const weights = METHODS.map((m) => example.rows[step].stats[m].firstWeights);
  useLayoutEffect(() => {
    const g = cssPixelContext(canvas.current!, width, barTop + barH);
    g.clearRect(0, 0, width, barTop + barH);
    weights.forEach((w, i) => {
      const slot = panelW / w.length, top = w.indexOf(Math.max(...w)), base = barTop + barH;
      g.fillStyle = METHOD_COLORS[METHODS[i]];
      w.forEach((p, j) => {
        const h = Math.max(p * barH, 0.5);
        g.globalAlpha = j === top ? 1 : 0.55;
        g.fillRect(panelX(i) + j * slot + slot * 0.15, base - h, slot * 0.7, h);
      });
    });
    g.globalAlpha = 1;
  });
  return <canvas ref={canvas} class="bars" aria-hidden="true" style={{ width: `${width}px`, height: `${barTop + barH}px` }}
    data-weights={JSON.stringify(Object.fromEntries(METHODS.map((m, i) => [m, Array.from(weights[i])])))} />;
}

export function Drawing({ example, step }: { example: Example; step: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const narrow = width < 640;
  const gap = narrow ? 10 : 24;
  const panelW = Math.max((width - 2 * gap) / 3, 16);  // (a frame not yet laid out may measure 0)
  const panelX = (i: number) => i * (panelW + gap);
  const barTop = 40, barH = narrow ? 72 : 100;
  const panelsH = barTop + barH + 16 + 2 * (narrow ? 15 : 16) + 8;
  const chartH = narrow ? 128 : 150;
  const height = panelsH + chartH;
  const d = DIMS[step];
  return (
    <div ref={ref} class="scoring-frame" data-drawing>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" class="scoring"
        aria-label={`Softmax weights of 16 keys under the three score functions at d_k = ${d}, and the gradient through the softmax against d_k`}>
        {METHODS.map((m, i) => (
          <Panel key={m} method={m} example={example} step={step} x={panelX(i)} width={panelW} narrow={narrow} barTop={barTop} barH={barH} />
        ))}
        <GradientChart example={example} step={step} y0={panelsH} width={width} height={chartH} narrow={narrow} />
      </svg>
      <Bars example={example} step={step} panelX={panelX} panelW={panelW} barTop={barTop} barH={barH} width={width} />
    </div>
  );
}
