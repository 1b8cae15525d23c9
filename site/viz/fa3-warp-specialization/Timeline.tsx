// The SM's timeline: one lane per warpgroup (the producer, then the consumers), one bar per
// operation from the core's schedule, on a time axis shared by every schedule so that switching
// schedules shows the same work compressing. The whole run is drawn faintly; the part before the
// cursor is lit. A bar's height is the share of its hardware unit it gets: consumers running in
// lockstep split the tensor cores, so their bars are half height.
// Lanes, labels and the axis are SVG; the bars and the end markers are painted on two canvases
// over them, the faint run and the lit one, and the lit canvas is clipped at the cursor (an HTML
// line): a step moves the clip and the line and paints nothing. When the schedule changes, every
// bar glides from where it was to where it now belongs (a springy ease over GLIDE_MS, in a few
// hundred canvas draws rather than CSS transitions on a hundred-odd SVG elements); under reduced
// motion they jump.
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
// `shared`: stretches of the bar's own duration (fractions 0..1) during which another op of the
// same warpgroup runs too; there the bar keeps one half of its height (`top`: the upper half).
interface Shared { from: number; to: number; top: boolean }
interface Bar extends Box { key: string; segment: Fa3Segment; shared: Shared[] }
// What the canvas shows: the bars and the two end markers' x (NaN when a marker is absent).
interface Scene { bars: Bar[]; baselineX: number; endX: number }

const lerp = (a: number, b: number, t: number) => a + (b - a) * t;

// Where two ops of one warpgroup run at once (intra-warpgroup overlap: a tile's PV GEMM under the
// next tile's exponentials), both bars split their height over the shared stretch, the earlier op
// on top, so neither hides the other. Found once per schedule, in time, by a sweep per lane; each
// bar's stretches come out in order of their start.
function sharedStretches(segments: Fa3Segment[]): Shared[][] {
  const shared: Shared[][] = segments.map(() => []);
  const order = segments.map((_, i) => i).sort((i, k) => laneOf(segments[i]) - laneOf(segments[k]) || segments[i].startS - segments[k].startS);
  order.forEach((i, n) => {
    const a = segments[i];
    for (let m = n + 1; m < order.length; m++) {
      const k = order[m], b = segments[k];
      if (laneOf(b) !== laneOf(a) || b.startS >= a.endS) break;
      const from = b.startS, to = Math.min(a.endS, b.endS);
      if (to <= from) continue;
      const part = (s: Fa3Segment, top: boolean) => ({ from: (from - s.startS) / (s.endS - s.startS), to: (to - s.startS) / (s.endS - s.startS), top });
      shared[i].push(part(a, true));
      shared[k].push(part(b, false));
    }
  });
  return shared;
}

// A bar as the boxes it is painted in: full height outside its shared stretches, half inside.
function pieces(b: Bar): Box[] {
  if (!b.shared.length) return [b];
  const out: Box[] = [];
  let at = 0;
  for (const s of b.shared) {
    if (s.from > at) out.push({ x: b.x + at * b.w, y: b.y, w: (s.from - at) * b.w, h: b.h });
    out.push({ x: b.x + s.from * b.w, y: s.top ? b.y : b.y + b.h / 2, w: (s.to - s.from) * b.w, h: b.h / 2 });
    at = Math.max(at, s.to);
  }
  if (at < 1) out.push({ x: b.x + at * b.w, y: b.y, w: (1 - at) * b.w, h: b.h });
  return out;
}

// Bar labels' widths in LABEL_FONT, measured once each: a glide repaints every frame.
const LABEL_FONT = '650 10.5px system-ui, sans-serif';
const labelWidths = new Map<string, number>();
function labelWidth(g: CanvasRenderingContext2D, text: string): number {
  let w = labelWidths.get(text);
  if (w === undefined) { w = g.measureText(text).width; labelWidths.set(text, w); }
  return w;
}

// One layer of the scene: every bar faint, or every bar lit with its label; then the end markers,
// on both layers, so that they stay on top where the lit layer covers the faint one.
function paint(canvas: HTMLCanvasElement, scene: Scene, lit: boolean, width: number, height: number, plotBottom: number) {
  const g = cssPixelContext(canvas, width, height);
  g.clearRect(0, 0, width, height);
  const boxes = scene.bars.map(pieces);
  g.globalAlpha = lit ? 0.95 : 0.16;
  scene.bars.forEach((b, i) => {
    g.fillStyle = OP_COLORS[b.segment.op];
    g.beginPath();
    for (const p of boxes[i]) g.roundRect(p.x, p.y, p.w, p.h, Math.min(3, p.w / 2, p.h / 2));
    g.fill();
  });
  g.globalAlpha = 1;
  if (lit) {
    g.fillStyle = '#0a0a0a';
    g.font = LABEL_FONT;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    // A label where it fits in the bar's widest piece at least 13 px tall (without its key block
    // if only that fits).
    scene.bars.forEach((b, i) => {
      const p = boxes[i].filter((q) => q.h >= 13 && q.w >= 16).reduce<Box | null>((best, q) => (!best || q.w > best.w ? q : best), null);
      const label = p && [`${SHORT[b.segment.op]}${b.segment.iteration}`, SHORT[b.segment.op]].find((t) => labelWidth(g, t) + 3 <= p.w);
      if (p && label) g.fillText(label, p.x + p.w / 2, p.y + p.h / 2 + 0.5);
    });
  }
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
  const faint = useRef<HTMLCanvasElement>(null);
  const lit = useRef<HTMLCanvasElement>(null);
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
  const target = useMemo<Scene>(() => {
    const shared = sharedStretches(schedule.segments);
    return {
      bars: schedule.segments.map((s, i) => {
        const h = LANE_H * s.unitShare;
        return { key: `${s.warpgroup}-${s.op}-${s.iteration}`, segment: s, shared: shared[i], x: x(s.startS), y: laneY(laneOf(s)) + LANE_H - h, w: Math.max(x(s.endS) - x(s.startS), 1), h };
      }),
      baselineX: schedule.name === 'sequential' ? NaN : x(baseline.totalS),
      endX: x(schedule.totalS),
    };
  }, [fig, width]);
  const drawn = useMemo(() => JSON.stringify(target.bars.map((b) => ({ op: b.segment.op, lane: laneOf(b.segment), iteration: b.segment.iteration, height: b.h, split: b.shared.length > 0 }))), [target]);
  const cursorX = x(cursorS);

  // The scene is painted when it changes (every frame of a glide), not when the cursor moves: a
  // step only moves the cursor and the lit layer's clip.
  useLayoutEffect(() => {
    const now = performance.now(), old = glideRef.current;
    // A new target glides from what is on screen, unless this is the first paint, the width
    // changed (positions are not comparable) or the reader asked for reduced motion.
    const from = old && old.width === width && !reducedMotion.value ? sceneAt(old, now).scene : null;
    glideRef.current = { from, to: target, start: now, width };
    const tick = () => {
      const { scene, done } = sceneAt(glideRef.current!, performance.now());
      paint(faint.current!, scene, false, width, height, plotBottom);
      paint(lit.current!, scene, true, width, height, plotBottom);
      if (!done) frame.current = requestAnimationFrame(tick);
    };
    cancelAnimationFrame(frame.current);
    // A glide starts from what is on screen, so its first paint waits for the next frame; a scene
    // shown at once is painted now, before the browser shows the frame.
    if (from) frame.current = requestAnimationFrame(tick);
    else tick();
  }, [target]);
  useLayoutEffect(() => () => cancelAnimationFrame(frame.current), []);

  // One hover text for the canvas: the bar under the pointer (over a split bar, the half it is on).
  const onPointerMove = (e: PointerEvent) => {
    const el = e.currentTarget as HTMLCanvasElement, box = el.getBoundingClientRect();
    const px = e.clientX - box.left, py = e.clientY - box.top;
    const bar = target.bars.find((b) => pieces(b).some((p) => px >= p.x && px < p.x + p.w && py >= p.y && py < p.y + p.h));
    const s = bar?.segment;
    el.title = s ? `${fig.lanes[laneOf(s)]}: ${OP_LABELS[s.op]}, key block ${s.iteration}, ${micros(s.startS)}–${micros(s.endS)}` : '';
  };

  return (
    <div class="timeline" ref={ref} data-drawing>
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
      <canvas ref={faint} class="bars" style={{ width: `${width}px`, height: `${height}px` }} onPointerMove={onPointerMove}
        data-testid="timeline-bars" data-bars={drawn} />
      <canvas ref={lit} class="bars lit" aria-hidden="true"
        style={{ width: `${width}px`, height: `${height}px`, clipPath: `inset(0 ${Math.max(0, width - cursorX)}px 0 0)` }} />
      <div class="cursor" style={{ top: `${TOP - 6}px`, height: `${plotBottom - TOP + 10}px`, transform: `translateX(${cursorX - 1}px)` }} />
    </div>
  );
}
