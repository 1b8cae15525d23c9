// Which pairs LSH attention scored: query i (row) against key j (column), tokens in the order
// Reformer sorts them in round 0 (by bucket, then position), so a bucket is a block on the diagonal
// and the chunks cut it. A cell's shade is the number of rounds that scored it; the diagonal is
// scored but penalised (a token attends to itself only when alone). From the core's record.
import { useMemo } from 'preact/hooks';
import { bucketColor, STEP, TOKENS, type Figure } from './model';

export function Mask({ figure, step, size }: { figure: Figure; step: number; size: number }) {
  const { order, buckets, config } = figure;
  const axis = 8;
  const cell = (size - axis) / TOKENS;
  const shown = step >= STEP.connections;
  // Built once per figure and size (a step only toggles the class on the root).
  const cells = useMemo(() => maskCells(figure, axis, cell), [figure, size]);
  return (
    <svg class={shown ? 'mask shown' : 'mask'} width={size} height={size} viewBox={`0 0 ${size} ${size}`} role="img" data-testid="mask"
      aria-label={`Attention mask: ${figure.scoredPairs} of ${figure.allPairs} query–key pairs scored`}>
      <rect x={axis} y={axis} width={size - axis} height={size - axis} class="mask-frame" />
      {order.map((j, k) => (
        <g key={j}>
          <rect x={axis + k * cell} y={0} width={cell} height={axis - 2} fill={bucketColor(buckets[j], config.buckets)} />
          <rect x={0} y={axis + k * cell} width={axis - 2} height={cell} fill={bucketColor(buckets[j], config.buckets)} />
        </g>
      ))}
      <g class="mask-cells">{cells}</g>
      <text x={axis + 4} y={size - 5} class="plot-label">{size < 260 ? 'mask' : shown ? 'mask: query row × key column' : 'mask (from step 4)'}</text>
    </svg>
  );
}

// One path per shade (the rounds that scored a cell; the diagonal apart): ~1,000 cells as a few
// elements, so a new hashing repaints within a frame. Each path lists its cells as squares.
function maskCells(figure: Figure, axis: number, cell: number) {
  const { attended, order, config } = figure;
  const paths = new Map<number, string[]>();  // rounds (0 = the diagonal) -> squares
  for (let r = 0; r < TOKENS; r++) {
    const i = order[r];
    for (let col = 0; col < TOKENS; col++) {
      const j = order[col];
      const n = attended[i * TOKENS + j];
      if (n === 0) continue;
      const shade = i === j ? 0 : n;
      if (!paths.has(shade)) paths.set(shade, []);
      paths.get(shade)!.push(`M${(axis + col * cell).toFixed(2)} ${(axis + r * cell).toFixed(2)}h${cell.toFixed(2)}v${cell.toFixed(2)}h${(-cell).toFixed(2)}z`);
    }
  }
  return [...paths].sort(([a], [b]) => a - b).map(([shade, squares]) => (
    <path key={shade} d={squares.join('')} class={shade === 0 ? 'mask-cell self' : 'mask-cell'}
      fill-opacity={shade === 0 ? 1 : 0.3 + 0.7 * (shade / config.rounds)} data-rounds={shade} />
  ));
}
