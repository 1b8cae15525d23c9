// The stack of layers as rows of positions (input at the bottom), coloured by whether position 0's
// information has reached them, with the window of the farthest reached position drawn down to the
// layer below: its oldest key is the previous frontier, which is why each layer adds W - 1.
// Drawn in CSS pixels at the element's width, so labels keep their size on a phone.
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import type { Figure } from './model';

const AXIS_H = 24;

export function Stack({ figure, step }: { figure: Figure; step: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const { reached, frontier, config, seqLen } = figure;
  const narrow = width < 640;
  const labelW = narrow ? 60 : 72;  // room for "layer 8" at 13 px
  const rowH = narrow ? 28 : 40;
  const cellW = (width - labelW) / seqLen;
  const rows = reached.length;  // input + layers
  const height = rows * rowH + AXIS_H;
  // Before the first measurement (a lazily loaded frame has no width yet) cellW is negative: no radius below 0.
  const r = Math.max(0, Math.min(cellW, rowH) * 0.36);
  const cx = (p: number) => labelW + (p + 0.5) * cellW;
  const cy = (l: number) => (rows - 1 - l + 0.5) * rowH;  // layer 0 at the bottom
  const cur = frontier[step];
  const windowStart = Math.max(cur - config.window + 1, 0);
  // Ticks at the frontiers reached so far, thinned where they would collide.
  const ticks = [0, ...frontier.slice(1, step + 1)].filter((p, i, all) => i === 0 || cellW * (p - all[i - 1]) >= 18 || p === cur);
  return (
    <div ref={ref} class="stack-frame" data-drawing>
      <svg class="stack" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`${config.layers} layers with window ${config.window}: after ${step} layer(s) position 0 has reached positions 0 to ${cur}`}>
        {step > 0 && (
          <g class="window-edges" data-testid="window-edges">
            {Array.from({ length: cur - windowStart + 1 }, (_, i) => windowStart + i).map((p) => {
              const oldest = p === frontier[step - 1];
              return <line key={p} x1={cx(cur)} y1={cy(step)} x2={cx(p)} y2={cy(step - 1)}
                stroke={oldest ? colors.active : colors.textMuted} stroke-width={oldest ? 2.5 : 1.2} stroke-opacity={oldest ? 1 : 0.6} />;
            })}
          </g>
        )}
        {reached.map((flags, l) => (
          <g key={l} data-testid={`layer-${l}`}>
            <text x={labelW - 8} y={cy(l)} class="row-label" text-anchor="end" dominant-baseline="middle">{l === 0 ? 'input' : `layer ${l}`}</text>
            {Array.from(flags, (on, p) => {
              const shown = l <= step;
              const isNew = shown && on === 1 && l === step && (l === 0 || reached[l - 1][p] === 0);
              const state = !shown ? 'pending' : on ? (isNew ? 'new' : 'reached') : 'unreached';
              return <circle key={p} cx={cx(p)} cy={cy(l)} r={r} class={`cell ${state}`} data-state={state} />;
            })}
          </g>
        ))}
        <g class="axis" transform={`translate(0 ${rows * rowH})`}>
          <text x={labelW - 8} y={16} text-anchor="end" class="tick">pos.</text>
          {ticks.map((p) => <text key={p} x={cx(p)} y={16} text-anchor="middle" class={p === cur ? 'tick current' : 'tick'}>{p}</text>)}
        </g>
      </svg>
    </div>
  );
}
