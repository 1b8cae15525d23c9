// The shapes of the layer, read off the core's tensors: each head's output [N x d_v], their
// concatenation [N x h d_v], the output projection W_O [h d_v x d_model] and the layer's output
// [N x d_model]. Widths are drawn to scale in the feature dimension; heads not shown are dimmed.
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import type { Figure } from './model';

const BLOCK_H = 26, GAP = 30;

export function Shapes({ figure, visible }: { figure: Figure; visible: boolean[] }) {
  const [ref, width] = useWidth<HTMLDivElement>(320);
  const { seq, heads, valueDim, concat, dModel } = figure.shapes;
  // px per feature (at least 0.5: folded away, the panel measures 0 wide)
  const headGapPx = 6 * (heads - 1);  // the heads' row is this much wider than their concatenation
  const unit = Math.max(Math.min((width - 150 - headGapPx) / Math.max(concat, dModel), 3), 0.5);
  const headW = valueDim * unit, headGap = 6;
  const x0 = 4;
  const rows = [
    { y: 18, label: `${heads} heads × [${seq} × ${valueDim}]`, testid: 'shape-heads' },
    { y: 18 + BLOCK_H + GAP, label: `concat [${seq} × ${concat}]`, testid: 'shape-concat' },
    { y: 18 + 2 * (BLOCK_H + GAP), label: `W_O [${concat} × ${dModel}]`, testid: 'shape-wo' },
    { y: 18 + 3 * (BLOCK_H + GAP), label: `output [${seq} × ${dModel}]`, testid: 'shape-out' },
  ];
  const height = rows[3].y + BLOCK_H + 6;
  const textX = x0 + Math.max(heads * headW + headGapPx, concat * unit, dModel * unit) + 10;
  const arrow = (from: number, text: string) => (
    <g class="shape-arrow">
      <line x1={x0 + 12} x2={x0 + 12} y1={from + BLOCK_H + 3} y2={from + BLOCK_H + GAP - 5} />
      <path d={`M${x0 + 7} ${from + BLOCK_H + GAP - 10} L${x0 + 12} ${from + BLOCK_H + GAP - 4} L${x0 + 17} ${from + BLOCK_H + GAP - 10}`} />
      <text x={x0 + 24} y={from + BLOCK_H + GAP / 2 + 3}>{text}</text>
    </g>
  );
  return (
    <div ref={ref} class="shapes-frame">
      <svg class="shapes" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`Shapes: ${heads} head outputs of ${seq} by ${valueDim}, concatenated to ${seq} by ${concat}, times W_O of ${concat} by ${dModel}, give the output of ${seq} by ${dModel}`}>
        <text x={x0} y={11} class="shapes-title">Concatenate, then project</text>
        {Array.from({ length: heads }, (_, h) => (
          <rect key={h} x={x0 + h * (headW + headGap)} y={rows[0].y} width={headW} height={BLOCK_H} fill={colors.heads[h % colors.heads.length]}
            fill-opacity={visible[h] ? 0.9 : 0.2} class="block" />
        ))}
        {arrow(rows[0].y, 'concatenate')}
        {Array.from({ length: heads }, (_, h) => (
          <rect key={h} x={x0 + h * valueDim * unit} y={rows[1].y} width={valueDim * unit} height={BLOCK_H} fill={colors.heads[h % colors.heads.length]}
            fill-opacity={visible[h] ? 0.9 : 0.2} class="block" />
        ))}
        {arrow(rows[1].y, '× W_O')}
        <rect x={x0} y={rows[2].y} width={dModel * unit} height={BLOCK_H} class="block weight" />
        {arrow(rows[2].y, '=')}
        <rect x={x0} y={rows[3].y} width={dModel * unit} height={BLOCK_H} class="block output" />
        {rows.map((r) => <text key={r.testid} x={textX} y={r.y + BLOCK_H / 2} dominant-baseline="middle" class="shape-label" data-testid={r.testid}>{r.label}</text>)}
      </svg>
    </div>
  );
}
