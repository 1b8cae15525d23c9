// The rotation on a time axis proportional to the core's timing model: per device, a compute bar
// for each ring step (attention of its Q shard against the K/V shard in residence) and a send bar
// (forwarding that shard to the next device) that starts with it; below, the naive alternative
// that all-gathers K/V before computing. Bars fill up to the clock's time; the playhead marks it.
// Drawn in CSS pixels at the element's width, so labels keep their size on a phone.
//
// The bars are painted on two canvases under the SVG, so that a new ring (up to 122 bars and 65
// shard names at 8 devices) costs draw calls instead of hundreds of new SVG elements: the faint
// outlines and step edges (with the figure or the width), and over them the solid fill up to the
// clock's time with the shard names (dark once their step has run), every frame of playback. The
// SVG keeps the legend, the lane names, the axis and the playhead; the base canvas lists the bars
// it draws in data-bars.
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { growingContext, pageFontFamily } from '../shared/canvas';
import { fmtSeconds } from '../shared/format';
import type { Clock } from '../shared/stepper';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import type { Figure } from './model';

const COMPUTE = colors.active;
export const SEND = colors.heads[0];

interface BarSpec { kind: string; lane: string; t0: number; t1: number; x0: number; w: number; y: number; h: number; fill: string; label?: string }

interface Layout {
  width: number; height: number; labelW: number; right: number; narrow: boolean;
  lanesTop: number; agTop: number; laneH: number;
  x: (t: number) => number;
  bars: BarSpec[];
}

function layout(figure: Figure, width: number): Layout {
  const { steps, timing, config, trace } = figure;
  const P = config.devices;
  const narrow = width < 640;
  const labelW = narrow ? 58 : 78, right = 8;
  const legendH = 22, laneH = narrow ? 20 : 28, gap = narrow ? 6 : 10, axisH = 34;
  const span = Math.max(timing.allgatherTimeS, timing.ringTimeS);
  const x = (t: number) => labelW + (t / span) * (width - labelW - right);
  const lanesTop = legendH, agTop = lanesTop + P * laneH + gap;
  const cH = Math.round(laneH * 0.5), sH = Math.round(laneH * 0.24);
  const bars: BarSpec[] = [];
  const bar = (kind: string, lane: string, t0: number, t1: number, y: number, h: number, fill: string, label?: string) =>
    bars.push({ kind, lane, t0, t1, x0: x(t0), w: Math.max(x(t1) - x(t0), 0), y, h, fill, label });
  for (let d = 0; d < P; d++) {
    const top = lanesTop + d * laneH;
    steps.forEach((s, t) => {
      bar('compute', `lane-${d}`, s.start, s.start + s.compute, top + 2, cH, COMPUTE, `KV ${trace.steps[t * P + d].kvShard}`);
      if (s.send > 0) bar('send', `lane-${d}`, s.start, s.start + s.send, top + 4 + cH, sH, SEND);
    });
  }
  bar('gather-send', 'lane-allgather', 0, timing.allgatherCommTimeS, agTop + 4 + cH, sH, SEND);
  bar('gather-compute', 'lane-allgather', timing.allgatherCommTimeS, timing.allgatherTimeS, agTop + 2, cH, COMPUTE, 'all K/V');
  const height = agTop + laneH + axisH;
  return { width, height, labelW, right, narrow, lanesTop, agTop, laneH, x, bars };
}

const showsLabel = (b: BarSpec) => b.label !== undefined && b.w >= 38 && b.h >= 12;

// The shard names' font: 650 11px in the page's family, like the SVG text beside them.
const font = () => `650 11px ${pageFontFamily()}`;

// The step edges (dashed) and every bar's outline (faint). Both canvases keep the store of the
// tallest timeline drawn (growingContext) and the frame clips them, so a new device count repaints
// them instead of reallocating their backing stores.
function paintOutlines(canvas: HTMLCanvasElement, L: Layout, figure: Figure) {
  const g = growingContext(canvas, L.width, L.height);
  g.globalAlpha = 1;  // the context keeps the outlines' alpha from the last paint
  g.strokeStyle = colors.border;
  g.lineWidth = 1;
  g.setLineDash([2, 3]);
  g.beginPath();
  for (const s of figure.steps) {
    g.moveTo(L.x(s.end), L.lanesTop);
    g.lineTo(L.x(s.end), L.lanesTop + figure.config.devices * L.laneH);
  }
  g.stroke();
  g.globalAlpha = 0.25;
  fillBars(g, L.bars, (b) => b.w);
}

// Square bars grouped by colour, each over 2 px wide a pixel short of its end so that back-to-back
// steps stay apart. Plain rectangles: one path of rounded ones per colour (128 bars at 8 devices)
// cost a new device count about a millisecond of main-thread time at 1.5x slowdown to fill.
function fillBars(g: CanvasRenderingContext2D, bars: BarSpec[], width: (b: BarSpec) => number) {
  for (const fill of new Set(bars.map((b) => b.fill))) {
    g.fillStyle = fill;
    for (const b of bars) {
      const w = width(b);
      if (b.fill === fill && w > 0) g.fillRect(b.x0, b.y, Math.min(w, b.w > 2 ? b.w - 1 : b.w), b.h);
    }
  }
}

// The bars' solid fill up to `now` (px) and the shard names, dark on a bar whose step has run.
function paintProgress(canvas: HTMLCanvasElement, L: Layout, now: number, doneBy: number) {
  const g = growingContext(canvas, L.width, L.height);
  fillBars(g, L.bars, (b) => (b.x0 < now ? Math.min(now - b.x0, b.w) : 0));
  g.font = font();
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  for (const done of [true, false]) {
    g.fillStyle = done ? '#0a0a0a' : colors.textMuted;
    for (const b of L.bars) {
      if (showsLabel(b) && (b.t1 <= doneBy) === done) g.fillText(b.label!, b.x0 + b.w / 2, b.y + b.h / 2);
    }
  }
}

// The clock's time and its last stop reached are read here, so that playback re-renders the timeline alone.
export function Timeline({ figure, clock }: { figure: Figure; clock: Clock }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const outlines = useRef<HTMLCanvasElement>(null), progress = useRef<HTMLCanvasElement>(null);
  // Kept while the figure and the width stay, so that playback repaints the progress canvas alone.
  const L = useMemo(() => layout(figure, width), [figure, width]);
  const now = L.x(clock.time.value), doneBy = figure.stops[clock.step.value];
  useLayoutEffect(() => paintOutlines(outlines.current!, L, figure), [L]);
  useLayoutEffect(() => paintProgress(progress.current!, L, now, doneBy), [L, now, doneBy]);
  const drawn = useMemo(() => JSON.stringify(L.bars.map((b) => ({
    kind: b.kind, lane: b.lane, t0: b.t0, t1: b.t1, x0: b.x0, w: b.w, label: showsLabel(b) ? b.label : null,
  }))), [L]);
  const { labelW, right, narrow, lanesTop, agTop, laneH, height } = L;
  // The legend, the lane names and the axis change with the figure and the width only.
  const frame = useMemo(() => {
    const { timing, config } = figure;
    const ringEnd = L.x(timing.ringTimeS), agEnd = L.x(timing.allgatherTimeS);
    const lanes: [string, string, number][] = [
      ...Array.from({ length: config.devices }, (_, d): [string, string, number] => [`lane-${d}`, `GPU ${d}`, lanesTop + d * laneH]),
      ['lane-allgather', narrow ? 'gather' : 'all-gather', agTop]];
    return (
      <>
        <g class="legend-row" transform="translate(0 4)">
          <rect x={labelW} y={2} width={12} height={10} fill={COMPUTE} rx={2} />
          <text x={labelW + 16} y={7} dominant-baseline="central" class="legend-text">{narrow ? 'attention' : 'attention on the resident K/V shard'}</text>
          <rect x={labelW + (narrow ? 86 : 232)} y={4} width={12} height={6} fill={SEND} rx={2} />
          <text x={labelW + (narrow ? 102 : 248)} y={7} dominant-baseline="central" class="legend-text">{narrow ? 'send K/V →' : 'send it to the next device'}</text>
        </g>
        {lanes.map(([id, name, top]) => (
          <text key={id} data-testid={id} x={labelW - 6} y={top + laneH / 2} text-anchor="end" dominant-baseline="central" class="lane-label">{name}</text>
        ))}
        <g class="axis" transform={`translate(0 ${agTop + laneH + 4})`}>
          <line x1={labelW} x2={width - right} y1={0} y2={0} class="axis-line" />
          <text x={labelW} y={12} class="tick" text-anchor="start">0</text>
          <line x1={ringEnd} x2={ringEnd} y1={-(agTop + laneH + 4 - lanesTop)} y2={4} class="end-mark ring-end" />
          <text x={Math.max(ringEnd, labelW + 60)} y={12} class="tick ring" text-anchor="end" data-testid="ring-end">ring {fmtSeconds(timing.ringTimeS)}</text>
          <text x={agEnd} y={27} class="tick" text-anchor="end" data-testid="gather-end">all-gather {fmtSeconds(timing.allgatherTimeS)}</text>
        </g>
      </>
    );
  }, [L]);
  const { timing, config } = figure;
  return (
    <div ref={ref} class="timeline-frame" data-drawing>
      <canvas ref={outlines} data-testid="timeline-bars" data-bars={drawn} />
      <canvas ref={progress} />
      <svg class="timeline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`${config.devices} devices: one rotation takes ${fmtSeconds(timing.ringTimeS)} with communication overlapped, against ${fmtSeconds(timing.allgatherTimeS)} for all-gather then compute`}>
        {frame}
        <line x1={now} x2={now} y1={lanesTop} y2={agTop + laneH} class="playhead" data-testid="playhead" />
      </svg>
    </div>
  );
}
