// The drawing: the same memory twice, in the same geometry (rows of slots, one row = the same
// number of slots in both). Top, the contiguous arena: each sample's reserved range split into KV
// held, reserved for tokens still to come, and reserved beyond what the sample will ever write;
// free holes too small for the queue head marked as external fragmentation. Bottom, the paged pool
// of physical blocks (filled to the tokens they hold, shared blocks dashed with their reference
// count), and the block tables below it, each logical block an arrow to its physical block: all
// tables on a wide screen (the focused request's arrows strong), the focused request's alone on a phone.
// The pool's blocks and the block tables are painted on two canvases over the SVG: a scrub changes
// about half of the blocks and can add or remove a hundred table boxes and labels, which as SVG
// elements cost their creation, style and layout each. The canvases list what they paint in
// data-blocks and data-tables. A copy-on-write's arrow is drawn in a second SVG above them.
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { ServingState } from '../../../wasm/load';
import { growingContext, pageFontFamily } from '../shared/canvas';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { blockFill, blockOwner, eventRange, requestColor, timelineIndex, WORKLOAD, type Figure, type StepState } from './model';

const TITLE_H = 22;
const LABEL_W = 54;

interface Rect { x: number; y: number; w: number }

/** Splits the slot range [from, to) into one rectangle per row of the arena. */
function rowSpans(from: number, to: number, rowSlots: number, slotW: number, rowY: (r: number) => number): Rect[] {
  const out: Rect[] = [];
  for (let s = from; s < to;) {
    const row = Math.floor(s / rowSlots), end = Math.min(to, (row + 1) * rowSlots);
    out.push({ x: (s - row * rowSlots) * slotW, y: rowY(row), w: (end - s) * slotW });
    s = end;
  }
  return out;
}

/** The holes counted as external fragmentation: the smallest, adding up to the core's figure for the step. */
function externalHoles(st: ServingState, externalSlots: number): Set<number> {
  const holes = [...(st.holes ?? [])].sort((a, b) => a.slots - b.slots);
  const out = new Set<number>();
  let sum = 0;
  for (const h of holes) {
    if (sum >= externalSlots) break;
    out.add(h.offset);
    sum += h.slots;
  }
  return out;
}

interface BlockPaint { block: number; refs: number; fill: number; request: number; arrived: boolean }

// The labels' fonts (style.css gives the SVG text 10px in the page's family).
const fonts = () => ({ plain: `10px ${pageFontFamily()}`, bold: `650 10px ${pageFontFamily()}` });

// Each block: its frame (white and thicker for a request that just arrived), filled in its owner's
// colour to the tokens it holds, dashed inside when shared, and its number (×n when shared) on it.
function paintBlocks(canvas: HTMLCanvasElement, blocks: BlockPaint[], g0: { width: number; top: number; height: number },
  at: (b: number) => { x: number; y: number }, blockW: number, rowH: number, bs: number, narrow: boolean) {
  const g = growingContext(canvas, g0.width, g0.height);
  g.translate(0, -g0.top);
  const f = fonts();
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  for (const { block, refs, fill, request, arrived } of blocks) {
    const { x, y } = at(block);
    const c = request >= 0 ? requestColor(request) : colors.border;
    g.setLineDash([]);
    g.fillStyle = colors.panel;
    g.fillRect(x + 1, y, blockW - 2, rowH);
    g.strokeStyle = arrived ? '#fff' : colors.border;
    g.lineWidth = arrived ? 2.5 : 1;
    g.strokeRect(x + 1, y, blockW - 2, rowH);
    if (refs > 0 && fill > 0) {
      g.fillStyle = c;
      g.fillRect(x + 1, y, ((blockW - 2) * fill) / bs, rowH);
    }
    if (refs > 1) {
      g.strokeStyle = '#e5e5e5';
      g.lineWidth = 1.5;
      g.setLineDash([3, 2]);
      g.strokeRect(x + 2, y + 1, blockW - 4, rowH - 2);
    }
    const label = refs > 1 ? `×${refs}` : narrow ? '' : String(block);
    if (!label) continue;
    const cx = x + blockW / 2, cy = y + rowH / 2;
    if (refs > 0) {
      g.font = f.bold;
      g.setLineDash([]);
      g.strokeStyle = '#0a0a0a';
      g.lineWidth = 2.5;
      g.miterLimit = 4;  // SVG's default, as the SVG labels had
      g.strokeText(label, cx, cy);
      g.fillStyle = '#fff';
    } else {
      g.font = f.plain;
      g.fillStyle = colors.textMuted;
    }
    g.fillText(label, cx, cy);
  }
}

interface TablePaint { request: number; sample: number; length: number; blocks: number[]; focus: boolean }

// Each table: its label in the request's colour, then one box per logical block (dashed when the
// physical block is shared, its outline faint unless the request is the focused one) with the
// physical block's number in it when the box is wide enough. In three passes (labels, boxes,
// numbers), so that the font and the text alignment are set three times, not per table.
function paintTables(canvas: HTMLCanvasElement, tables: TablePaint[], refs: ArrayLike<number>, width: number, height: number,
  boxW: number, boxH: number, rowH: number) {
  const g = growingContext(canvas, width, height);
  const rows = tables.map((t, row) => ({ ...t, y: rowH * row + 1, color: requestColor(t.request) }));
  const boxX = (j: number) => LABEL_W + j * boxW + 1, w = Math.max(0, boxW - 2);
  g.textBaseline = 'middle';
  g.textAlign = 'start';  // the context keeps the numbers' centring from the last paint
  g.font = `650 11px ${pageFontFamily()}`;
  for (const r of rows) {
    g.fillStyle = r.color;
    g.fillText(`R${r.request} s${r.sample}`, 0, r.y + boxH / 2);
  }
  g.lineWidth = 1.2;
  for (const r of rows) {
    g.fillStyle = colors.panel;
    r.blocks.forEach((_, j) => g.fillRect(boxX(j), r.y, w, boxH));
    g.strokeStyle = r.color;
    g.globalAlpha = r.focus ? 1 : 0.5;
    r.blocks.forEach((b, j) => {
      g.setLineDash(refs[b] > 1 ? [3, 2] : []);
      g.strokeRect(boxX(j), r.y, w, boxH);
    });
  }
  g.globalAlpha = 1;
  g.setLineDash([]);
  if (boxW < 20) return;
  g.font = fonts().plain;
  g.textAlign = 'center';
  g.fillStyle = colors.text;
  for (const r of rows) r.blocks.forEach((b, j) => g.fillText(String(b), boxX(j) + w / 2, r.y + boxH / 2));
}

export function Pools({ figure, st, focus }: { figure: Figure; st: StepState; focus: number | null }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const canvas = useRef<HTMLCanvasElement>(null), tablesCanvas = useRef<HTMLCanvasElement>(null);
  const narrow = width < 640;
  const bs = WORKLOAD.blockSize, blocks = figure.config.blocks;
  const perRow = narrow ? 8 : 16;
  const rows = Math.ceil(blocks / perRow), rowSlots = perRow * bs;
  const slotW = width / rowSlots, blockW = slotW * bs;
  const arenaRowH = narrow ? 16 : 20, poolRowH = narrow ? 22 : 26, gap = 4;
  // Pool rows leave room between them for the arrowheads of blocks above a row.
  const poolGap = 12;

  // Contiguous arena.
  const cTop = TITLE_H;
  const cRowY = (r: number) => cTop + r * (arenaRowH + gap);
  const cBottom = cRowY(rows);
  const ct = timelineIndex(figure.contiguous, st.step);
  const external = externalHoles(st.contiguous, figure.contiguous.timeline.externalFragmentationSlots[ct]);

  // Paged pool.
  // Room above the first pool row for the arc of a copy-on-write.
  const pTop = cBottom + 10 + TITLE_H + 10;
  const pRowY = (r: number) => pTop + r * (poolRowH + poolGap);
  const pBottom = pRowY(rows) - poolGap;
  const fill = blockFill(st.paged, bs), owner = blockOwner(st.paged), refs = st.paged.refcounts!;
  const blockX = (b: number) => (b % perRow) * blockW;
  const blockY = (b: number) => pRowY(Math.floor(b / perRow));
  const [pa, pb] = eventRange(figure.pagedStart, Math.min(st.step, figure.paged.summary.steps - 1));
  // A request arriving now that the contiguous pool cannot take and the paged pool admits: its blocks are outlined.
  const refused = figure.refusedRequest.get(st.step);
  const cow: { from: number; to: number }[] = [];
  for (let i = pa; i < pb && st.step < figure.paged.summary.steps; i++) {
    if (figure.paged.events.appendKind[i] === 'copy_on_write') cow.push({ from: figure.paged.events.copiedFrom[i], to: figure.paged.events.physicalBlock[i] });
  }

  // Block tables.
  const seqs = (st.paged.sequences ?? []).slice().sort((a, b) => a.request - b.request || a.sample - b.sample);
  const shown = narrow ? seqs.filter((q) => q.request === focus) : seqs;
  const tableRows = narrow ? WORKLOAD.maxSamples : figure.maxSequences;
  const maxLogical = Math.ceil((WORKLOAD.maxPromptTokens + WORKLOAD.maxOutputTokens) / bs);
  // Negative while a lazily loaded frame is still a few pixels wide (the rects' widths stay >= 0).
  const boxW = Math.min(28, (width - LABEL_W) / maxLogical), boxH = 16, tableRowH = 20;
  const tTop = pBottom + (narrow ? 30 : 40) + TITLE_H;
  const height = tTop + tableRows * tableRowH + 4;

  const cl = figure.contiguous.timeline;
  const cWaste = (cl.reservedFutureSlots[ct] + cl.internalFragmentationSlots[ct] + cl.externalFragmentationSlots[ct]) / figure.contiguous.capacitySlots;
  const pt = timelineIndex(figure.paged, st.step);
  const pWaste = figure.paged.timeline.internalFragmentationSlots[pt] / figure.paged.capacitySlots;
  const pctText = (x: number) => `${(100 * x).toFixed(0)} %`;

  const blocksDrawn: BlockPaint[] = Array.from(refs, (n, b) => ({ block: b, refs: n, fill: n > 0 ? fill[b] : 0, request: owner[b],
    arrived: refused !== undefined && owner[b] === refused }));
  // The canvas spans the pool's rows and the half of a thick frame that sticks out above and below.
  const poolArea = { width, top: pTop - 2, height: pBottom - pTop + 4 };
  useLayoutEffect(() => paintBlocks(canvas.current!, blocksDrawn, poolArea, (b) => ({ x: blockX(b), y: blockY(b) }), blockW, poolRowH, bs, narrow));
  // The tables' canvas starts a pixel above the first row, for the boxes' outlines.
  const tablesDrawn: TablePaint[] = shown.map((q) => ({ request: q.request, sample: q.sample, length: q.length,
    blocks: Array.from(q.blockTable), focus: q.request === focus }));
  const tablesHeight = tableRows * tableRowH + 2;
  useLayoutEffect(() => paintTables(tablesCanvas.current!, tablesDrawn, refs, width, tablesHeight, boxW, boxH, tableRowH));

  return (
    <div ref={ref} class="pools-frame" data-drawing>
      <svg class="pools" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`Step ${st.step}: the contiguous pool holds ${st.contiguous.reservations!.length} reserved ranges and wastes ${pctText(cWaste)} of the memory; the paged pool uses ${st.paged.stats.blocksUsed} of ${blocks} blocks and wastes ${pctText(pWaste)}`}>
        <defs>
          <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill={colors.panel} />
            <line x1="0" y1="0" x2="0" y2="6" stroke={colors.heads[0]} stroke-width="3" />
          </pattern>
          <marker id="arrow-head" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="5" markerHeight="5" orient="auto-start-reverse">
            <path d="M0,0 L6,3 L0,6 z" fill="context-stroke" />
          </marker>
        </defs>

        <text class="section-title halo" x={0} y={15}>{narrow ? 'Contiguous' : `Contiguous: each sample reserves its prompt + ${WORKLOAD.maxOutputTokens} slots`} <tspan class="waste" data-testid="contiguous-waste-inline">waste {pctText(cWaste)}</tspan></text>
        {refused !== undefined && <text class="refused" data-testid="refused" data-request={refused} x={width} y={15} text-anchor="end">{narrow ? 'R' : 'request '}{refused} turned away</text>}
        <g data-testid="arena">
          {Array.from({ length: rows }, (_, r) => (
            <rect key={`row${r}`} class="arena-row" x={0} y={cRowY(r)} width={Math.min(rowSlots, figure.contiguous.capacitySlots - r * rowSlots) * slotW} height={arenaRowH} />
          ))}
          {(st.contiguous.holes ?? []).map((h) => external.has(h.offset) && rowSpans(h.offset, h.offset + h.slots, rowSlots, slotW, cRowY).map((s, k) => (
            <rect key={`h${h.offset}-${k}`} class="hole external" x={s.x} y={s.y} width={s.w} height={arenaRowH} fill="url(#hatch)"
              data-kind="external" data-offset={h.offset} data-slots={h.slots} />
          )))}
          {st.contiguous.reservations!.map((res, i) => {
            const base = res.offset, c = requestColor(res.request);
            const parts: [string, number, number][] = [['used', 0, res.usedSlots], ['future', res.usedSlots, res.finalSlots], ['internal', res.finalSlots, res.reservedSlots]];
            const first = rowSpans(base, base + res.reservedSlots, rowSlots, slotW, cRowY)[0];
            return (
              <g key={i} class="reservation" data-request={res.request} data-sample={res.sample} data-offset={res.offset}
                data-reserved={res.reservedSlots} data-used={res.usedSlots} data-final={res.finalSlots}>
                {parts.map(([kind, a, b]) => a < b && rowSpans(base + a, base + b, rowSlots, slotW, cRowY).map((s, k) => (
                  <rect key={`${kind}${k}`} class={`slot-run ${kind}`} x={s.x} y={s.y} width={s.w} height={arenaRowH}
                    fill={kind === 'internal' ? colors.hbm : c} />
                )))}
                {rowSpans(base, base + res.reservedSlots, rowSlots, slotW, cRowY).map((s, k) => (
                  <rect key={`o${k}`} class="range-outline" x={s.x + 0.5} y={s.y + 0.5} width={Math.max(0, s.w - 1)} height={arenaRowH - 1} />
                ))}
                {first.w > 26 && <text class="range-label halo" x={first.x + 3} y={first.y + arenaRowH / 2} dominant-baseline="middle">R{res.request}</text>}
              </g>
            );
          })}
        </g>

        <text class="section-title halo" x={0} y={pTop - 17}>Paged: {figure.config.blocks} × {bs} slots{narrow ? '' : ', a block taken when the last one fills'} <tspan class="waste" data-testid="paged-waste-inline">waste {pctText(pWaste)}</tspan></text>
        {refused !== undefined && <text class="admitted" data-testid="admitted" x={width} y={pTop - 17} text-anchor="end">{narrow ? 'R' : 'request '}{refused} admitted</text>}
        {/* Under the pool, so an arrow to an upper row passes behind the blocks below it. */}
        <g class="arrows" data-testid="arrows">
          {shown.map((q, row) => {
            const y = tTop + row * tableRowH, c = requestColor(q.request);
            const arrow = (b: number, j: number) => {
              const x = LABEL_W + (j + 0.5) * boxW, bx = blockX(b) + blockW / 2, by = blockY(b) + poolRowH + 1;
              return `M${x},${y} C${x},${y - 30} ${bx},${pBottom + 30} ${bx},${by}`;
            };
            // Another request's arrows: one faint path per table, no heads (cheap to paint).
            if (q.request !== focus) {
              return <path key={row} class="table-arrows" stroke={c} data-request={q.request} data-sample={q.sample}
                d={Array.from(q.blockTable, arrow).join(' ')} />;
            }
            return (
              <g key={row} class="table-arrows focus" data-request={q.request} data-sample={q.sample}>
                {Array.from(q.blockTable, (b, j) => <path key={j} class="table-arrow" stroke={c} marker-end="url(#arrow-head)" data-to={b} d={arrow(b, j)} />)}
              </g>
            );
          })}
        </g>
        <text class="section-title halo" x={0} y={tTop - 7}>{narrow ? (focus === null ? 'Block tables: no request running' : `Block tables of request ${focus}`) : 'Block tables: logical block → physical block'}</text>
      </svg>
      <canvas ref={canvas} class="pool-blocks" data-testid="pool-blocks" data-blocks={JSON.stringify(blocksDrawn)}
        style={{ top: `${poolArea.top}px` }} />
      <canvas ref={tablesCanvas} class="table-boxes" data-testid="tables" data-tables={JSON.stringify(tablesDrawn)}
        style={{ top: `${tTop - 1}px` }} />
      <svg class="pools-over" width={width} height={height} aria-hidden="true">
        <g data-testid="pool">
          {cow.map(({ from, to }, k) => (
            <path key={k} class="cow-arrow" data-from={from} data-to={to} marker-end="url(#arrow-head)"
              d={`M${blockX(from) + blockW / 2},${blockY(from)} C${blockX(from) + blockW / 2},${blockY(from) - 12} ${blockX(to) + blockW / 2},${blockY(to) - 12} ${blockX(to) + blockW / 2},${blockY(to)}`} />
          ))}
        </g>
      </svg>
    </div>
  );
}
