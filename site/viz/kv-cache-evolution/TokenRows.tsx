// One token in one layer, as each scheme caches it: a row of blocks to one scale of elements (MHA's
// 2 H_q d_h fill the width), K/V blocks coloured by K/V head. Above them the query heads, coloured by
// the cached head they read under the current scheme, with brackets over the heads that share one.
// Rows after the current step are drawn faint: the figure steps through the schemes in order.
import { useMemo } from 'preact/hooks';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { fmtBytes } from '../shared/format';
import { rowShape, SCHEME_NAMES, type Figure, type SchemeRow } from './model';

export const SCHEME_COLORS = { mha: colors.hbm, mqa: colors.heads[3], gqa: colors.heads[1], mla: colors.sram } as const;
const LATENT = colors.active;
const ROPE = colors.heads[0];

/** Colour of K/V head h: the four head colours, the second round of them lighter. */
export const headColor = (h: number) => colors.heads[h % colors.heads.length];
export const headOpacity = (h: number) => (Math.floor(h / colors.heads.length) % 2 === 0 ? 1 : 0.55);

const KV_GAP = 6;

// The K/V head (or -1: the latent) query head q reads under a row's scheme.
function cachedHeadOf(row: SchemeRow, q: number, qHeads: number): number {
  const kv = row.step.kv;
  if (row.scheme === 'mla') return -1;
  return Math.floor(q / (qHeads / kv.kvHeads));
}

function Blocks({ row, x0, y, h, perElement }: { row: SchemeRow; x0: number; y: number; h: number; perElement: number }) {
  const kv = row.step.kv;
  if (row.scheme === 'mla') {
    const wl = kv.latentDim * perElement, wr = kv.ropeDim * perElement;
    return <g data-testid={`blocks-${row.scheme}`} data-elements={kv.elementsPerTokenPerLayer}>
      <rect x={x0} y={y} width={wl} height={h} fill={LATENT} class="block" data-kind="latent" />
      <rect x={x0 + wl + 1} y={y} width={wr} height={h} fill={ROPE} class="block" data-kind="rope" />
    </g>;
  }
  const w = kv.headDim * perElement;
  const gap = w >= 4 ? 1 : 0;
  const blocks = [];
  for (const [part, offset] of [['k', 0], ['v', kv.kvHeads * w + KV_GAP]] as const) {
    for (let hd = 0; hd < kv.kvHeads; hd++) {
      blocks.push(<rect key={`${part}${hd}`} x={x0 + offset + hd * w} y={y} width={Math.max(w - gap, 0.6)} height={h}
        fill={headColor(hd)} fill-opacity={headOpacity(hd)} class="block" data-kind={part} />);
    }
  }
  return <g data-testid={`blocks-${row.scheme}`} data-elements={kv.elementsPerTokenPerLayer}>{blocks}</g>;
}

function QueryStrip({ row, qHeads, width, y }: { row: SchemeRow; qHeads: number; width: number; y: number }) {
  const w = width / qHeads;
  const cells = Array.from({ length: qHeads }, (_, q) => {
    const h = cachedHeadOf(row, q, qHeads);
    return <rect key={q} x={q * w} y={y} width={Math.max(w - (w >= 4 ? 1 : 0), 0.6)} height={12}
      fill={h < 0 ? LATENT : headColor(h)} fill-opacity={h < 0 ? 1 : headOpacity(h)} />;
  });
  const kv = row.step.kv;
  const groups = row.scheme === 'mla' || row.scheme === 'mqa' ? 1 : row.scheme === 'gqa' ? kv.kvHeads : 0;
  const per = groups ? qHeads / groups : 1;
  const by = y + 16;
  const brackets = Array.from({ length: groups }, (_, g) => {
    const a = g * per * w + 1, b = (g + 1) * per * w - 2;
    return <path key={g} d={`M${a},${by} v5 H${b} v-5`} class="bracket" />;
  });
  const caption = row.scheme === 'mha' ? `MHA: each query head reads its own K/V head`
    : row.scheme === 'mqa' ? `MQA: all ${qHeads} query heads share one K/V head`
    : row.scheme === 'gqa' ? `GQA: ${groups} groups of ${per} query heads, one K/V head each`
    : `MLA: all ${qHeads} query heads read one latent`;
  return <g data-testid="query-strip" data-groups={groups}>
    {cells}
    {brackets}
    <text x={0} y={by + 18} class="caption">{caption}</text>
  </g>;
}

export function TokenRows({ fig, step }: { fig: Figure; step: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const qHeads = fig.preset.qHeads.value ?? 1;
  const mha = fig.rows[0].step.kv;
  const perElement = (width - KV_GAP) / mha.elementsPerTokenPerLayer;
  const narrow = width < 640;
  const stripTop = 18;
  const rowsTop = stripTop + 12 + 16 + (narrow ? 22 : 28);
  const rowH = narrow ? 32 : 42;
  const barH = narrow ? 12 : 18;
  const height = rowsTop + fig.rows.length * rowH;
  const current = fig.rows[step];
  // The blocks are the model's cache shapes, whatever the context or step: kept, so a step or a new
  // context redraws only the query strip, the rows' states and the numbers.
  const blocks = useMemo(() => fig.rows.map((r, i) =>
    <Blocks row={r} x0={0} y={rowsTop + i * rowH + (narrow ? 15 : 16)} h={barH} perElement={perElement} />), [fig.config.model, width]);
  // What is drawn depends on the model, the step and the width alone (a token's cache does not
  // change with the context or with counting the weights): kept while they stay, so those settings
  // leave the drawing as it is.
  return useMemo(() => (
    <div ref={ref} class="token-rows-frame" data-drawing>
      <svg class="token-rows" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`One token in one layer of ${fig.preset.name}: ${fig.rows.map((r) => `${SCHEME_NAMES[r.scheme]} caches ${r.step.kv.elementsPerTokenPerLayer} values`).join(', ')}`}>
        <text x={0} y={12} class="heading">{narrow ? `${qHeads} query heads → the cached head they read` : `Query heads (H_q = ${qHeads}), coloured by the cached head they read under ${SCHEME_NAMES[current.scheme]}`}</text>
        <QueryStrip row={current} qHeads={qHeads} width={width} y={stripTop} />
        {fig.rows.map((r, i) => {
          const y = rowsTop + i * rowH;
          const state = i < step ? 'done' : i === step ? 'current' : 'pending';
          return (
            <g key={r.scheme} class={`scheme-row ${state}`} data-testid={`row-${r.scheme}`} data-state={state}>
              <rect x={0} y={y + 4} width={9} height={9} rx={2} fill={SCHEME_COLORS[r.scheme]} />
              <text x={14} y={y + 12} class="row-label">
                <tspan class="scheme-name">{SCHEME_NAMES[r.scheme]}</tspan>{` ${rowShape(r, narrow)}${r.step.ownScheme ? (narrow ? ' ★' : ' (this model)') : ''}`}
              </text>
              <text x={width} y={y + 12} text-anchor="end" class="row-bytes" data-testid={`row-bytes-${r.scheme}`}>{fmtBytes(r.step.kv.bytesPerToken)} / token</text>
              {blocks[i]}
            </g>
          );
        })}
      </svg>
    </div>
  ), [fig.config.model, step, width]);
}
