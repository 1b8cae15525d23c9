// Error against cost, one point per method: FLOPs on a log axis (the core's counts), relative error
// of the output against exact attention on a linear one (the core's comparison with sdpa in double).
// Stepping reveals the methods one by one; the current one is ringed. A point above the axis's
// top is drawn at the top with its value. Drawn in CSS pixels at the element's width.
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import type { Figure, InputKind, Point } from './model';

/** Exact in green; on the retrieval input, a method that loses more than 10% of the lookups in red. */
export const pointColor = (p: Point, input: InputKind) =>
  p.method.id === 'dense' ? colors.sram : input === 'retrieval' && p.top1 < 0.9 ? colors.hbm : colors.active;

const PAD = { left: 58, right: 16, top: 22, bottom: 40 };
// Errors above this are drawn on the top edge with their value (none of the seeded runs reaches it).
const Y_CAP = 4;

const niceTicks = (max: number) => {
  const step = max > 2 ? 1 : max > 1 ? 0.5 : max > 0.4 ? 0.2 : 0.1;
  return Array.from({ length: Math.floor(max / step + 1e-9) + 1 }, (_, i) => i * step);
};

interface Box { x0: number; x1: number; y0: number; y1: number }
interface Placed { x: number; y: number; anchor: 'start' | 'end' }
const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

// Labels beside their points without covering each other or a point: each tries the four corners
// around its point (12 px text, its width estimated) and takes the first free one inside the plot;
// labels are placed in the methods' order, so stepping on never moves a label already drawn.
function placeLabels(items: { cx: number; cy: number; text: string }[], width: number, height: number): Placed[] {
  const taken: Box[] = items.map(({ cx, cy }) => ({ x0: cx - 7, x1: cx + 7, y0: cy - 7, y1: cy + 7 }));
  const placed: Placed[] = new Array(items.length);
  items.forEach(({ cx, cy, text }, i) => {
    const w = text.length * 7.2;
    const candidates: Placed[] = [
      { x: cx + 9, y: cy - 7, anchor: 'start' }, { x: cx - 9, y: cy - 7, anchor: 'end' },
      { x: cx + 9, y: cy + 15, anchor: 'start' }, { x: cx - 9, y: cy + 15, anchor: 'end' },
      { x: cx + 9, y: cy - 20, anchor: 'start' }, { x: cx - 9, y: cy - 20, anchor: 'end' },
    ];
    const box = (c: Placed): Box => ({ x0: c.anchor === 'start' ? c.x : c.x - w, x1: c.anchor === 'start' ? c.x + w : c.x, y0: c.y - 11, y1: c.y + 3 });
    const inside = candidates.filter((c) => box(c).x0 >= PAD.left - 4 && box(c).x1 <= width && box(c).y0 >= 0 && box(c).y1 <= height - PAD.bottom);
    const pick = inside.find((c) => !taken.some((t) => overlaps(t, box(c)))) ?? inside[0] ?? candidates[0];
    taken.push(box(pick));
    placed[i] = pick;
  });
  return placed;
}

export function Chart({ figure, step }: { figure: Figure; step: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const narrow = width < 640;
  const height = narrow ? 250 : 300;
  const { points } = figure;
  const flops = points.map((p) => p.flops);
  const lo = Math.floor(Math.log10(Math.min(...flops)) - 0.15), hi = Math.ceil(Math.log10(Math.max(...flops)) + 0.15);
  const yMax = Math.min(Y_CAP, Math.max(0.2, ...points.map((p) => p.relativeError)) * 1.08);
  const x = (f: number) => PAD.left + ((Math.log10(f) - lo) / (hi - lo)) * (width - PAD.left - PAD.right);
  const y = (e: number) => PAD.top + (1 - Math.min(e, yMax) / yMax) * (height - PAD.top - PAD.bottom);
  // On the retrieval input each label says how many lookups the method still gets right (short
  // on a phone: the name alone).
  const labelText = (p: Point) => {
    const name = p.method.name.split(' ')[0];
    const found = figure.config.input === 'retrieval' && !narrow ? ` · finds ${Math.round(100 * p.top1)}%` : '';
    return `${name}${found}${p.relativeError > yMax ? ` (${Math.round(100 * p.relativeError)}% ↑)` : ''}`;
  };
  const visible = points.slice(0, step + 1);
  const labels = placeLabels(visible.map((p) => ({ cx: x(p.flops), cy: y(p.relativeError), text: labelText(p) })),
    width - PAD.right, height);
  const decades = Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  return (
    <div ref={ref} class="chart-frame" data-drawing>
      <svg class="chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" data-testid="chart"
        aria-label={`Relative error against FLOPs for ${step + 1} of ${points.length} methods at N = ${figure.config.n}, ${figure.config.input} input`}>
        {decades.map((d) => (
          <g key={d}>
            <line x1={x(10 ** d)} x2={x(10 ** d)} y1={PAD.top} y2={height - PAD.bottom} class="grid" />
            <text x={x(10 ** d)} y={height - PAD.bottom + 18} text-anchor="middle" class="tick">10{String(d).split('').map((ch) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(ch)]).join('')}</text>
          </g>
        ))}
        {niceTicks(yMax).map((e) => (
          <g key={e}>
            <line x1={PAD.left} x2={width - PAD.right} y1={y(e)} y2={y(e)} class="grid" />
            <text x={PAD.left - 6} y={y(e)} text-anchor="end" dominant-baseline="middle" class="tick">{Math.round(e * 100)}%</text>
          </g>
        ))}
        <text x={(PAD.left + width - PAD.right) / 2} y={height - 6} text-anchor="middle" class="axis-label">FLOPs (core's count, log scale)</text>
        <text transform={`translate(10 ${(PAD.top + height - PAD.bottom) / 2}) rotate(-90)`} text-anchor="middle" class="axis-label">error vs exact</text>
        <g data-testid="points">
          {visible.map((p, i) => {
            const cx = x(p.flops), cy = y(p.relativeError), current = i === step;
            const at = labels[i];
            return (
              <g key={p.method.id} class={current ? 'point current' : 'point'} data-method={p.method.id}
                data-flops={p.flops} data-error={p.relativeError} data-top1={p.top1}>
                {current && <circle cx={cx} cy={cy} r={11} class="ring" />}
                <circle cx={cx} cy={cy} r={6} fill={pointColor(p, figure.config.input)} />
                <text x={at.x} y={at.y} text-anchor={at.anchor} class="point-label">{labelText(p)}</text>
              </g>
            );
          })}
        </g>
      </svg>
    </div>
  );
}
