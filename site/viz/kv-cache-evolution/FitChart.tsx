// Bytes one request's cache needs against the context (log-log: each scheme is a straight line, a
// sliding window bends its line flat), the GPU's memory as a dashed line (less the weights when they
// are counted), and the chosen context as a cursor. A scheme's line crossing the memory line is where a
// request stops fitting; the core's maxContextFitting marks it.
import { useMemo } from 'preact/hooks';
import { fmtBytes, fmtInt } from '../shared/format';
import { logScale } from '../shared/logScale';
import { useWidth } from '../shared/useWidth';
import { CONTEXT, fmtTokens, SCHEME_NAMES, type Figure } from './model';
import { SCHEME_COLORS } from './TokenRows';

const M = { l: 58, r: 10, t: 10, b: 24 };

export function FitChart({ fig, step }: { fig: Figure; step: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const narrow = width < 640;
  const height = narrow ? 130 : 210;
  const shown = fig.rows.slice(0, step + 1);
  const free = fig.capacityBytes - fig.weightBytes;
  const values = fig.rows.flatMap((r) => r.curve.map(([, b]) => b));
  const lo = Math.min(...values), hi = Math.max(...values, fig.capacityBytes);
  const x = logScale(CONTEXT.min, CONTEXT.max, M.l, width - M.r);
  const y = logScale(lo / 2, hi * 2, height - M.b, M.t);
  const xTicks = x.ticks(2).filter((_, i) => !narrow || i % 2 === 0);
  const yTicks = y.ticks(4);
  const yShown = yTicks.filter((_, i) => i % Math.ceil(yTicks.length / (narrow ? 4 : 6)) === 0);
  const cx = x(fig.config.context);
  // The curves are the model's (whatever the context or the weights): their points kept per model and width.
  const points = useMemo(() => fig.rows.map((r) => r.curve.map(([t, b]) => `${x(t)},${y(b)}`).join(' ')), [fig.config.model, width]);
  return (
    <div ref={ref} class="fit-chart-frame">
      <svg class="fit-chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`KV cache per request against context, on a log-log scale, with ${fig.gpuName}'s memory as a line`}>
        {yShown.map((t) => <g key={t}>
          <line x1={M.l} x2={width - M.r} y1={y(t)} y2={y(t)} class="grid" />
          <text x={M.l - 6} y={y(t)} text-anchor="end" dominant-baseline="middle" class="tick">{fmtBytes(t, 0)}</text>
        </g>)}
        {xTicks.map((t) => <text key={t} x={x(t)} y={height - 6} text-anchor="middle" class="tick">{fmtTokens(t)}</text>)}
        {/* The context cursor under the memory line's label, which is haloed so that no line
            crosses its words. */}
        <line x1={cx} x2={cx} y1={M.t} y2={height - M.b} class="cursor" />
        {free > 0 ? (
          <g data-testid="memory-line" data-bytes={free}>
            <line x1={M.l} x2={width - M.r} y1={y(free)} y2={y(free)} class="memory-line" />
            <text x={M.l + 4} y={y(free) - 5} class="memory-label halo">
              {narrow ? `${fmtBytes(free)} ${fig.config.weights ? 'free after the weights' : 'of GPU memory'}`
                : `${fig.gpuName}: ${fmtBytes(free)}${fig.config.weights ? ' left after the weights' : ''}`}
            </text>
          </g>
        ) : (
          <text x={width - M.r} y={M.t + 12} text-anchor="end" class="memory-label over" data-testid="memory-line" data-bytes={free}>
            {narrow ? `Weights (${fmtBytes(fig.weightBytes)}) exceed ${fmtBytes(fig.capacityBytes)}`
              : `The weights alone (${fmtBytes(fig.weightBytes)}) exceed ${fig.gpuName}'s ${fmtBytes(fig.capacityBytes)}`}
          </text>
        )}
        {shown.map((r, i) => {
          const color = SCHEME_COLORS[r.scheme];
          const fit = r.step.maxContextFitting;
          return <g key={r.scheme} data-testid={`curve-${r.scheme}`}>
            <polyline points={points[i]} fill="none" stroke={color} stroke-width={2.2} />
            <circle cx={cx} cy={y(r.step.kv.bytesPerRequest)} r={4} fill={color} data-bytes={r.step.kv.bytesPerRequest} />
            {free > 0 && fit !== null && fit >= CONTEXT.min && fit <= CONTEXT.max && (
              <path d={`M${x(fit)},${y(free) - 6} l-4,-7 h8 z`} fill={color} data-testid={`stops-${r.scheme}`} data-tokens={fit}>
                <title>{`${SCHEME_NAMES[r.scheme]} stops fitting after ${fmtInt(fit)} tokens`}</title>
              </path>
            )}
          </g>;
        })}
      </svg>
    </div>
  );
}
