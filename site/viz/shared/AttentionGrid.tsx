// AttentionGrid: a queries x keys score matrix drawn in SVG as blocks of blockRows x blockCols
// cells (FlashAttention's Br x Bc tiles), each block coloured by its state, one rectangle of cells
// optionally drawn cell by cell as a heat map (the tile in SRAM), and a highlight frame around the
// tile being worked on. It only draws: the caller says what each block's state is (from a trace).
//   x, y            top-left corner inside the parent <svg>
//   rows, cols      cells (query rows, key columns); cell is the side of one cell in px
//   blockRows/Cols  the tile shape; the last block row/column may be ragged
//   blockState      the state of block (i, j): see CellState and CELL_STYLE
//   detail          optional cell-level values in [0, 1] over a rectangle (row-major); NaN = masked
//   highlight       optional frame, in cells, e.g. the tile held in SRAM
//   pulse           optional rectangle (in cells) that flashes once each time pulseKey changes
//   onBlockClick    optional: clicking a block calls it (a mouse shortcut, e.g. "go to the step that
//                   computes this tile"; keyboard users have the figure's own controls)
//   blockLabel      optional tooltip per block
//   idPrefix        makes the SVG pattern ids unique when several grids share a page
// AttentionCell is one rectangle in a given state; the grid uses it for blocks and detail cells.
import { Component } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { reducedMotion } from './motion';

export type CellState = 'idle' | 'active' | 'done' | 'stored' | 'storedStrong' | 'skipped';

/** Fill and opacity per state; colours are the theme's custom properties (shared/theme.ts). */
export const CELL_STYLE: Record<CellState, { fill: string; opacity: number }> = {
  idle: { fill: 'var(--panel)', opacity: 1 },
  active: { fill: 'var(--sram)', opacity: 0.22 },
  done: { fill: 'var(--muted)', opacity: 0.32 },
  stored: { fill: 'var(--hbm)', opacity: 0.3 },
  storedStrong: { fill: 'var(--hbm)', opacity: 0.6 },
  skipped: { fill: 'url(#PREFIX-hatch)', opacity: 1 },
};

export interface CellRect { rowBegin: number; rowEnd: number; colBegin: number; colEnd: number }

export interface AttentionGridProps {
  x?: number;
  y?: number;
  rows: number;
  cols: number;
  cell: number;
  blockRows: number;
  blockCols: number;
  blockState: (i: number, j: number) => CellState;
  detail?: { rowBegin: number; colBegin: number; rows: number; cols: number; values: ArrayLike<number>; color: string };
  highlight?: CellRect | null;
  highlightColor?: string;
  pulse?: CellRect | null;
  pulseKey?: string | number;
  onBlockClick?: (i: number, j: number) => void;
  blockLabel?: (i: number, j: number) => string;
  idPrefix?: string;
}

export function AttentionCell({ x, y, w, h, state, value, color, idPrefix = 'grid' }: {
  x: number; y: number; w: number; h: number; state?: CellState; value?: number; color?: string; idPrefix?: string;
}) {
  if (value !== undefined) {
    // A heat cell: NaN (a masked score) is drawn as an empty dashed cell.
    if (Number.isNaN(value)) return <rect x={x} y={y} width={w} height={h} class="attn-cell masked" />;
    return <rect x={x} y={y} width={w} height={h} fill={color} fill-opacity={0.12 + 0.88 * Math.min(Math.max(value, 0), 1)} class="attn-cell heat" />;
  }
  const style = CELL_STYLE[state ?? 'idle'];
  return <rect x={x} y={y} width={w} height={h} style={{ fill: style.fill.replace('PREFIX', idPrefix) }} fill-opacity={style.opacity} class={`attn-cell ${state}`} />;
}

// The lines between cells and between blocks depend only on the shape, so they re-render only
// when it changes: stepping through a trace re-renders the block fills alone. (A class with
// shouldComponentUpdate rather than preact/compat's memo, whose vnode hook taxes every element.)
interface LinesProps { rows: number; cols: number; cell: number; blockRows: number; blockCols: number }
class GridLines extends Component<LinesProps> {
  shouldComponentUpdate(next: LinesProps) {
    const p = this.props;
    return p.rows !== next.rows || p.cols !== next.cols || p.cell !== next.cell || p.blockRows !== next.blockRows || p.blockCols !== next.blockCols;
  }
  render({ rows, cols, cell, blockRows, blockCols }: LinesProps) {
    const w = cols * cell, h = rows * cell;
    let thin = '', thick = '';
    if (cell >= 5) {
      for (let r = 1; r < rows; r++) if (r % blockRows) thin += `M0 ${r * cell}H${w}`;
      for (let c = 1; c < cols; c++) if (c % blockCols) thin += `M${c * cell} 0V${h}`;
    }
    for (let r = blockRows; r < rows; r += blockRows) thick += `M0 ${r * cell}H${w}`;
    for (let c = blockCols; c < cols; c += blockCols) thick += `M${c * cell} 0V${h}`;
    return (
      <g class="attn-lines" aria-hidden="true">
        {thin && <path d={thin} class="attn-line-cell" />}
        {thick && <path d={thick} class="attn-line-block" />}
        <rect x={0} y={0} width={w} height={h} class="attn-frame" />
      </g>
    );
  }
}

export function AttentionGrid(props: AttentionGridProps) {
  const { x = 0, y = 0, rows, cols, cell, blockRows, blockCols, blockState, detail, highlight, highlightColor = 'var(--sram)', pulse, pulseKey, onBlockClick, blockLabel, idPrefix = 'grid' } = props;
  const tr = Math.ceil(rows / blockRows), tc = Math.ceil(cols / blockCols);
  const pulseRef = useRef<SVGRectElement>(null);
  const tooltip = useRef<HTMLTitleElement>(null);  // Preact types <title> as the HTML element

  useEffect(() => {
    const el = pulseRef.current;
    if (!el || reducedMotion.value || typeof el.animate !== 'function') return;
    el.animate([{ opacity: 0.95 }, { opacity: 0 }], { duration: 700, easing: 'cubic-bezier(0.22, 1, 0.36, 1)' });
  }, [pulseKey]);

  const blocks = [];
  for (let i = 0; i < tr; i++) {
    const r0 = i * blockRows, r1 = Math.min(rows, r0 + blockRows);
    for (let j = 0; j < tc; j++) {
      const c0 = j * blockCols, c1 = Math.min(cols, c0 + blockCols);
      const state = blockState(i, j);
      // Called, not mounted: a grid redraws every cell on every step, and a component instance
      // per cell costs more to diff than the rectangle it returns.
      blocks.push(AttentionCell({ x: c0 * cell, y: r0 * cell, w: (c1 - c0) * cell, h: (r1 - r0) * cell, state, idPrefix }));
    }
  }

  // One click handler and one tooltip for the whole grid: the block under the pointer, from the
  // pointer's position in the grid's own coordinates.
  const blockAt = (e: MouseEvent): [number, number] | null => {
    const g = e.currentTarget as SVGGElement, m = g.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    const i = Math.floor(p.y / (blockRows * cell)), j = Math.floor(p.x / (blockCols * cell));
    return i >= 0 && i < tr && j >= 0 && j < tc ? [i, j] : null;
  };
  const onClick = onBlockClick && ((e: MouseEvent) => { const b = blockAt(e); if (b) onBlockClick(...b); });
  const onPointerMove = blockLabel && ((e: PointerEvent) => {
    const b = blockAt(e), title = tooltip.current;
    if (title) title.textContent = b ? blockLabel(...b) : '';
  });

  const cells = [];
  if (detail) {
    for (let r = 0; r < detail.rows; r++) {
      for (let c = 0; c < detail.cols; c++) {
        cells.push(AttentionCell({ x: (detail.colBegin + c) * cell, y: (detail.rowBegin + r) * cell, w: cell, h: cell,
          value: detail.values[r * detail.cols + c], color: detail.color }));
      }
    }
  }

  const frame = (rc: CellRect, pad: number) => ({
    x: rc.colBegin * cell - pad, y: rc.rowBegin * cell - pad,
    width: Math.max(0, (rc.colEnd - rc.colBegin) * cell + 2 * pad), height: Math.max(0, (rc.rowEnd - rc.rowBegin) * cell + 2 * pad),
  });

  return (
    <g transform={`translate(${x},${y})`} class="attn-grid">
      <defs>
        <pattern id={`${idPrefix}-hatch`} width={6} height={6} patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <rect width={6} height={6} fill="var(--bg)" />
          <line x1={0} y1={0} x2={0} y2={6} stroke="var(--muted)" stroke-width={1.4} stroke-opacity={0.55} />
        </pattern>
      </defs>
      <g class={onBlockClick ? 'attn-blocks clickable' : 'attn-blocks'} onClick={onClick} onPointerMove={onPointerMove}>
        {blockLabel && <title ref={tooltip} />}
        {blocks}
      </g>
      <g class="attn-detail">{cells}</g>
      <GridLines rows={rows} cols={cols} cell={cell} blockRows={blockRows} blockCols={blockCols} />
      {pulse && <rect ref={pulseRef} {...frame(pulse, 0)} class="attn-pulse" opacity={0} />}
      {highlight && highlight.rowEnd > highlight.rowBegin && highlight.colEnd > highlight.colBegin && (
        <g aria-hidden="true">
          <rect {...frame(highlight, 1.5)} rx={3} class="attn-highlight glow" style={{ stroke: highlightColor }} />
          <rect {...frame(highlight, 1.5)} rx={3} class="attn-highlight" style={{ stroke: highlightColor }} />
        </g>
      )}
    </g>
  );
}
