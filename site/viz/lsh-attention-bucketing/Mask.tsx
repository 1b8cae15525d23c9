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
      {axisRuns(order, step >= STEP.buckets ? buckets : null).map(({ bucket, from, to }) => (
        <path key={bucket} class="mask-axis" data-bucket={bucket} data-from={from} data-to={to}
          fill={bucket < 0 ? 'var(--border)' : bucketColor(bucket, config.buckets)}
          d={`M${axis + from * cell} 0H${axis + to * cell}V${axis - 2}H${axis + from * cell}z` +
            `M0 ${axis + from * cell}V${axis + to * cell}H${axis - 2}V${axis + from * cell}z`} />
      ))}
      <g class="mask-cells">{cells}</g>
      <text x={axis + 4} y={size - 5} class="plot-label">{size < 260 ? 'mask' : shown ? 'mask: query row × key column' : 'mask (from step 4)'}</text>
    </svg>
  );
}

// Each token's bucket along both axes, once the buckets are drawn (before, one grey run, bucket -1).
// The tokens are sorted by bucket, so a bucket is one run [from, to) of the order: one path, its
// strip on each axis, instead of a pair of rectangles per token whose fills a new hashing rewrote.
function axisRuns(order: readonly number[], buckets: ArrayLike<number> | null) {
  const runs: { bucket: number; from: number; to: number }[] = [];
  order.forEach((j, k) => {
    const bucket = buckets ? buckets[j] : -1;
    if (runs.at(-1)?.bucket === bucket) runs.at(-1)!.to = k + 1;
    else runs.push({ bucket, from: k, to: k + 1 });
  });
  return runs;
}

// One path per shade (the rounds that scored a cell; the diagonal apart), each a list of runs of
// neighbouring cells in a row: a thousand cells as a few elements and about a hundred rectangles,
// so a new hashing repaints within a frame.
function maskCells(figure: Figure, axis: number, cell: number) {
  const { attended, order, config } = figure;
  const shadeOf = (r: number, col: number) => {
    const i = order[r], j = order[col], n = attended[i * TOKENS + j];
    return n === 0 ? -1 : i === j ? 0 : n;
  };
  const paths = new Map<number, string[]>();  // shade (0 = the diagonal) -> runs
  for (let r = 0; r < TOKENS; r++) {
    for (let col = 0; col < TOKENS;) {
      const shade = shadeOf(r, col);
      let end = col + 1;
      while (end < TOKENS && shade !== -1 && shadeOf(r, end) === shade) end++;
      if (shade !== -1) {
        if (!paths.has(shade)) paths.set(shade, []);
        paths.get(shade)!.push(`M${(axis + col * cell).toFixed(2)} ${(axis + r * cell).toFixed(2)}h${((end - col) * cell).toFixed(2)}v${cell.toFixed(2)}h${(-(end - col) * cell).toFixed(2)}z`);
      }
      col = end;
    }
  }
  return [...paths].sort(([a], [b]) => a - b).map(([shade, runs]) => (
    <path key={shade} d={runs.join('')} class={shade === 0 ? 'mask-cell self' : 'mask-cell'}
      fill-opacity={shade === 0 ? 1 : 0.3 + 0.7 * (shade / config.rounds)} data-rounds={shade} />
  ));
}
