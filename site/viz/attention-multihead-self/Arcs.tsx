// The sentence twice, as two columns (attending token on the left, attended token on the right), with
// an edge from i to j for every weight of at least MIN_DRAWN, its width and opacity growing with the
// weight, one colour per head. A selected token keeps only its own outgoing edges. Tapping a token
// on the left selects it (the select box above the drawing does the same from the keyboard).
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { HEADS, N, TOKENS, type Figure } from './model';

/** Weights below this are not drawn (a constructed head puts at most 0.1 on all its other keys). */
export const MIN_DRAWN = 0.01;

export function Arcs({ figure, visible, selected, onSelect }: {
  figure: Figure; visible: boolean[]; selected: number | null; onSelect: (t: number | null) => void;
}) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const narrow = width < 640;
  const rowH = narrow ? 20 : 24, top = 24, labelW = narrow ? 64 : 78;
  const height = top + N * rowH + 4;
  const xL = labelW, xR = width - labelW;
  const y = (i: number) => top + (i + 0.5) * rowH;
  const on = HEADS.map((_, h) => h).filter((h) => visible[h]);
  // Parallel edges of several heads are spread by a pixel or two so each stays visible.
  const offset = (h: number) => (on.length > 1 ? (on.indexOf(h) - (on.length - 1) / 2) * 1.6 : 0);
  const attended = new Set<number>();
  const edges = [];
  for (const h of on) {
    const w = figure.weights[h];
    for (let i = 0; i < N; i++) {
      if (selected !== null && i !== selected) continue;
      for (let j = 0; j < N; j++) {
        const a = w[i * N + j];
        if (a < MIN_DRAWN) continue;
        if (selected !== null && a >= 0.5) attended.add(j);
        edges.push(<line key={`${h}-${i}-${j}`} x1={xL + 6} y1={y(i) + offset(h)} x2={xR - 6} y2={y(j) + offset(h)}
          stroke={colors.heads[h]} stroke-width={0.4 + 4 * a} stroke-opacity={Math.min(1, 0.12 + 0.88 * a)}
          data-head={h} data-from={i} data-to={j} data-weight={a} />);
      }
    }
  }
  return (
    <div ref={ref} class="arcs-frame" data-drawing>
      <svg class="arcs" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`Attention of ${on.length} head(s) between the tokens of the sentence${selected === null ? '' : `, from "${TOKENS[selected]}" only`}`}>
        <text x={xL} y={14} class="column-head" text-anchor="end">from</text>
        <text x={xR} y={14} class="column-head">to</text>
        <g class="edges" data-testid="edges">{edges}</g>
        {TOKENS.map((t, i) => (
          <g key={i} class={selected === i ? 'token selected' : 'token'} onClick={() => onSelect(selected === i ? null : i)} data-testid={`from-${i}`}>
            <rect x={0} y={y(i) - rowH / 2} width={xL + 4} height={rowH} class="hit" />
            <text x={xL} y={y(i)} text-anchor="end" dominant-baseline="middle">{t}</text>
          </g>
        ))}
        {TOKENS.map((t, j) => (
          <text key={j} x={xR} y={y(j)} dominant-baseline="middle" class={attended.has(j) ? 'token-to attended' : 'token-to'}>{t}</text>
        ))}
      </svg>
    </div>
  );
}
