// The stage: Q on the left, Kᵀ and Vᵀ on top, the N x N score matrix in blocks, and (when there
// is room) the output O with each row's m and ℓ on the right. The blocks in SRAM are framed in
// green; each step's HBM transfers flash on the matrix they touch (reads blue, writes red).
import { Component } from 'preact';
import type { HbmTransfer } from '../../../wasm/load';
import { AttentionGrid, type CellState } from '../shared/AttentionGrid';
import { fmt } from '../shared/format';
import { colors } from '../shared/theme';
import { followedRow, isFlashStep, rowState, type Run } from './model';

const BAND = 2.5;          // thickness of the Q, Kᵀ, Vᵀ and O bands, in cells
const GAP = 8;
const STATS_COL = 50;
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

// A diverging heat map for input and output values: warm for positive, slate for negative, the
// opacity growing with |value| (quantised to OPACITY_LEVELS steps, invisible to the eye).
const OPACITY_LEVELS = 12;
const heatLevel = (v: number, maxAbs: number) => Math.round(OPACITY_LEVELS * Math.min(1, Math.abs(v) / (maxAbs || 1)));
const levelOpacity = (level: number) => 0.15 + (0.85 * level) / OPACITY_LEVELS;
const maxAbs = (a: Float32Array) => a.reduce((m, x) => (Number.isNaN(x) ? m : Math.max(m, Math.abs(x))), 0);
const NEGATIVE = '#94a3b8';

// A matrix of values drawn as rows x cols cells; `transpose` draws element (r, c) at column r; NaN
// cells are left empty. Cells of one colour and opacity share one <path>, so a matrix is a few
// dozen elements rather than one per value. It re-renders only when a prop changes.
interface HeatProps {
  values: Float32Array; rows: number; cols: number; x: number; y: number; cw: number; ch: number; color: string; transpose?: boolean; scale: number;
}
class Heat extends Component<HeatProps> {
  shouldComponentUpdate(next: HeatProps) {
    return (Object.keys(next) as (keyof HeatProps)[]).some((k) => next[k] !== this.props[k]);
  }
  render({ values, rows, cols, x, y, cw, ch, color, transpose, scale }: HeatProps) {
    if (rows * cols > 8192) return <rect x={x} y={y} width={(transpose ? rows : cols) * cw} height={(transpose ? cols : rows) * ch} fill={color} fill-opacity={0.35} />;
    // Path data per (sign, level): index level for positive values, OPACITY_LEVELS + 1 + level for negative.
    const paths: string[] = new Array(2 * (OPACITY_LEVELS + 1)).fill('');
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const v = values[r * cols + c];
        if (Number.isNaN(v)) continue;
        const px = x + (transpose ? r : c) * cw, py = y + (transpose ? c : r) * ch;
        paths[(v >= 0 ? 0 : OPACITY_LEVELS + 1) + heatLevel(v, scale)] += `M${px} ${py}h${cw}v${ch}h${-cw}z`;
      }
    }
    return (
      <g>
        {paths.map((d, i) => (d ? <path key={i} d={d} fill={i <= OPACITY_LEVELS ? color : NEGATIVE} fill-opacity={levelOpacity(i % (OPACITY_LEVELS + 1))} /> : null))}
      </g>
    );
  }
}

interface Rect { x: number; y: number; width: number; height: number }

// A block held in SRAM: a green frame with a soft glow (a wide faint stroke, cheaper than a filter).
function SramFrame({ x, y, width, height }: Rect) {
  const r = { x: x - 1.5, y: y - 1.5, width: width + 3, height: height + 3, rx: 3 };
  return <g aria-hidden="true"><rect {...r} class="sram-frame glow" /><rect {...r} class="sram-frame" /></g>;
}

// What changes only with the configuration and the layout: labels, the Q, Kᵀ and Vᵀ heat maps
// and their frames. Skipped on every step, so a step diffs only what the step changed.
class StageFixed extends Component<{ run: Run; L: Layout }> {
  shouldComponentUpdate(next: { run: Run; L: Layout }) {
    const a = this.props, c = a.run.config, nc = next.run.config;
    return next.run.q !== a.run.q || nc.n !== c.n || nc.d !== c.d || nc.br !== c.br || nc.bc !== c.bc ||
      (Object.keys(next.L) as (keyof Layout)[]).some((k) => next.L[k] !== a.L[k]);
  }
  render({ run, L }: { run: Run; L: Layout }) {
    const { n, d, br, bc } = run.config;
    const c = L.cell, fw = L.band / d;
    const inputs = Math.max(maxAbs(run.q), maxAbs(run.k), maxAbs(run.v));
    const qBlockLabels = [];
    for (let i = 0; i < run.tr; i++) {
      const y = L.gridY + (i * br + Math.min(n - i * br, br) / 2) * c;
      if (Math.min(n - i * br, br) * c >= 12) qBlockLabels.push(<text key={i} x={2} y={y} class="block-label" dominant-baseline="middle">Q{i + 1}</text>);
    }
    // Row numbers (1-based, as the narration counts) when rows are tall enough to label.
    const rowNumbers = [];
    if (c >= 16) {
      for (let r = 0; r < n; r++) rowNumbers.push(<text key={r} x={L.labelW - 5} y={L.gridY + (r + 0.5) * c} class="row-number" text-anchor="end" dominant-baseline="middle">{r + 1}</text>);
    }
    // K/V block labels: "K3 V3" when it fits over the block, "3" when only that fits, else none.
    const kBlockLabels = [];
    for (let j = 0; j < run.tc; j++) {
      const w = Math.min(n - j * bc, bc) * c;
      const text = [`K${j + 1} V${j + 1}`, `${j + 1}`].find((t) => t.length * 6.5 + 4 <= w);
      if (text) kBlockLabels.push(<text key={j} x={L.gridX + j * bc * c + w / 2} y={L.kY - 5} class="block-label" text-anchor="middle">{text}</text>);
    }
    return (
      <g>
        <text x={L.labelW + L.band / 2} y={L.gridY - 6} class="band-label" text-anchor="middle">Q</text>
        <text x={L.labelW + L.band - 4} y={L.kY + L.band / 2} class="band-label" text-anchor="end" dominant-baseline="middle">Kᵀ</text>
        <text x={L.labelW + L.band - 4} y={L.vY + L.band / 2} class="band-label" text-anchor="end" dominant-baseline="middle">Vᵀ</text>
        {/* Under the grid, or, narrow, under the whole drawing, whose width it needs. */}
        <text x={L.wide ? L.gridX + (n * c) / 2 : L.width / 2} y={L.gridY + n * c + 15} class="band-label" text-anchor="middle">
          S = QKᵀ/√d <tspan class="muted-label">{n} × {n} scores in {br} × {bc} blocks</tspan></text>
        {qBlockLabels}
        {rowNumbers}
        {kBlockLabels}
        {L.wide && <text x={L.oX + L.band / 2} y={L.gridY - 6} class="band-label" text-anchor="middle">O</text>}
        {L.stats && <text x={L.statsX + STATS_COL - 6} y={L.gridY - 6} class="band-label" text-anchor="end">m</text>}
        {L.stats && <text x={L.statsX + 2 * STATS_COL - 6} y={L.gridY - 6} class="band-label" text-anchor="end">ℓ</text>}
        <Heat values={run.q} rows={n} cols={d} x={L.labelW} y={L.gridY} cw={fw} ch={c} color={colors.heads[0]} scale={inputs} />
        <Heat values={run.k} rows={n} cols={d} x={L.gridX} y={L.kY} cw={c} ch={fw} color={colors.heads[1]} transpose scale={inputs} />
        <Heat values={run.v} rows={n} cols={d} x={L.gridX} y={L.vY} cw={c} ch={fw} color={colors.heads[3]} transpose scale={inputs} />
        <rect x={L.labelW} y={L.gridY} width={L.band} height={n * c} class="band-frame" />
        <rect x={L.gridX} y={L.kY} width={n * c} height={L.band} class="band-frame" />
        <rect x={L.gridX} y={L.vY} width={n * c} height={L.band} class="band-frame" />
      </g>
    );
  }
}

export function Stage({ run, at, width, onSeek }: { run: Run; at: number; width: number; onSeek: (step: number) => void }) {
  const L = layout(run, width);
  const { n, d, br, bc, mode } = run.config;
  const s = run.steps[at];
  const c = L.cell;
  const fw = L.band / d;  // one feature's width in a band
  const flash = isFlashStep(s);

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
  let detail;
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

  // Which blocks of Q, K, V, O are on chip at this step.
  const onChipRows = rows > 0 && s.kind !== 'init_o';
  const onChipK = cols > 0 && s.kind !== 'pv_tile' && s.kind !== 'softmax_rows';
  const onChipV = cols > 0 && (flash || s.kind === 'pv_tile');
  const gridHighlight = rows > 0 && cols > 0 && s.kind !== 'skip' ? { rowBegin: s.rowBegin, rowEnd: s.rowEnd, colBegin: s.colBegin, colEnd: s.colEnd } : null;
  const spWrite = s.transfers.find((t) => t.direction === 'write' && (t.matrix === 'S' || t.matrix === 'P'));

  // Where each transfer of the step lands on the stage.
  const transferRect = (t: HbmTransfer): Rect | null => {
    const r0 = t.rowBegin, r1 = t.rowEnd;
    switch (t.matrix) {
      case 'Q': return { x: L.labelW, y: L.gridY + r0 * c, width: L.band, height: (r1 - r0) * c };
      case 'K': return { x: L.gridX + r0 * c, y: L.kY, width: (r1 - r0) * c, height: L.band };
      case 'V': return { x: L.gridX + r0 * c, y: L.vY, width: (r1 - r0) * c, height: L.band };
      case 'O': case 'm': case 'l': case 'lse':
        return L.wide ? { x: L.oX, y: L.gridY + r0 * c, width: (L.stats ? L.statsX + 2 * STATS_COL : L.oX + L.band) - L.oX, height: (r1 - r0) * c } : null;
      default: return null;  // S and P flash on the grid itself
    }
  };

  // Right side: O so far and each row's m and ℓ, as the trace last reported them.
  const right = [];
  if (L.wide) {
    const states = Array.from({ length: n }, (_, r) => rowState(run, at, r));
    // O so far; rows the trace has not written yet stay empty (NaN).
    const outs = new Float32Array(n * d).fill(NaN);
    states.forEach((st, r) => st.output && outs.set(st.output, r * d));
    right.push(<Heat key="o" values={outs} rows={n} cols={d} x={L.oX} y={L.gridY} cw={fw} ch={c} color={colors.heads[3]} scale={maxAbs(outs)} />);
    for (let r = 0; r < n; r++) {
      const y = L.gridY + r * c;
      if (L.stats) {
        const changed = r >= s.rowBegin && r < s.rowEnd && (s.kind === 'tile' || s.kind === 'softmax_rows');
        right.push(
          <text key={`m${r}`} x={L.statsX + STATS_COL - 6} y={y + c / 2} class={changed ? 'stat changed' : 'stat'} text-anchor="end" dominant-baseline="middle" data-testid={`m-${r + 1}`}>{fmt(states[r].m, 2)}</text>,
          <text key={`l${r}`} x={L.statsX + 2 * STATS_COL - 6} y={y + c / 2} class={changed ? 'stat changed' : 'stat'} text-anchor="end" dominant-baseline="middle" data-testid={`l-${r + 1}`}>{fmt(states[r].l, 2)}</text>,
        );
      }
    }
    const fr = followedRow(s);
    if (L.stats) right.push(<rect key="focus" x={L.oX + L.band + 2} y={L.gridY + fr * c + 1} width={2 * STATS_COL + 4} height={c - 2} rx={4} class="focus-row" />);
    right.push(<rect key="oframe" x={L.oX} y={L.gridY} width={L.band} height={n * c} class="band-frame" />);
  }

  return (
    <svg width={L.width} height={L.height} class="stage" role="group"
      aria-label={`Q on the left, K and V on top, the ${n} by ${n} score matrix in ${br} by ${bc} blocks${L.wide ? ', the output O with each row’s m and ℓ on the right' : ''}.`}>
      <StageFixed run={run} L={L} />
      {right}

      <AttentionGrid x={L.gridX} y={L.gridY} rows={n} cols={n} cell={c} blockRows={br} blockCols={bc} blockState={blockState}
        detail={detail} highlight={gridHighlight}
        pulse={spWrite ? { rowBegin: spWrite.rowBegin, rowEnd: spWrite.rowEnd, colBegin: spWrite.colBegin, colEnd: spWrite.colEnd } : null}
        pulseKey={at} idPrefix="tiling"
        onBlockClick={(i, j) => {
          const b = i * run.tc + j;
          const target = mode === 'standard' && run.tileStep[b] < at && run.pvStep[b] >= 0 ? run.pvStep[b] : run.tileStep[b];
          if (target >= 0) onSeek(target);
        }}
        blockLabel={(i, j) => `Q block ${i + 1} × K block ${j + 1}: click to go to its step`} />

      {/* On-chip frames */}
      {onChipRows && <SramFrame key="q" x={L.labelW} y={L.gridY + s.rowBegin * c} width={L.band} height={rows * c} />}
      {onChipRows && L.wide && (s.kind === 'tile' || s.kind === 'write_o' || s.kind === 'pv_tile' || s.kind === 'skip' || s.kind === 'load_q') &&
        <SramFrame key="o" x={L.oX} y={L.gridY + s.rowBegin * c} width={L.band} height={rows * c} />}
      {onChipK && <SramFrame key="k" x={L.gridX + s.colBegin * c} y={L.kY} width={cols * c} height={L.band} />}
      {onChipV && <SramFrame key="v" x={L.gridX + s.colBegin * c} y={L.vY} width={cols * c} height={L.band} />}

      {/* This step's HBM transfers: keyed by step, so each new step replays the flash */}
      <g class="transfers" aria-hidden="true">
        {s.transfers.map((t, i) => {
          const rect = transferRect(t);
          return rect && <rect key={`${at}-${i}`} {...rect} class={`transfer ${t.direction}`} />;
        })}
      </g>
    </svg>
  );
}
