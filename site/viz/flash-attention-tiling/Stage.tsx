// The stage: Q on the left, Kᵀ and Vᵀ on top, the N x N score matrix in blocks, and (when there
// is room) the output O with each row's m and ℓ on the right. The blocks in SRAM are framed in
// green; each step's HBM transfers tint what they move (reads blue, writes red) for that step.
// The cells are painted on two canvases (draw.ts): the inputs with the block labels and row numbers
// once per configuration, the rest per step. An SVG over them holds the band labels, the transfer
// tints and one transparent rectangle per block for the pointer; the SRAM frames are HTML boxes over it
// all (SramFrame); a visually hidden line gives the current rows' m and ℓ as text.
import { Component } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { HbmTransfer } from '../../../wasm/load';
import type { CellState } from '../shared/AttentionGrid';
import { pageFontFamily } from '../shared/canvas';
import { fmt } from '../shared/format';
import { useSnap } from '../shared/motion';
import { colors } from '../shared/theme';
import { maxAbs, paintBlockLabels, paintInputs, paintStep, STATS_COL, stepArea, type GridPaint } from './draw';
import { followedRow, isFlashStep, rowsAt, type Run } from './model';

const BAND = 2.5;          // thickness of the Q, Kᵀ, Vᵀ and O bands, in cells
const GAP = 8;
const MAX_CELL = 16, MAX_CELL_PHONE = 14;  // a phone's frame also holds the controls and narration
const TOP_LABEL = 18;

export interface Layout {
  cell: number; labelW: number; band: number; wide: boolean; stats: boolean;
  gridX: number; gridY: number; kY: number; vY: number; oX: number; statsX: number; width: number; height: number;
}

// Cell size from the available width: as large as fits, up to MAX_CELL px. The O band and the m, ℓ
// columns appear only when the rows are tall enough to read.
export function layout(run: Run, width: number): Layout {
  const n = run.config.n;
  // Whole pixels while cells are big enough to show; fractions below that, so large N still fits.
  // At most MAX_CELL px, so that a small N leaves the frame room for the narration and controls.
  const maxCell = width < 480 ? MAX_CELL_PHONE : MAX_CELL;
  const fit = (fixed: number, units: number) => {
    const c = Math.min(maxCell, (width - fixed) / units);
    return c >= 4 ? Math.floor(c) : Math.max(0.25, c);
  };
  let labelW = 44;
  let cell = fit(labelW + 2 * GAP + 2 * STATS_COL, n + 2 * BAND);
  let wide = cell >= 11 && width >= 520;
  let stats = wide;
  if (!wide) {
    labelW = n <= 64 ? 30 : 8;
    cell = fit(labelW + GAP, n + BAND);
  }
  const band = BAND * Math.max(cell, 6);
  const gridX = labelW + band + GAP;
  const kY = TOP_LABEL, vY = kY + band + 4, gridY = vY + band + 16;
  const oX = gridX + n * cell + GAP;
  const statsX = oX + band + 6;
  return { cell, labelW, band, wide, stats, gridX, gridY, kY, vY, oX, statsX, width: wide ? statsX + 2 * STATS_COL : Math.max(gridX + n * cell, width), height: gridY + n * cell + 22 };
}

interface Rect { x: number; y: number; width: number; height: number }

// A block held in SRAM: a green frame with a soft glow, an HTML box over the drawing placed by a
// transform. Moving it from block to block is then a transform transition, which the compositor
// runs; an SVG frame's x and y transition restyled and repainted the stage on every frame of it.
// Steps in quick succession make it jump instead (useSnap), as the counters' values do.
function SramFrame({ x, y, width, height, snap }: Rect & { snap: boolean }) {
  return <div class={snap ? 'sram-frame snap' : 'sram-frame'} aria-hidden="true"
    style={{ transform: `translate(${x - 1.5}px, ${y - 1.5}px)`, width: `${width + 3}px`, height: `${height + 3}px` }} />;
}

const sameLayout = (a: Layout, b: Layout) => (Object.keys(a) as (keyof Layout)[]).every((k) => a[k] === b[k]);

// What changes only with the configuration and the layout: the band labels, and the canvas of the
// Q, Kᵀ and Vᵀ heat maps with the block labels and row numbers. Skipped on every step, so a step
// diffs only what the step changed.
class StageFixed extends Component<{ run: Run; L: Layout }> {
  shouldComponentUpdate(next: { run: Run; L: Layout }) {
    const a = this.props, c = a.run.config, nc = next.run.config;
    return next.run.q !== a.run.q || nc.n !== c.n || nc.d !== c.d || nc.br !== c.br || nc.bc !== c.bc || !sameLayout(next.L, a.L);
  }
  canvas = { current: null as HTMLCanvasElement | null };
  // The heat maps and the labels, or (new block sizes alone) the labels.
  paint(labelsOnly: boolean) {
    const el = this.canvas.current;
    if (!el) return;
    const { run, L } = this.props, { n, d, br, bc } = run.config, c = L.cell, fw = L.band / d;
    const blocks = { n, br, bc, tr: run.tr, tc: run.tc, font: pageFontFamily() };
    if (labelsOnly) return paintBlockLabels(el, L, blocks);
    const scale = Math.max(maxAbs(run.q), maxAbs(run.k), maxAbs(run.v));
    paintInputs(el, L, [
      { values: run.q, rows: n, cols: d, x: L.labelW, y: L.gridY, cw: fw, ch: c, color: colors.heads[0], scale },
      { values: run.k, rows: n, cols: d, x: L.gridX, y: L.kY, cw: c, ch: fw, color: colors.heads[1], transpose: true, scale },
      { values: run.v, rows: n, cols: d, x: L.gridX, y: L.vY, cw: c, ch: fw, color: colors.heads[3], transpose: true, scale },
    ], blocks);
  }
  componentDidMount() { this.paint(false); }
  componentDidUpdate(prev: { run: Run; L: Layout }) {
    const { run, L } = this.props;
    this.paint(run.q === prev.run.q && run.k === prev.run.k && run.v === prev.run.v && sameLayout(L, prev.L));
  }
  render({ run, L }: { run: Run; L: Layout }) {
    const { n, br, bc } = run.config;
    const c = L.cell;
    return (
      <>
      <canvas ref={this.canvas} class="stage-inputs" aria-hidden="true" />
      <svg width={L.width} height={L.height} class="stage-labels" aria-hidden="true">
        <text x={L.labelW + L.band / 2} y={L.gridY - 6} class="band-label" text-anchor="middle">Q</text>
        <text x={L.labelW + L.band - 4} y={L.kY + L.band / 2} class="band-label" text-anchor="end" dominant-baseline="middle">Kᵀ</text>
        <text x={L.labelW + L.band - 4} y={L.vY + L.band / 2} class="band-label" text-anchor="end" dominant-baseline="middle">Vᵀ</text>
        {/* Under the grid, or, narrow, under the whole drawing, whose width it needs. */}
        <text x={L.wide ? L.gridX + (n * c) / 2 : L.width / 2} y={L.gridY + n * c + 15} class="band-label" text-anchor="middle">
          S = QKᵀ/√d <tspan class="muted-label">{n} × {n} scores in {br} × {bc} blocks</tspan></text>
        {L.wide && <text x={L.oX + L.band / 2} y={L.gridY - 6} class="band-label" text-anchor="middle">O</text>}
        {L.stats && <text x={L.statsX + STATS_COL - 6} y={L.gridY - 6} class="band-label" text-anchor="end">m</text>}
        {L.stats && <text x={L.statsX + 2 * STATS_COL - 6} y={L.gridY - 6} class="band-label" text-anchor="end">ℓ</text>}
      </svg>
      </>
    );
  }
}

export function Stage({ run, at, width, onSeek }: { run: Run; at: number; width: number; onSeek: (step: number) => void }) {
  const L = layout(run, width);
  const { n, br, bc, mode } = run.config;
  const s = run.steps[at];
  const c = L.cell;
  const flash = isFlashStep(s);
  const canvas = useRef<HTMLCanvasElement>(null);
  const snap = useSnap(at);
  const tooltip = useRef<HTMLTitleElement>(null);  // Preact types <title> as the HTML element

  // Block states at this step: looked up from the step indices that handle each block.
  const blockState = (i: number, j: number): CellState => {
    const b = i * run.tc + j;
    if (mode === 'flash') {
      const t = run.tileStep[b];
      if (run.skipped[b]) return 'skipped';
      if (t === at) return 'active';
      return t >= 0 && t < at ? 'done' : 'idle';
    }
    if (run.pvStep[b] === at || run.tileStep[b] === at) return 'active';
    if (run.softmaxStep[i] >= 0 && run.softmaxStep[i] <= at) return 'storedStrong';
    return run.tileStep[b] >= 0 && run.tileStep[b] < at ? 'stored' : 'idle';
  };

  // Cell detail: the weights e^(s - m) of the tile in SRAM (flash), or the scores/probabilities
  // the standard step holds. Masked scores (-inf) come out NaN and are drawn empty.
  let detail: GridPaint['detail'];
  const cols = s.colEnd - s.colBegin, rows = s.rowEnd - s.rowBegin;
  if (flash && s.kind === 'tile' && rows * cols <= 4096) {
    detail = { rowBegin: s.rowBegin, colBegin: s.colBegin, rows, cols, color: colors.sram,
      values: Array.from(s.weights, (w, i) => (s.scores[i] === -Infinity ? NaN : w)) };
  } else if (!flash && rows * cols <= 4096) {
    const vals = s.kind === 'score_tile' ? s.scores : s.kind === 'softmax_rows' || s.kind === 'pv_tile' ? s.probs : null;
    if (vals && vals.length === rows * cols) {
      // Drawn on the block's own range (display only): scores min to max, probabilities 0 to max.
      let lo = Infinity, hi = -Infinity;
      for (const x of vals) if (x > -Infinity) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
      if (s.kind !== 'score_tile') lo = 0;
      detail = { rowBegin: s.rowBegin, colBegin: s.colBegin, rows, cols, color: colors.hbm,
        values: Array.from(vals, (x) => (x === -Infinity ? NaN : (x - lo) / (hi - lo || 1))) };
    }
  }

  // O so far and each row's m and ℓ, as the trace last reported them (wide layouts draw them).
  const state = L.wide ? rowsAt(run, at) : null;
  const changed = s.kind === 'tile' || s.kind === 'softmax_rows';
  const fr = followedRow(s);

  // Paint the step before the browser paints the frame; the canvas keeps its size between steps.
  useLayoutEffect(() => {
    const el = canvas.current;
    if (!el) return;
    paintStep(el, L, {
      n, br, bc, tr: run.tr, tc: run.tc, blockState, detail,
      output: state ? { values: state.output, d: run.config.d, scale: maxAbs(state.output) } : undefined,
      stats: state && L.stats ? { m: state.m, l: state.l, changedBegin: changed ? s.rowBegin : 0, changedEnd: changed ? s.rowEnd : 0, focusRow: fr, font: pageFontFamily() } : undefined,
    });
  });

  // S or P written to HBM this step, tinted on the grid.
  const spWrite = s.transfers.find((t) => t.direction === 'write' && (t.matrix === 'S' || t.matrix === 'P'));

  // Which blocks of Q, K, V, O are on chip at this step.
  const onChipRows = rows > 0 && s.kind !== 'init_o';
  const onChipK = cols > 0 && s.kind !== 'pv_tile' && s.kind !== 'softmax_rows';
  const onChipV = cols > 0 && (flash || s.kind === 'pv_tile');
  const onChipTile = rows > 0 && cols > 0 && s.kind !== 'skip';

  // Where each transfer of the step lands on the stage.
  const transferRect = (t: HbmTransfer): Rect | null => {
    const r0 = t.rowBegin, r1 = t.rowEnd;
    switch (t.matrix) {
      case 'Q': return { x: L.labelW, y: L.gridY + r0 * c, width: L.band, height: (r1 - r0) * c };
      case 'K': return { x: L.gridX + r0 * c, y: L.kY, width: (r1 - r0) * c, height: L.band };
      case 'V': return { x: L.gridX + r0 * c, y: L.vY, width: (r1 - r0) * c, height: L.band };
      case 'O': case 'm': case 'l': case 'lse':
        return L.wide ? { x: L.oX, y: L.gridY + r0 * c, width: (L.stats ? L.statsX + 2 * STATS_COL : L.oX + L.band) - L.oX, height: (r1 - r0) * c } : null;
      default: return null;  // S and P are tinted on the grid itself
    }
  };

  // The pointer's block: one transparent rectangle per block carries its state (for the hover
  // outline) and the grid's one tooltip names the block under the pointer.
  const blockAt = (e: MouseEvent): [number, number] | null => {
    const rect = (e.target as Element).closest('rect[data-block]');
    if (!rect) return null;
    const b = Number((rect as SVGRectElement).dataset.block);
    return [Math.floor(b / run.tc), b % run.tc];
  };
  const hits = [];
  for (let i = 0; i < run.tr; i++) {
    const r0 = i * br, r1 = Math.min(n, r0 + br);
    for (let j = 0; j < run.tc; j++) {
      const c0 = j * bc, c1 = Math.min(n, c0 + bc);
      hits.push(<rect key={i * run.tc + j} data-block={i * run.tc + j} x={c0 * c} y={r0 * c} width={(c1 - c0) * c} height={(r1 - r0) * c} class={`attn-cell ${blockState(i, j)}`} />);
    }
  }
  const area = stepArea(L, n);
  const cellFrame = (r0: number, r1: number, c0: number, c1: number) => ({ x: c0 * c, y: r0 * c, width: (c1 - c0) * c, height: (r1 - r0) * c });

  return (
    <div class="stage" role="group" style={{ width: `${L.width}px`, height: `${L.height}px` }}
      aria-label={`Q on the left, K and V on top, the ${n} by ${n} score matrix in ${br} by ${bc} blocks${L.wide ? ', the output O with each row’s m and ℓ on the right' : ''}.`}>
      <StageFixed run={run} L={L} />
      <canvas ref={canvas} class="stage-step" style={{ left: `${area.x}px`, top: `${area.y}px` }} aria-hidden="true" />
      <svg width={L.width} height={L.height} class="stage-overlay">
        <g transform={`translate(${L.gridX},${L.gridY})`} class="attn-grid">
          <g class="attn-blocks clickable"
            onClick={(e) => {
              const b = blockAt(e);
              if (!b) return;
              const k = b[0] * run.tc + b[1];
              const target = mode === 'standard' && run.tileStep[k] < at && run.pvStep[k] >= 0 ? run.pvStep[k] : run.tileStep[k];
              if (target >= 0) onSeek(target);
            }}
            onPointerMove={(e) => {
              const b = blockAt(e);
              if (tooltip.current) tooltip.current.textContent = b ? `Q block ${b[0] + 1} × K block ${b[1] + 1}: click to go to its step` : '';
            }}>
            <title ref={tooltip} />
            {hits}
          </g>
          {spWrite && <rect {...cellFrame(spWrite.rowBegin, spWrite.rowEnd, spWrite.colBegin, spWrite.colEnd)} class="transfer write" />}
        </g>

        {/* This step's HBM transfers. A tint held for the step, not a fading flash: a fade of SVG
            ran on the main thread, restyling and repainting the drawing on every frame of it
            (and under reduced motion the flash did not show at all). */}
        <g class="transfers" aria-hidden="true">
          {s.transfers.map((t, i) => {
            const rect = transferRect(t);
            return rect && <rect key={i} {...rect} class={`transfer ${t.direction}`} />;
          })}
        </g>
      </svg>
      {/* On-chip frames: the tile in the score matrix, and the blocks of Q, O, K and V */}
      {onChipTile && <SramFrame key="tile" snap={snap} x={L.gridX + s.colBegin * c} y={L.gridY + s.rowBegin * c} width={(s.colEnd - s.colBegin) * c} height={(s.rowEnd - s.rowBegin) * c} />}
      {onChipRows && <SramFrame key="q" snap={snap} x={L.labelW} y={L.gridY + s.rowBegin * c} width={L.band} height={rows * c} />}
      {onChipRows && L.wide && (s.kind === 'tile' || s.kind === 'write_o' || s.kind === 'pv_tile' || s.kind === 'skip' || s.kind === 'load_q') &&
        <SramFrame key="o" snap={snap} x={L.oX} y={L.gridY + s.rowBegin * c} width={L.band} height={rows * c} />}
      {onChipK && <SramFrame key="k" snap={snap} x={L.gridX + s.colBegin * c} y={L.kY} width={cols * c} height={L.band} />}
      {onChipV && <SramFrame key="v" snap={snap} x={L.gridX + s.colBegin * c} y={L.vY} width={cols * c} height={L.band} />}
      {state && L.stats && rows > 0 && <p class="visually-hidden">
        {Array.from({ length: Math.min(rows, 16) }, (_, k) => {
          const r = s.rowBegin + k;
          return <span key={k}>Row {r + 1}: m <span data-testid={`m-${r + 1}`}>{fmt(state.m[r], 2)}</span>, ℓ <span data-testid={`l-${r + 1}`}>{fmt(state.l[r], 2)}</span>. </span>;
        })}
      </p>}
    </div>
  );
}
