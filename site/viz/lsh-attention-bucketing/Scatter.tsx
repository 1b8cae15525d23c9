// The plane of the 2-D vectors. Step 0: the raw queries. Step 1: each becomes its unit key (the
// point slides onto the circle) and round 0's bucket directions -- the columns of R and their
// negatives -- rotate into place. Step 2: the plane splits into the sectors where one direction
// wins (round 0 inside the circle, every round as a ring outside it) and each token takes its
// bucket's colour. Step 3 on: a line for every pair some round scored. Positions and colours come
// from the core; the sectors and the circle fade in by CSS, the marks glide on a canvas (Marks.tsx),
// and nothing moves under reduced motion.
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { colors } from '../shared/theme';
import { MarksCanvas, type Marks } from './Marks';
import { bucketColor, STEP, TOKENS, type Figure, type Sector } from './model';

const TAU = 2 * Math.PI;

// An annular wedge (inner radius 0: a pie slice) from angle a0 to a1, counter-clockwise on screen.
function wedge(cx: number, cy: number, r0: number, r1: number, a0: number, a1: number): string {
  const p = (r: number, a: number) => `${(cx + r * Math.cos(a)).toFixed(2)} ${(cy - r * Math.sin(a)).toFixed(2)}`;
  if (a1 - a0 >= TAU - 1e-9) {  // a full ring: two halves
    const mid = a0 + Math.PI;
    return wedge(cx, cy, r0, r1, a0, mid) + ' ' + wedge(cx, cy, r0, r1, mid, a1);
  }
  const large = a1 - a0 > Math.PI ? 1 : 0;
  const outer = `M ${p(r1, a0)} A ${r1} ${r1} 0 ${large} 0 ${p(r1, a1)}`;
  if (r0 === 0) return `${outer} L ${cx} ${cy} Z`;
  return `${outer} L ${p(r0, a1)} A ${r0} ${r0} 0 ${large} 1 ${p(r0, a0)} Z`;
}

export function Scatter({ figure, step, size }: { figure: Figure; step: number; size: number }) {
  const { raw, unit, buckets, sectors, directions, pairs, config } = figure;
  const c = size / 2;
  const narrow = size < 260;  // phone: the plane is half the screen wide, labels shorten
  const unitR = size * 0.3;
  const outer = size * 0.48;
  const ringGap = 4;
  const ringW = Math.min(10, (outer - unitR - ringGap) / config.rounds - 2);
  let maxNorm = 0;
  for (let j = 0; j < TOKENS; j++) maxNorm = Math.max(maxNorm, Math.hypot(raw[2 * j], raw[2 * j + 1]));
  const rawScale = (outer - 6) / maxNorm;
  const tokenR = size < 300 ? 4 : 5;  // a dot's radius, its 1 px outline included
  const onCircle = step >= STEP.rotation;
  const coloured = step >= STEP.buckets;
  const at = (j: number): [number, number] => onCircle
    ? [c + unitR * unit[2 * j], c - unitR * unit[2 * j + 1]]
    : [c + rawScale * raw[2 * j], c - rawScale * raw[2 * j + 1]];
  const sectorPaths = (arcs: Sector[], r0: number, r1: number, round: number) => arcs.map((s) => (
    <path key={`${round}-${s.bucket}`} d={wedge(c, c, r0, r1, s.begin, s.end)} fill={bucketColor(s.bucket, config.buckets)}
      class="sector" data-round={round} data-bucket={s.bucket} data-begin={s.begin.toFixed(6)} data-end={s.end.toFixed(6)} />
  ));
  // The parts that do not change with the step are built once per figure and size: Preact skips
  // an element it is handed again, so a step only touches the tokens, arrows and classes.
  const sectorGroups = useMemo(() => [
    <g key="disk" class="disk">{sectorPaths(sectors[0], 0, unitR, 0)}</g>,
    ...sectors.map((arcs, r) => <g key={r} class="ring">{sectorPaths(arcs, unitR + ringGap + r * (ringW + 2), unitR + ringGap + r * (ringW + 2) + ringW, r)}</g>),
  ], [figure, size]);
  // One path per number of rounds that scored a pair (hundreds of lines as a few elements);
  // data-pairs lists its segments' token pairs in order.
  const connections = useMemo(() => {
    const byRounds = new Map<number, [number, number][]>();
    for (const [i, j, rounds] of pairs) {
      if (!byRounds.has(rounds)) byRounds.set(rounds, []);
      byRounds.get(rounds)!.push([i, j]);
    }
    const p = (j: number) => `${(c + unitR * unit[2 * j]).toFixed(2)} ${(c - unitR * unit[2 * j + 1]).toFixed(2)}`;
    return (
      <g class="connections" data-testid="connections">
        {[...byRounds].sort(([a], [b]) => a - b).map(([rounds, list]) => (
          <path key={rounds} d={list.map(([i, j]) => `M${p(i)}L${p(j)}`).join('')} stroke={colors.text}
            stroke-opacity={0.25 + 0.6 * (rounds / config.rounds)} data-rounds={rounds} data-pairs={list.map(([i, j]) => `${i}-${j}`).join(' ')} />
        ))}
      </g>
    );
  }, [figure, size]);
  // The tokens (raw, then on the circle; grey, then in their bucket's colour) and the directions
  // (pointing right, then turned into place, and hidden until then).
  const marks = useMemo((): Marks => {
    let maxDir = 0;
    for (let b = 0; b < config.buckets; b++) maxDir = Math.max(maxDir, Math.hypot(directions[2 * b], directions[2 * b + 1]));
    return {
      tokens: Array.from({ length: TOKENS }, (_, j) => {
        const [x, y] = at(j);
        return { token: j, bucket: buckets[j], x, y, color: coloured ? bucketColor(buckets[j], config.buckets) : colors.textMuted };
      }),
      directions: Array.from({ length: config.buckets }, (_, b) => {
        const dx = directions[2 * b], dy = directions[2 * b + 1];
        return { angle: onCircle ? Math.atan2(dy, dx) : 0, length: (unitR * 0.92 * Math.hypot(dx, dy)) / maxDir,
          color: bucketColor(b, config.buckets) };
      }),
      directionAlpha: onCircle ? 1 : 0,
    };
  }, [figure, size, onCircle, coloured]);
  // Only a step animates: new settings are another hash (its directions are not the old ones
  // turned) and a new size is the same drawing, so both snap.
  const drawn = useRef({ figure, size });
  const snap = drawn.current.figure !== figure || drawn.current.size !== size;
  useLayoutEffect(() => { drawn.current = { figure, size }; });
  // The background (sectors, circle, axes, lines) repaints only when the figure or the step's
  // visibility changes; the marks glide over it on their own canvas.
  return (
    <div class="scatter-frame" style={{ width: `${size}px`, height: `${size}px` }}>
    <svg class="scatter-back" width={size} height={size} viewBox={`0 0 ${size} ${size}`} aria-hidden="true">
      <g class={coloured ? 'sectors shown' : 'sectors'} data-testid="sectors">
        {sectorGroups}
      </g>
      <circle cx={c} cy={c} r={unitR} class={onCircle ? 'unit-circle shown' : 'unit-circle'} />
      <line x1={c - outer} x2={c + outer} y1={c} y2={c} class="axis" />
      <line y1={c - outer} y2={c + outer} x1={c} x2={c} class="axis" />
      {step >= STEP.connections && connections}
    </svg>
    <MarksCanvas marks={marks} size={size} tokenR={tokenR} snap={snap} />
    <svg class="scatter" width={size} height={size} viewBox={`0 0 ${size} ${size}`} role="img" data-testid="scatter"
      aria-label={`${TOKENS} query vectors in the plane, hashed into ${config.buckets} buckets over ${config.rounds} round(s)`}>
      <text x={4} y={12} class="plot-label">{onCircle ? (narrow ? 'unit keys' : 'unit keys k = q / |q| (shared-QK)') : (narrow ? 'queries q' : 'raw queries q')}</text>
      {coloured && config.rounds > 1 && <text x={4} y={size - 4} class="plot-label">{narrow ? `${config.rounds} rings = rounds` : `rings: rounds 1–${config.rounds}`}</text>}
    </svg>
    </div>
  );
}
