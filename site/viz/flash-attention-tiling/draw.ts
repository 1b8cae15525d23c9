// The stage's dense parts painted on canvas: the Q, Kᵀ, Vᵀ heat maps (once per configuration and
// layout), and per step the score matrix's blocks, the tile's cells, the grid lines, O so far and
// each row's m and ℓ. A step then repaints two canvases instead of re-diffing and re-laying out a
// few hundred SVG nodes; the SRAM frames (which move with a transition), the tints of the step's
// HBM transfers and the labels are drawn over them (Stage.tsx).
import { CELL_STYLE, type CellState } from '../shared/AttentionGrid';
import { copyText, growingContext, grownContext, offPageContext } from '../shared/canvas';
import { fmt } from '../shared/format';
import { colors } from '../shared/theme';
import type { Layout } from './Stage';

const NEGATIVE = '#94a3b8';
export const STATS_COL = 50;

// A theme colour named as a CSS custom property (var(--text-muted)) → its value, since a canvas
// cannot resolve custom properties.
const themeColor = (css: string) => {
  const m = /^var\(--([a-z-]+)\)$/.exec(css);
  if (!m) return css;
  const key = m[1].replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase()) as keyof typeof colors;
  return colors[key] as string;
};

export const maxAbs = (a: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) if (!Number.isNaN(a[i])) m = Math.max(m, Math.abs(a[i]));
  return m;
};

export interface HeatMap {
  values: ArrayLike<number>; rows: number; cols: number; x: number; y: number; cw: number; ch: number; color: string; transpose?: boolean; scale: number;
}

// A diverging heat map: warm for positive, slate for negative, opacity growing with |value|; NaN
// cells (rows not written yet) stay empty. Above 8,192 values the cells are sub-pixel, so the
// band is one tint.
export function paintHeat(g: CanvasRenderingContext2D, h: HeatMap) {
  const { values, rows, cols, x, y, cw, ch, color, transpose, scale } = h;
  if (rows * cols > 8192) {
    g.globalAlpha = 0.35; g.fillStyle = color;
    g.fillRect(x, y, (transpose ? rows : cols) * cw, (transpose ? cols : rows) * ch);
    g.globalAlpha = 1;
    return;
  }
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = values[r * cols + c];
      if (Number.isNaN(v)) continue;
      g.globalAlpha = 0.15 + 0.85 * Math.min(1, Math.abs(v) / (scale || 1));
      g.fillStyle = v >= 0 ? color : NEGATIVE;
      g.fillRect(x + (transpose ? r : c) * cw, y + (transpose ? c : r) * ch, cw, ch);
    }
  }
  g.globalAlpha = 1;
}

function strokeRect(g: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, color: string, width = 1) {
  g.strokeStyle = color; g.lineWidth = width;
  g.strokeRect(x, y, w, h);
}

export interface Blocks { n: number; br: number; bc: number; tr: number; tc: number; font: string }

/** The inputs, drawn once per configuration and layout: Q, Kᵀ and Vᵀ with their frames, the
 * blocks' labels and (when rows are tall enough) the row numbers. */
export function paintInputs(canvas: HTMLCanvasElement, L: Layout, bands: HeatMap[], blocks: Blocks) {
  const g = growingContext(canvas, L.width, L.height);
  for (const b of bands) {
    paintHeat(g, b);
    strokeRect(g, b.x, b.y, (b.transpose ? b.rows : b.cols) * b.cw, (b.transpose ? b.cols : b.rows) * b.ch, colors.border);
  }
  paintLabels(g, L, blocks);
}

/** The block labels and row numbers alone, for new block sizes over the same heat maps. */
export function paintBlockLabels(canvas: HTMLCanvasElement, L: Layout, blocks: Blocks) {
  const g = grownContext(canvas);
  g.clearRect(0, L.gridY, L.labelW, blocks.n * L.cell);
  g.clearRect(L.gridX, 0, blocks.n * L.cell, L.kY);
  paintLabels(g, L, blocks);
}

// Left of Q: "Q1", "Q2", ... where a block is tall enough, and the rows' numbers (1-based, as the
// narration counts) where a row is. Over Kᵀ: "K3 V3" where it fits over the block, "3" where only
// that fits. Set off the page and copied in (offPageContext), as text drawn on a canvas of the page
// would restyle the page mid-render; canvas, not SVG text, since a new N or block size re-lays out
// every label, which as SVG text cost a change of N about a millisecond of layout.
function paintLabels(g: CanvasRenderingContext2D, L: Layout, { n, br, bc, tr, tc, font }: Blocks) {
  const c = L.cell, side = n * c;
  const left = offPageContext('row labels', L.labelW, side);
  left.textBaseline = 'middle';
  left.font = `600 10.5px ${font}`; left.fillStyle = colors.textMuted; left.textAlign = 'start';
  for (let i = 0; i < tr; i++) {
    const rows = Math.min(n - i * br, br);
    if (rows * c >= 12) left.fillText(`Q${i + 1}`, 2, (i * br + rows / 2) * c);
  }
  if (c >= 16) {
    left.font = `400 9.5px ${font}`; left.fillStyle = colors.muted; left.textAlign = 'end';
    for (let r = 0; r < n; r++) left.fillText(String(r + 1), L.labelW - 5, (r + 0.5) * c);
  }
  copyText(g, left, 0, L.gridY, L.labelW, side);
  const top = offPageContext('column labels', side, L.kY);
  top.font = `600 10.5px ${font}`; top.fillStyle = colors.textMuted; top.textAlign = 'center'; top.textBaseline = 'alphabetic';
  for (let j = 0; j < tc; j++) {
    const w = Math.min(n - j * bc, bc) * c;
    const text = [`K${j + 1} V${j + 1}`, `${j + 1}`].find((t) => t.length * 6.5 + 4 <= w);
    if (text) top.fillText(text, j * bc * c + w / 2, L.kY - 5);
  }
  copyText(g, top, L.gridX, 0, side, L.kY);
}

export interface GridPaint {
  n: number; br: number; bc: number; tr: number; tc: number;
  blockState: (i: number, j: number) => CellState;
  // The tile's cells, values in [0, 1] (row-major over rows x cols); NaN = a masked score.
  detail?: { rowBegin: number; colBegin: number; rows: number; cols: number; values: ArrayLike<number>; color: string };
  // Wide layouts: O so far (n x d, NaN = not written) and each row's m and ℓ.
  output?: { values: Float32Array; d: number; scale: number };
  stats?: { m: Float64Array; l: Float64Array; changedBegin: number; changedEnd: number; focusRow: number; font: string };
}

// A skipped block: the page background crossed by faint diagonal lines (the legend's hatch).
function hatch(g: CanvasRenderingContext2D, x: number, y: number, w: number, h: number) {
  g.save();
  g.beginPath(); g.rect(x, y, w, h); g.clip();
  g.fillStyle = colors.bg; g.fillRect(x, y, w, h);
  g.strokeStyle = colors.muted; g.globalAlpha = 0.55; g.lineWidth = 1.4;
  g.beginPath();
  const step = 6 * Math.SQRT2;
  for (let k = -h; k < w; k += step) { g.moveTo(x + k, y + h); g.lineTo(x + k + h, y); }
  g.stroke();
  g.restore();
}

/** Where the step canvas sits on the stage: the score matrix and what is right of it, with room
 * for the lines' width, so a step repaints (and hands the compositor) no more pixels than it changes. */
export function stepArea(L: Layout, n: number) {
  const pad = 2;
  return { x: L.gridX - pad, y: L.gridY - pad, width: L.width - L.gridX + 2 * pad, height: n * L.cell + 2 * pad };
}

/** One step: the score matrix's blocks, the tile's cells, the lines, O and the m, ℓ columns. */
export function paintStep(canvas: HTMLCanvasElement, L: Layout, p: GridPaint) {
  const area = stepArea(L, p.n);
  const g = growingContext(canvas, area.width, area.height);
  g.translate(-area.x, -area.y);
  const { n, br, bc, tr, tc } = p, c = L.cell, x0 = L.gridX, y0 = L.gridY, side = n * c;

  for (let i = 0; i < tr; i++) {
    const r0 = i * br, r1 = Math.min(n, r0 + br);
    for (let j = 0; j < tc; j++) {
      const c0 = j * bc, c1 = Math.min(n, c0 + bc);
      const state = p.blockState(i, j);
      const x = x0 + c0 * c, y = y0 + r0 * c, w = (c1 - c0) * c, h = (r1 - r0) * c;
      if (state === 'skipped') { hatch(g, x, y, w, h); continue; }
      const style = CELL_STYLE[state];
      g.globalAlpha = style.opacity; g.fillStyle = themeColor(style.fill);
      g.fillRect(x, y, w, h);
    }
  }
  g.globalAlpha = 1;

  const d = p.detail;
  if (d) {
    g.setLineDash([2, 2]);
    for (let r = 0; r < d.rows; r++) {
      for (let k = 0; k < d.cols; k++) {
        const v = d.values[r * d.cols + k], x = x0 + (d.colBegin + k) * c, y = y0 + (d.rowBegin + r) * c;
        if (Number.isNaN(v)) {
          g.fillStyle = colors.bg; g.fillRect(x, y, c, c);
          strokeRect(g, x, y, c, c, colors.border, 0.6);
        } else {
          g.globalAlpha = 0.12 + 0.88 * Math.min(Math.max(v, 0), 1);
          g.fillStyle = d.color; g.fillRect(x, y, c, c);
          g.globalAlpha = 1;
        }
      }
    }
    g.setLineDash([]);
  }

  // Lines between cells (when cells are big enough to see them), between blocks, and the frame.
  if (c >= 5) {
    g.beginPath();
    for (let r = 1; r < n; r++) if (r % br) { g.moveTo(x0, y0 + r * c); g.lineTo(x0 + side, y0 + r * c); }
    for (let k = 1; k < n; k++) if (k % bc) { g.moveTo(x0 + k * c, y0); g.lineTo(x0 + k * c, y0 + side); }
    g.strokeStyle = 'rgba(255, 255, 255, 0.06)'; g.lineWidth = 1; g.stroke();
  }
  g.beginPath();
  for (let r = br; r < n; r += br) { g.moveTo(x0, y0 + r * c); g.lineTo(x0 + side, y0 + r * c); }
  for (let k = bc; k < n; k += bc) { g.moveTo(x0 + k * c, y0); g.lineTo(x0 + k * c, y0 + side); }
  g.strokeStyle = 'rgba(255, 255, 255, 0.22)'; g.lineWidth = 1.2; g.stroke();
  strokeRect(g, x0, y0, side, side, colors.border);

  if (p.output) {
    const o = p.output;
    paintHeat(g, { values: o.values, rows: n, cols: o.d, x: L.oX, y: y0, cw: L.band / o.d, ch: c, color: colors.heads[3], scale: o.scale });
    strokeRect(g, L.oX, y0, L.band, side, colors.border);
  }

  const s = p.stats;
  if (s) {
    g.beginPath();
    g.roundRect(L.oX + L.band + 2, y0 + s.focusRow * c + 1, 2 * STATS_COL + 4, c - 2, 4);
    g.fillStyle = 'rgba(251, 191, 36, 0.08)'; g.fill();
    g.strokeStyle = 'rgba(251, 191, 36, 0.55)'; g.lineWidth = 1; g.stroke();
    // The numbers are set off the page (offPageContext) and copied in.
    const w = 2 * STATS_COL, t = offPageContext('m and l', w, side);
    t.textAlign = 'end'; t.textBaseline = 'middle';
    // The rows this step changed in bold amber, the rest plain, each set under one font: assigning
    // a font that differs from the current one re-parses and resolves it (most of a step's paint
    // time when the two alternated row by row).
    const row = (r: number) => {
      const y = (r + 0.5) * c;
      t.fillText(fmt(s.m[r], 2), STATS_COL - 6, y);
      t.fillText(fmt(s.l[r], 2), 2 * STATS_COL - 6, y);
    };
    t.font = `400 11px ${s.font}`; t.fillStyle = colors.textMuted;
    for (let r = 0; r < n; r++) if (r < s.changedBegin || r >= s.changedEnd) row(r);
    t.font = `650 11px ${s.font}`; t.fillStyle = '#fbbf24';
    for (let r = s.changedBegin; r < s.changedEnd; r++) row(r);
    copyText(g, t, L.statsX, y0, w, side);
  }
}
