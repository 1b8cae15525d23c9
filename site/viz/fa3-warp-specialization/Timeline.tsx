// The SM's timeline: one lane per warpgroup (the producer, then the consumers), one bar per
// operation from the core's schedule, on a time axis shared by every schedule so that switching
// schedules shows the same work compressing. The whole run is drawn faintly; the part before the
// cursor is lit. A bar's height is the share of its hardware unit it gets: consumers running in
// lockstep split the tensor cores, so their bars are half height.
// Lanes, labels and the axis are SVG; the bars, the end markers and the cursor are painted on a
// canvas over them. When the schedule changes, every bar glides from where it was to where it now
// belongs (a springy ease over GLIDE_MS, in a few hundred canvas draws rather than CSS transitions
// on a hundred-odd SVG elements); under reduced motion they jump.
import { cubicBezier } from 'motion';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import type { Fa3Segment } from '../../../wasm/load';
import { cssPixelContext } from '../shared/canvas';
import { reducedMotion } from '../shared/motion';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { laneOf, micros, OP_LABELS, type Figure } from './model';

const LANE_H = 30;
const LANE_GAP = 10;
const TOP = 22;
const AXIS_H = 26;
const GLIDE_MS = 700;
const glide = cubicBezier(0.34, 1.3, 0.64, 1);

const OP_COLORS = { load_k: colors.active, load_v: colors.active, gemm0: colors.sram, softmax: colors.heads[0], gemm1: colors.sram };
const SHORT = { load_k: 'K', load_v: 'V', gemm0: 'QK', softmax: 'exp', gemm1: 'PV' };

// About 5 round tick values (in µs) across [0, maxS].
function ticks(maxS: number): number[] {
  const maxUs = maxS * 1e6;
  const raw = maxUs / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  return Array.from({ length: Math.floor(maxUs / step) + 1 }, (_, i) => (i * step) / 1e6);
}

interface Box { x: number; y: number; w: number; h: number }
interface Bar extends Box { key: string; segment: Fa3Segment }
// What the canvas shows: the bars and the two end markers' x (NaN when a marker is absent).
interface Scene { bars: Bar[]; baselineX: number; endX: number }

const lerp = (a: number, b: number, t: number) => a + (b - a) * t;

// The horizontal span of bar i not covered by the bars painted after it (which lie on top).
function uncovered(bars: Bar[], i: number): [number, number] {
  const b = bars[i];
  let left = b.x, right = b.x + b.w;
  for (let k = i + 1; k < bars.length && left < right; k++) {
    const o = bars[k];
    if (o.y >= b.y + b.h || o.y + o.h <= b.y || o.x >= right || o.x + o.w <= left) continue;
    if (o.x <= left) left = Math.min(right, o.x + o.w); else right = o.x;
  }
  return [left, right];
}

function paint(canvas: HTMLCanvasElement, scene: Scene, cursorX: number, width: number, height: number, plotBottom: number) {
  const g = cssPixelContext(canvas, width, height);
  g.clearRect(0, 0, width, height);
  const bars = (lit: boolean) => {
    g.globalAlpha = lit ? 0.95 : 0.16;
    for (const b of scene.bars) {
      g.fillStyle = OP_COLORS[b.segment.op];
      g.beginPath();
      g.roundRect(b.x, b.y, b.w, b.h, Math.min(3, b.w / 2, b.h / 2));
      g.fill();
    }
    if (!lit) return;
    g.globalAlpha = 1;
    g.fillStyle = '#0a0a0a';
    g.font = '650 10.5px system-ui, sans-serif';
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    // A label only where it fits in the part of its bar left in view (without its iteration if only
    // that fits): with intra-warpgroup overlap a bar is partly painted over by the next one.
    scene.bars.forEach((b, i) => {
      if (b.h < 14 || b.w < 16) return;
      const [left, right] = uncovered(scene.bars, i);
      const label = [`${SHORT[b.segment.op]}${b.segment.iteration}`, SHORT[b.segment.op]].find((t) => g.measureText(t).width + 3 <= right - left);
      if (label) g.fillText(label, (left + right) / 2, b.y + b.h / 2 + 0.5);
    });
  };
  bars(false);
  g.save();
  g.beginPath();
  g.rect(0, 0, cursorX, height);
  g.clip();
  bars(true);
  g.restore();
  g.globalAlpha = 1;
  if (Number.isFinite(scene.baselineX)) {
    g.strokeStyle = colors.hbm;
    g.lineWidth = 1.5;
    g.setLineDash([4, 3]);
    g.beginPath(); g.moveTo(scene.baselineX, TOP - 14); g.lineTo(scene.baselineX, plotBottom); g.stroke();
    g.setLineDash([]);
    g.fillStyle = '#fca5a5';
    g.font = '11px system-ui, sans-serif';
    g.textAlign = 'right';
    g.textBaseline = 'top';
    g.fillText('synchronous ends', scene.baselineX - 4, 1);
  }
  g.strokeStyle = colors.text;
  g.lineWidth = 1.5;
  g.beginPath(); g.moveTo(scene.endX, TOP - 4); g.lineTo(scene.endX, plotBottom); g.stroke();
  g.strokeStyle = '#93c5fd';
  g.lineWidth = 2;
  g.beginPath(); g.moveTo(cursorX, TOP - 6); g.lineTo(cursorX, plotBottom + 4); g.stroke();
}

// A glide from one scene to the next; `from` is null when the target is shown at once.
interface Glide { from: Scene | null; to: Scene; start: number; width: number }

// Where a glide is at time `now`: bars move from where they were (new ones grow from their start),
// markers too; done once GLIDE_MS has passed.
function sceneAt({ from, to, start }: Glide, now: number): { scene: Scene; done: boolean } {
  const p = from ? Math.min(1, (now - start) / GLIDE_MS) : 1;
  if (!from || p >= 1) return { scene: to, done: true };
  const e = glide(p);
  const before = new Map(from.bars.map((b) => [b.key, b]));
  const at = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) ? lerp(a, b, e) : b);
  return {
    done: false,
    scene: {
      bars: to.bars.map((b) => {
        const a = before.get(b.key) ?? { ...b, w: 0 };
        return { ...b, x: lerp(a.x, b.x, e), y: lerp(a.y, b.y, e), w: Math.max(1, lerp(a.w, b.w, e)), h: lerp(a.h, b.h, e) };
      }),
      baselineX: at(from.baselineX, to.baselineX),
      endX: at(from.endX, to.endX),
    },
  };
}

export function Timeline({ fig, cursorS }: { fig: Figure; cursorS: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const canvas = useRef<HTMLCanvasElement>(null);
  const glideRef = useRef<Glide | null>(null);
  const frame = useRef(0);
  const labelW = width < 480 ? 84 : 96;
  const plotW = Math.max(width - labelW - 12, 60);
  // The longest schedule sets the scale, so every schedule is drawn against the same clock.
  const maxS = Math.max(...fig.pipeline.schedules.map((s) => s.totalS));
  const x = (t: number) => labelW + (t / maxS) * plotW;
  const height = TOP + fig.lanes.length * (LANE_H + LANE_GAP) + AXIS_H;
  const plotBottom = height - AXIS_H;
  const laneY = (i: number) => TOP + i * (LANE_H + LANE_GAP);
  const { shown: schedule, baseline } = fig;

  // The schedule's bars and markers: they change with the figure and the width, not with the cursor.
  const target = useMemo<Scene>(() => ({
    bars: schedule.segments.map((s) => {
      const h = LANE_H * s.unitShare;
      return { key: `${s.warpgroup}-${s.op}-${s.iteration}`, segment: s, x: x(s.startS), y: laneY(laneOf(s)) + LANE_H - h, w: Math.max(x(s.endS) - x(s.startS), 1), h };
    }),
    baselineX: schedule.name === 'sequential' ? NaN : x(baseline.totalS),
    endX: x(schedule.totalS),
  }), [fig, width]);
  const drawn = useMemo(() => JSON.stringify(target.bars.map((b) => ({ op: b.segment.op, lane: laneOf(b.segment), iteration: b.segment.iteration, height: b.h }))), [target]);
  const cursorX = x(cursorS);

  useLayoutEffect(() => {
    const el = canvas.current!, now = performance.now(), old = glideRef.current;
    // A new target glides from what is on screen, unless this is the first paint, the width
    // changed (positions are not comparable) or the reader asked for reduced motion.
    if (!old || old.to !== target) {
      const from = old && old.width === width && !reducedMotion.value ? sceneAt(old, now).scene : null;
      glideRef.current = { from, to: target, start: now, width };
    }
    const tick = () => {
      const { scene, done } = sceneAt(glideRef.current!, performance.now());
      paint(el, scene, cursorX, width, height, plotBottom);
      if (!done) frame.current = requestAnimationFrame(tick);
    };
    cancelAnimationFrame(frame.current);
    tick();
  });
  useLayoutEffect(() => () => cancelAnimationFrame(frame.current), []);

  // One hover text for the canvas: the bar under the pointer.
  const onPointerMove = (e: PointerEvent) => {
    const el = e.currentTarget as HTMLCanvasElement, box = el.getBoundingClientRect();
    const px = e.clientX - box.left, py = e.clientY - box.top;
    const bar = target.bars.find((b) => px >= b.x && px < b.x + b.w && py >= b.y && py < b.y + b.h);
    const s = bar?.segment;
    el.title = s ? `${fig.lanes[laneOf(s)]}: ${OP_LABELS[s.op]}, key block ${s.iteration}, ${micros(s.startS)}–${micros(s.endS)}` : '';
  };

  return (
    <div class="timeline" ref={ref}>
      <svg width={width} height={height} role="img" aria-label={`Timeline of ${fig.lanes.length} warpgroups over ${micros(schedule.totalS)}`}>
        {fig.lanes.map((lane, i) => (
          <g key={lane}>
            <rect class="lane" x={labelW} y={laneY(i)} width={plotW} height={LANE_H} rx={4} />
            <text class="lane-label" x={labelW - 8} y={laneY(i) + LANE_H / 2 + 4} text-anchor="end">{lane}</text>
          </g>
        ))}
        <g class="axis">
          {ticks(maxS).map((t) => (
            <g key={t} transform={`translate(${x(t)} 0)`}>
              <line y1={plotBottom} y2={plotBottom + 5} />
              <text y={plotBottom + 17} text-anchor="middle">{Number((t * 1e6).toPrecision(3))}</text>
            </g>
          ))}
          <text class="unit" x={labelW - 8} y={plotBottom + 17} text-anchor="end">µs</text>
        </g>
      </svg>
      <canvas ref={canvas} class="bars" style={{ width: `${width}px`, height: `${height}px` }} onPointerMove={onPointerMove}
        data-testid="timeline-bars" data-bars={drawn} />
    </div>
  );
}
