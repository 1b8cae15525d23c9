// The stack of layers as rows of positions (input at the bottom), coloured by whether position 0's
// information has reached them, with the window of the farthest reached position drawn down to the
// layer below: its oldest key is the previous frontier, which is why each layer adds W - 1.
// Drawn in CSS pixels at the element's width, so labels keep their size on a phone.
import { Component } from 'preact';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import type { Figure } from './model';

const AXIS_H = 24;
/** The x of position p's centre. */
const centre = (p: number, labelW: number, cellW: number) => labelW + (p + 0.5) * cellW;

type CellState = 'pending' | 'unreached' | 'new' | 'reached';
const STATES: CellState[] = ['pending', 'unreached', 'reached', 'new'];

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
  const cx = (p: number) => centre(p, labelW, cellW);
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
          <Layer key={l} l={l} flags={flags} below={l > 0 ? reached[l - 1] : null} status={l < step ? 'past' : l === step ? 'current' : 'pending'}
            r={r} y={cy(l)} labelW={labelW} cellW={cellW} />
        ))}
        <g class="axis" transform={`translate(0 ${rows * rowH})`}>
          <text x={labelW - 8} y={16} text-anchor="end" class="tick">pos.</text>
          {ticks.map((p) => <text key={p} x={cx(p)} y={16} text-anchor="middle" class={p === cur ? 'tick current' : 'tick'}>{p}</text>)}
        </g>
      </svg>
    </div>
  );
}

// One layer's row: its label and one path per cell state, each path all the row's circles in that
// state. A new layer count or window changes the sequence length, so every position moves: as
// separate circles, up to ~430 SVG elements were rebuilt, restyled and laid out per setting. The
// row's states are also kept as text (data-states), what the drawing shows in a form the tests
// read. A step changes the rows at and just below the layer shown and leaves the others as they
// are, so a row re-renders only when its place relative to the step or the geometry changes.
interface LayerProps {
  l: number; flags: Uint8Array; below: Uint8Array | null; status: 'past' | 'current' | 'pending';
  r: number; y: number; labelW: number; cellW: number;
}
class Layer extends Component<LayerProps> {
  shouldComponentUpdate(next: LayerProps) {
    const p = this.props;
    return p.flags !== next.flags || p.status !== next.status || p.r !== next.r || p.y !== next.y || p.labelW !== next.labelW || p.cellW !== next.cellW;
  }
  render({ l, flags, below, status, r, y, labelW, cellW }: LayerProps) {
    const states = Array.from(flags, (on, p): CellState =>
      // A position is new in the layer shown when the layer below had not reached it.
      status === 'pending' ? 'pending' : !on ? 'unreached' : status === 'current' && (!below || below[p] === 0) ? 'new' : 'reached');
    // Each circle as two arcs from its leftmost point, added to the path of its state.
    const paths: Record<CellState, string> = { pending: '', unreached: '', reached: '', new: '' };
    states.forEach((state, p) => {
      paths[state] += `M${centre(p, labelW, cellW) - r} ${y}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`;
    });
    return (
      <g data-testid={`layer-${l}`} data-states={states.join(' ')}>
        <text x={labelW - 8} y={y} class="row-label" text-anchor="end" dominant-baseline="middle">{l === 0 ? 'input' : `layer ${l}`}</text>
        {/* Keyed by the row's status, so that the row becoming the one shown replays the new cells' fade-in */}
        {STATES.map((state) => <path key={state === 'new' ? `new-${status}` : state} class={`cells ${state}`} d={paths[state]} />)}
      </g>
    );
  }
}
