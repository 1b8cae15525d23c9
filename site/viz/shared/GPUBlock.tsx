// GPUBlock: a GPU drawn as its grid of streaming multiprocessors (SMs) and the memory pools it
// talks to (L2, HBM, host, ...), sized in pixels so its text stays readable at 375 px. The chip,
// its label, the pools and the links are SVG; the SM cells are painted on a canvas laid over the
// chip, because figures recolour every SM on every frame of playback and a hundred-odd SVG
// elements restyled per frame cost far more than one small canvas repaint.
//   smCount      SMs to draw (a GPU preset's smCount)
//   width        drawing width in px; the height follows (gpuBlockLayout returns both)
//   direction    'row': pools to the right of the chip, nearest first; 'column': pools side by side below it
//   label        text on the chip, e.g. "A100: 108 SMs"
//   smFill       colour of SM i (a colour string the canvas accepts: hex, rgb(), hsl(); not var());
//                default: idle grey
//   smTitle      hover text of SM i (optional)
//   pools        memory levels beside the chip: id, label, detail lines, colour, and title (hover
//                text, e.g. the numbers' sources); a pool is focusable when onPoolFocus is given
//   activePool   id of a pool drawn highlighted (e.g. the one whose sources are shown)
//   onPoolFocus  called with a pool's id on hover or keyboard focus
//   overlay      drawn last in the SVG, in the same coordinates, given the layout (particles, highlights)
//   columns      SM grid columns; default: about 1.5 times as many columns as rows
// SMs spring in one after another when the grid first appears, and added SMs when the count grows
// (snapped under reduced motion).
import { cubicBezier } from 'motion';
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { fitText, growingContext, pageFontFamily } from './canvas';
import { reducedMotion } from './motion';
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

const IDLE_SM = '#262626';
// The pools' text fonts (GPUBlock.css, in the page's family), to condense a line wider than its
// pool (fitText).
const fonts = () => ({ label: `650 12.5px ${pageFontFamily()}`, detail: `11.5px ${pageFontFamily()}` });
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

// Entry: SM i starts springing in after its delay (a sweep across the grid) and takes SPRING_MS.
const SPRING_MS = 420;
const entryDelay = (i: number) => (i % 16) * 12 + Math.floor(i / 16) * 18;
// Scale 0.2 -> 1 on an ease-out that overshoots a little before settling.
const overshoot = cubicBezier(0.34, 1.56, 0.64, 1);
const springScale = (p: number) => 0.2 + 0.8 * overshoot(p);

// Paints the SM cells; cells from `entering` on are sinceMs into their entry. Returns whether any
// is still springing in. The canvas keeps the store of the largest chip drawn so far (a GPU with
// another SM count repaints in place), clipped to the chip by its container.
function paintSms(canvas: HTMLCanvasElement, layout: GPUBlockLayout, fill: (sm: number) => string, entering: number, sinceMs: number): boolean {
  const { chip, cells } = layout;
  const g = growingContext(canvas, chip.w, chip.h);
  let settling = false;
  cells.forEach((c, i) => {
    const p = i < entering ? 1 : Math.min(1, Math.max(0, (sinceMs - entryDelay(i - entering)) / SPRING_MS));
    if (p < 1) settling = true;
    if (p <= 0) return;
    const k = springScale(p), cw = c.w * k, ch = c.h * k;
    g.globalAlpha = Math.min(1, p * 2);
    g.fillStyle = fill(i);
    g.beginPath();
    g.roundRect(c.x - chip.x + (c.w - cw) / 2, c.y - chip.y + (c.h - ch) / 2, cw, ch, Math.min(3, cw / 4));
    g.fill();
  });
  g.globalAlpha = 1;
  return settling;
}

export function GPUBlock(props: GPUBlockProps) {
  const { smCount, label, smFill, smTitle, pools = [], activePool, onPoolFocus, overlay } = props;
  const layout = gpuBlockLayout(props);
  const { chip } = layout;
  const row = (props.direction ?? 'row') === 'row';
  const canvas = useRef<HTMLCanvasElement>(null);
  // The entry under way: from which cell the SMs spring in (all of them at first; a GPU with more
  // SMs adds its extra ones) and when it started; start is null once every cell has settled.
  const entry = useRef<{ smCount: number; from: number; start: number | null }>({ smCount: 0, from: 0, start: null });
  const fill = (sm: number) => (smFill ? smFill(sm) : IDLE_SM);

  useLayoutEffect(() => {
    const el = canvas.current!;
    if (entry.current.smCount !== smCount) {
      const from = entry.current.start === null ? Math.min(entry.current.smCount, smCount) : 0;
      entry.current = { smCount, from, start: reducedMotion.value || from >= smCount ? null : performance.now() };
    }
    const { from, start } = entry.current;
    if (start === null) { paintSms(el, layout, fill, smCount, 0); return; }
    // While the cells spring in, repaint every frame with the latest fills (from the next frame's
    // start, which comes before it is painted: a paint now would be overwritten unseen).
    const tick = () => {
      if (paintSms(el, layout, fill, from, performance.now() - start)) frame = requestAnimationFrame(tick);
      else entry.current.start = null;
    };
    let frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  });

  // One hover text for the canvas: the SM under the pointer.
  const onPointerMove = smTitle ? (e: PointerEvent) => {
    const el = e.currentTarget as HTMLCanvasElement, box = el.getBoundingClientRect();
    const x = e.clientX - box.left + chip.x, y = e.clientY - box.top + chip.y;
    const i = layout.cells.findIndex((c) => x >= c.x && x < c.x + c.w && y >= c.y && y < c.y + c.h);
    el.title = i >= 0 ? smTitle(i) : '';
  } : undefined;

  // Links join the chip to the first pool and each pool to the next (the path data moves along).
  const ends = [chip, ...layout.pools];
  return (
    <div class={`gpu-block${props.class ? ' ' + props.class : ''}`} style={{ width: `${layout.width}px`, height: `${layout.height}px` }}>
      <svg width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`}
        role="group" aria-label={label ?? `GPU with ${smCount} SMs`}>
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
        {pools.map((pool, i) => {
          const r = layout.pools[i];
          const focus = onPoolFocus ? () => onPoolFocus(pool.id) : undefined;
          // The sources (pool.title) are the tooltip of a group around the button, not inside it:
          // the button's name is what the pool shows, and a tooltip is no part of that.
          return (
            <g key={pool.id}>
              {pool.title && <title>{pool.title}</title>}
              <g class={`gpu-pool${activePool === pool.id ? ' active' : ''}`} data-pool={pool.id}
                tabIndex={onPoolFocus ? 0 : undefined} onFocus={focus} onMouseEnter={focus}
                role={onPoolFocus ? 'button' : undefined} aria-label={[pool.label, ...(pool.detail ?? [])].join(', ')}>
                <rect x={r.x + 0.5} y={r.y + 0.5} width={r.w - 1} height={r.h - 1} rx={8} style={{ stroke: pool.color }} />
                <rect class="gpu-pool-band" x={r.x + 1} y={r.y + 1} width={4} height={r.h - 2} style={{ fill: pool.color }} />
                <text class="gpu-pool-label" x={r.x + 12} y={r.y + 18} {...fitText(pool.label, fonts().label, r.w - 18)}>{pool.label}</text>
                {/* A space between the lines (not drawn), so that the pool's text reads as words, as its name does */}
                {(pool.detail ?? []).map((line, j) => [' ',
                  <text key={j} class="gpu-pool-detail" x={r.x + 12} y={r.y + 35 + j * 15} {...fitText(line, fonts().detail, r.w - 18)}>{line}</text>,
                ])}
              </g>
            </g>
          );
        })}
        {overlay?.(layout)}
      </svg>
      <div class="gpu-sms-clip" style={{ left: `${chip.x}px`, top: `${chip.y}px`, width: `${chip.w}px`, height: `${chip.h}px` }}>
        <canvas ref={canvas} class="gpu-sms" aria-hidden="true" onPointerMove={onPointerMove} />
      </div>
    </div>
  );
}
