// One token in one layer, as each scheme caches it: a row of blocks to one scale of elements (MHA's
// 2 H_q d_h fill the width), K/V blocks coloured by K/V head. Above them the query heads, coloured by
// the cached head they read under the current scheme, with brackets over the heads that share one.
// Rows after the current step are drawn faint: the figure steps through the schemes in order.
// The blocks and the query heads are painted on a canvas under the SVG text (up to 384 of them for
// a model of 128 query heads, which as SVG a new model created and removed); the canvas lists the
// blocks it paints in data-blocks.
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { cssPixelContext } from '../shared/canvas';
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

interface Cell { x: number; y: number; w: number; h: number; fill: string; alpha: number }
interface Block extends Cell { kind: 'k' | 'v' | 'latent' | 'rope' }

// One row's blocks: a K and a V block per cached head (MLA: the latent and the RoPE key), as wide as their elements.
function blocksOf(row: SchemeRow, x0: number, y: number, h: number, perElement: number): Block[] {
  const kv = row.step.kv;
  if (row.scheme === 'mla') {
    const wl = kv.latentDim * perElement, wr = kv.ropeDim * perElement;
    return [{ kind: 'latent', x: x0, y, w: wl, h, fill: LATENT, alpha: 1 }, { kind: 'rope', x: x0 + wl + 1, y, w: wr, h, fill: ROPE, alpha: 1 }];
  }
  const w = kv.headDim * perElement;
  const gap = w >= 4 ? 1 : 0;
  const blocks: Block[] = [];
  for (const [kind, offset] of [['k', 0], ['v', kv.kvHeads * w + KV_GAP]] as const) {
    for (let hd = 0; hd < kv.kvHeads; hd++) {
      blocks.push({ kind, x: x0 + offset + hd * w, y, w: Math.max(w - gap, 0.6), h, fill: headColor(hd), alpha: headOpacity(hd) });
    }
  }
  return blocks;
}

// The query heads under a row's scheme, coloured by the cached head each reads.
function queryCells(row: SchemeRow, qHeads: number, width: number, y: number): Cell[] {
  const w = width / qHeads;
  return Array.from({ length: qHeads }, (_, q) => {
    const h = cachedHeadOf(row, q, qHeads);
    return { x: q * w, y, w: Math.max(w - (w >= 4 ? 1 : 0), 0.6), h: 12, fill: h < 0 ? LATENT : headColor(h), alpha: h < 0 ? 1 : headOpacity(h) };
  });
}

// Rows after the current step faint, those before it dimmed (as the rows' text in style.css).
const ROW_ALPHA = { done: 0.7, current: 1, pending: 0.18 } as const;

function paintCells(canvas: HTMLCanvasElement, width: number, height: number, cells: Cell[]) {
  const g = cssPixelContext(canvas, width, height);
  g.clearRect(0, 0, width, height);
  for (const c of cells) {
    g.globalAlpha = c.alpha;
    g.fillStyle = c.fill;
    g.fillRect(c.x, c.y, c.w, c.h);
  }
}

function QueryStrip({ row, qHeads, width, y }: { row: SchemeRow; qHeads: number; width: number; y: number }) {
  const w = width / qHeads;
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
  const canvas = useRef<HTMLCanvasElement>(null);
  // The blocks are the model's cache shapes, whatever the context or step: kept per model and width.
  const blocks = useMemo(() => fig.rows.map((r, i) => blocksOf(r, 0, rowsTop + i * rowH + (narrow ? 15 : 16), barH, perElement)),
    [fig.config.model, width]);
  const drawn = useMemo(() => JSON.stringify(Object.fromEntries(fig.rows.map((r, i) =>
    [r.scheme, { elements: r.step.kv.elementsPerTokenPerLayer, kinds: blocks[i].map((b) => b.kind) }]))), [blocks]);
  useLayoutEffect(() => {
    const rowAlpha = (i: number) => ROW_ALPHA[i < step ? 'done' : i === step ? 'current' : 'pending'];
    paintCells(canvas.current!, width, height, [
      ...queryCells(current, qHeads, width, stripTop),
      ...blocks.flatMap((row, i) => row.map((b) => ({ ...b, alpha: b.alpha * rowAlpha(i) }))),
    ]);
  }, [blocks, step, width]);
  // What is drawn depends on the model, the step and the width alone (a token's cache does not
  // change with the context or with counting the weights): kept while they stay, so those settings
  // leave the drawing as it is.
  return useMemo(() => (
    <div ref={ref} class="token-rows-frame" data-drawing>
      <canvas ref={canvas} style={{ width: `${width}px`, height: `${height}px` }} data-testid="token-blocks" data-blocks={drawn} />
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
            </g>
          );
        })}
      </svg>
    </div>
  ), [fig.config.model, step, width]);
}
