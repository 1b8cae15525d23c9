// The SM's timeline: one lane per warpgroup (the producer, then the consumers), one bar per
// operation from the core's schedule, on a time axis shared by every schedule so that switching
// schedules shows the same work compressing. The whole run is drawn faintly; the part before the
// cursor is lit. A bar's height is the share of its hardware unit it gets: consumers running in
// lockstep split the tensor cores, so their bars are half height.
import type { Fa3Segment } from '../../../wasm/load';
import { colors } from '../shared/theme';
import { useResize } from '../shared/useResize';
import { laneOf, micros, OP_LABELS, type Figure } from './model';

const LANE_H = 30;
const LANE_GAP = 10;
const TOP = 22;
const AXIS_H = 26;

export const OP_COLORS = { load_k: colors.active, load_v: colors.active, gemm0: colors.sram, softmax: colors.heads[0], gemm1: colors.sram };
const SHORT = { load_k: 'K', load_v: 'V', gemm0: 'QK', softmax: 'exp', gemm1: 'PV' };

// About 5 round tick values (in µs) across [0, maxS].
function ticks(maxS: number): number[] {
  const maxUs = maxS * 1e6;
  const raw = maxUs / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  return Array.from({ length: Math.floor(maxUs / step) + 1 }, (_, i) => (i * step) / 1e6);
}

export function Timeline({ fig, cursorS }: { fig: Figure; cursorS: number }) {
  const [ref, { width }] = useResize<HTMLDivElement>();
  const labelW = width < 480 ? 84 : 96;
  const plotW = Math.max(width - labelW - 12, 60);
  // The longest schedule sets the scale, so every schedule is drawn against the same clock.
  const maxS = Math.max(...fig.pipeline.schedules.map((s) => s.totalS));
  const x = (t: number) => labelW + (t / maxS) * plotW;
  const height = TOP + fig.lanes.length * (LANE_H + LANE_GAP) + AXIS_H;
  const laneY = (i: number) => TOP + i * (LANE_H + LANE_GAP);

  const bar = (s: Fa3Segment, lit: boolean) => {
    const h = LANE_H * s.unitShare;
    const w = Math.max(x(s.endS) - x(s.startS), 1);
    return (
      <g key={`${s.warpgroup}-${s.op}-${s.iteration}`} class={`seg ${s.op}`} style={{ transform: `translate(${x(s.startS)}px, ${laneY(laneOf(s)) + LANE_H - h}px)` }}>
        <rect width={w} height={h} rx={3} fill={OP_COLORS[s.op]} opacity={lit ? 0.95 : 0.16} style={{ width: `${w}px` }} />
        {lit && w > 24 && h >= 14 && <text x={w / 2} y={h / 2 + 4} text-anchor="middle">{SHORT[s.op]}{s.iteration}</text>}
        <title>{`${fig.lanes[laneOf(s)]}: ${OP_LABELS[s.op]}, key block ${s.iteration}, ${micros(s.startS)}–${micros(s.endS)}`}</title>
      </g>
    );
  };

  const { shown, baseline } = fig;
  return (
    <div class="timeline" ref={ref}>
      <svg width={width} height={height} role="img" aria-label={`Timeline of ${fig.lanes.length} warpgroups over ${micros(shown.totalS)}`}>
        <defs>
          <clipPath id="elapsed"><rect x={0} y={0} width={x(cursorS)} height={height} /></clipPath>
        </defs>
        {fig.lanes.map((lane, i) => (
          <g key={lane}>
            <rect class="lane" x={labelW} y={laneY(i)} width={plotW} height={LANE_H} rx={4} />
            <text class="lane-label" x={labelW - 8} y={laneY(i) + LANE_H / 2 + 4} text-anchor="end">{lane}</text>
          </g>
        ))}
        <g>{shown.segments.map((s) => bar(s, false))}</g>
        <g clip-path="url(#elapsed)">{shown.segments.map((s) => bar(s, true))}</g>
        {shown.name !== 'sequential' && (
          <g class="marker baseline" style={{ transform: `translateX(${x(baseline.totalS)}px)` }}>
            <line y1={TOP - 14} y2={height - AXIS_H} />
            <text y={TOP - 16} text-anchor="end" x={-4}>synchronous ends</text>
          </g>
        )}
        <g class="marker end" style={{ transform: `translateX(${x(shown.totalS)}px)` }}>
          <line y1={TOP - 4} y2={height - AXIS_H} />
        </g>
        <line class="cursor" x1={x(cursorS)} x2={x(cursorS)} y1={TOP - 6} y2={height - AXIS_H + 4} />
        <g class="axis">
          {ticks(maxS).map((t) => (
            <g key={t} style={{ transform: `translateX(${x(t)}px)` }}>
              <line y1={height - AXIS_H} y2={height - AXIS_H + 5} />
              <text y={height - AXIS_H + 17} text-anchor="middle">{Number((t * 1e6).toPrecision(3))}</text>
            </g>
          ))}
          <text class="unit" x={labelW - 8} y={height - AXIS_H + 17} text-anchor="end">µs</text>
        </g>
      </svg>
    </div>
  );
}
