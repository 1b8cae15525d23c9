// GPUBlock: a GPU drawn as its grid of streaming multiprocessors (SMs) and the memory pools it
// talks to (L2, HBM, host, ...), in one SVG sized in pixels so its text stays readable at 375 px.
//   smCount      SMs to draw (a GPU preset's smCount)
//   width        drawing width in px; the height follows (gpuBlockLayout returns both)
//   direction    'row': pools to the right of the chip, nearest first; 'column': pools side by side below it
//   label        text on the chip, e.g. "A100: 108 SMs"
//   smFill       colour of SM i (a CSS colour or var(--token)); default: idle grey
//   smTitle      hover text of SM i (optional)
//   pools        memory levels beside the chip: id, label, detail lines, colour, and title (hover
//                text, e.g. the numbers' sources); a pool is focusable when onPoolFocus is given
//   activePool   id of a pool drawn highlighted (e.g. the one whose sources are shown)
//   onPoolFocus  called with a pool's id on hover or keyboard focus
//   overlay      drawn last, in the same coordinates, given the layout (particles, highlights)
//   columns      SM grid columns; default: about 1.5 times as many columns as rows
// SMs spring in on first paint (CSS, dropped under reduced motion); their fill transitions.
import type { ComponentChildren } from 'preact';
import './GPUBlock.css';

export interface GPUPool {
  id: string;
  label: string;
  detail?: string[];
  color: string;
  title?: string;
}

export interface Rect { x: number; y: number; w: number; h: number }

export interface GPUBlockLayout {
  width: number;
  height: number;
  chip: Rect;
  cells: Rect[];
  pools: Rect[];
}

export interface GPUBlockProps {
  smCount: number;
  width: number;
  direction?: 'row' | 'column';
  label?: string;
  smFill?: (sm: number) => string;
  smTitle?: (sm: number) => string;
  pools?: GPUPool[];
  activePool?: string;
  onPoolFocus?: (id: string) => void;
  overlay?: (layout: GPUBlockLayout) => ComponentChildren;
  columns?: number;
  class?: string;
}

const PAD = 8, LABEL_H = 20, GAP = 2, POOL_GAP = 26, POOL_H = 62;

export function gpuBlockLayout({ smCount, width, direction = 'row', pools = [], columns }:
  Pick<GPUBlockProps, 'smCount' | 'width' | 'direction' | 'pools' | 'columns'>): GPUBlockLayout {
  const cols = columns ?? Math.max(1, Math.ceil(Math.sqrt(smCount * 1.5)));
  const rows = Math.ceil(smCount / cols);
  const row = direction === 'row' && pools.length > 0;
  const chipW = row ? Math.max(120, Math.round((width - POOL_GAP * pools.length) * 0.4)) : width;
  const cell = (chipW - 2 * PAD - (cols - 1) * GAP) / cols;
  const chipH = Math.round(PAD + LABEL_H + rows * cell + (rows - 1) * GAP + PAD);
  const chip = { x: 0, y: 0, w: chipW, h: chipH };
  const cells = Array.from({ length: smCount }, (_, i) => ({
    x: PAD + (i % cols) * (cell + GAP), y: LABEL_H + PAD + Math.floor(i / cols) * (cell + GAP), w: cell, h: cell,
  }));
  let poolRects: Rect[];
  let height = chipH;
  if (row) {
    const w = (width - chipW - POOL_GAP * pools.length) / pools.length;
    const h = Math.min(chipH, POOL_H + 34);  // pools are drawn centred on the chip's mid-line
    poolRects = pools.map((_, i) => ({ x: chipW + POOL_GAP + i * (w + POOL_GAP), y: (chipH - h) / 2, w, h }));
  } else {
    // Narrow: the pools side by side under the chip.
    const gap = 10, w = (width - gap * (pools.length - 1)) / Math.max(pools.length, 1);
    poolRects = pools.map((_, i) => ({ x: i * (w + gap), y: chipH + POOL_GAP, w, h: POOL_H }));
    if (pools.length) height = chipH + POOL_GAP + POOL_H;
  }
  return { width, height, chip, cells, pools: poolRects };
}

export function GPUBlock(props: GPUBlockProps) {
  const { smCount, label, smFill, smTitle, pools = [], activePool, onPoolFocus, overlay } = props;
  const layout = gpuBlockLayout(props);
  const { chip, cells } = layout;
  const row = (props.direction ?? 'row') === 'row';
  // Links join the chip to the first pool and each pool to the next (the path data moves along).
  const ends = [chip, ...layout.pools];
  return (
    <svg class={`gpu-block${props.class ? ' ' + props.class : ''}`} width={layout.width} height={layout.height}
      viewBox={`0 0 ${layout.width} ${layout.height}`} role="group" aria-label={label ?? `GPU with ${smCount} SMs`}>
      {layout.pools.map((p, i) => {
        const a = ends[i];
        return row
          ? <line key={`l${i}`} class="gpu-link" x1={a.x + a.w} y1={a.y + a.h / 2} x2={p.x} y2={p.y + p.h / 2} />
          : i === 0
            ? <line key={`l${i}`} class="gpu-link" x1={p.x + p.w / 2} y1={a.y + a.h} x2={p.x + p.w / 2} y2={p.y} />
            : <line key={`l${i}`} class="gpu-link" x1={a.x + a.w} y1={p.y + p.h / 2} x2={p.x} y2={p.y + p.h / 2} />;
      })}
      <rect class="gpu-chip" x={chip.x + 0.5} y={chip.y + 0.5} width={chip.w - 1} height={chip.h - 1} rx={8} />
      {label && <text class="gpu-chip-label" x={chip.x + PAD} y={chip.y + PAD + 11}>{label}</text>}
      <g class="gpu-sms">
        {cells.map((c, i) => (
          <rect key={i} class="gpu-sm" x={c.x} y={c.y} width={c.w} height={c.h} rx={Math.min(3, c.w / 4)}
            style={{ fill: smFill ? smFill(i) : undefined, animationDelay: `${(i % 16) * 12 + Math.floor(i / 16) * 18}ms` }}>
            {smTitle && <title>{smTitle(i)}</title>}
          </rect>
        ))}
      </g>
      {pools.map((pool, i) => {
        const r = layout.pools[i];
        const focus = onPoolFocus ? () => onPoolFocus(pool.id) : undefined;
        return (
          <g key={pool.id} class={`gpu-pool${activePool === pool.id ? ' active' : ''}`} data-pool={pool.id}
            tabIndex={onPoolFocus ? 0 : undefined} onFocus={focus} onMouseEnter={focus}
            role={onPoolFocus ? 'button' : undefined} aria-label={[pool.label, ...(pool.detail ?? [])].join(', ')}>
            {pool.title && <title>{pool.title}</title>}
            <rect x={r.x + 0.5} y={r.y + 0.5} width={r.w - 1} height={r.h - 1} rx={8} style={{ stroke: pool.color }} />
            <rect class="gpu-pool-band" x={r.x + 1} y={r.y + 1} width={4} height={r.h - 2} style={{ fill: pool.color }} />
            <text class="gpu-pool-label" x={r.x + 12} y={r.y + 18}>{pool.label}</text>
            {(pool.detail ?? []).map((line, j) => (
              <text key={j} class="gpu-pool-detail" x={r.x + 12} y={r.y + 35 + j * 15}>{line}</text>
            ))}
          </g>
        );
      })}
      {overlay?.(layout)}
    </svg>
  );
}
