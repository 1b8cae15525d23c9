// The rotation on a time axis proportional to the core's timing model: per device, a compute bar
// for each ring step (attention of its Q shard against the K/V shard in residence) and a send bar
// (forwarding that shard to the next device) that starts with it; below, the naive alternative
// that all-gathers K/V before computing. Bars fill up to the clock's time; the playhead marks it.
// Drawn in CSS pixels at the element's width, so labels keep their size on a phone.
import type { Signal } from '@preact/signals';
import { fmtSeconds } from '../shared/format';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import type { Figure } from './model';

export const COMPUTE = colors.active;
export const SEND = colors.heads[0];

interface BarProps { t0: number; t1: number; x: (t: number) => number; y: number; h: number; fill: string; now: number; label?: string; kind: string }

// A bar over times [t0, t1] (seconds, kept in data attributes for the tests), solid up to `now`,
// faint after it.
function Bar({ t0, t1, x, y, h, fill, now, label, kind }: BarProps) {
  const x0 = x(t0), w = Math.max(x(t1) - x0, 0), filled = Math.min(Math.max(x(now) - x0, 0), w);
  return (
    <g class={`bar ${kind}`} data-t0={t0} data-t1={t1}>
      <rect x={x0} y={y} width={w} height={h} fill={fill} fill-opacity={0.25} rx={2} />
      {filled > 0 && <rect x={x0} y={y} width={filled} height={h} fill={fill} rx={2} />}
      {label && w >= 38 && h >= 12 && (
        <text x={x0 + w / 2} y={y + h / 2} class={filled >= w / 2 ? 'bar-label filled' : 'bar-label'} text-anchor="middle" dominant-baseline="central">{label}</text>
      )}
    </g>
  );
}

// `clockTime` is the clock's signal, read here so that playback re-renders the timeline alone.
export function Timeline({ figure, clockTime }: { figure: Figure; clockTime: Signal<number> }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const time = clockTime.value;
  const { steps, timing, config, trace } = figure;
  const P = config.devices;
  const narrow = width < 640;
  const labelW = narrow ? 58 : 78, right = 8;
  const legendH = 22, laneH = narrow ? 20 : 28, gap = narrow ? 6 : 10, axisH = 34;
  const span = Math.max(timing.allgatherTimeS, timing.ringTimeS);
  const x = (t: number) => labelW + (t / span) * (width - labelW - right);
  const lanesTop = legendH;
  const agTop = lanesTop + P * laneH + gap;
  const height = agTop + laneH + axisH;
  const now = x(time);
  const cH = Math.round(laneH * 0.5), sH = Math.round(laneH * 0.24);
  const laneBars = (top: number) => ({ cy: top + 2, sy: top + 2 + cH + 2 });
  const ringEnd = x(timing.ringTimeS), agEnd = x(timing.allgatherTimeS);
  return (
    <div ref={ref} class="timeline-frame" data-drawing>
      <svg class="timeline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`${P} devices: one rotation takes ${fmtSeconds(timing.ringTimeS)} with communication overlapped, against ${fmtSeconds(timing.allgatherTimeS)} for all-gather then compute`}>
        <g class="legend-row" transform="translate(0 4)">
          <rect x={labelW} y={2} width={12} height={10} fill={COMPUTE} rx={2} />
          <text x={labelW + 16} y={7} dominant-baseline="central" class="legend-text">{narrow ? 'attention' : 'attention on the resident K/V shard'}</text>
          <rect x={labelW + (narrow ? 86 : 232)} y={4} width={12} height={6} fill={SEND} rx={2} />
          <text x={labelW + (narrow ? 102 : 248)} y={7} dominant-baseline="central" class="legend-text">{narrow ? 'send K/V →' : 'send it to the next device'}</text>
        </g>
        {steps.map((s) => <line key={s.end} x1={x(s.end)} x2={x(s.end)} y1={lanesTop} y2={lanesTop + P * laneH} class="step-edge" />)}
        {Array.from({ length: P }, (_, d) => {
          const top = lanesTop + d * laneH, { cy, sy } = laneBars(top);
          return (
            <g key={d} class="lane" data-testid={`lane-${d}`}>
              <text x={labelW - 6} y={top + laneH / 2} text-anchor="end" dominant-baseline="central" class="lane-label">GPU {d}</text>
              {steps.map((s, t) => (
                <g key={t}>
                  <Bar kind="compute" t0={s.start} t1={s.start + s.compute} x={x} y={cy} h={cH} fill={COMPUTE} now={time}
                    label={`KV ${trace.steps[t * P + d].kvShard}`} />
                  {s.send > 0 && <Bar kind="send" t0={s.start} t1={s.start + s.send} x={x} y={sy} h={sH} fill={SEND} now={time} />}
                </g>
              ))}
            </g>
          );
        })}
        <g class="lane allgather" data-testid="lane-allgather">
          <text x={labelW - 6} y={agTop + laneH / 2} text-anchor="end" dominant-baseline="central" class="lane-label">{narrow ? 'gather' : 'all-gather'}</text>
          <Bar kind="gather-send" t0={0} t1={timing.allgatherCommTimeS} x={x} y={laneBars(agTop).sy} h={sH} fill={SEND} now={time} />
          <Bar kind="gather-compute" t0={timing.allgatherCommTimeS} t1={timing.allgatherTimeS} x={x} y={laneBars(agTop).cy} h={cH}
            fill={COMPUTE} now={time} label="all K/V" />
        </g>
        <g class="axis" transform={`translate(0 ${agTop + laneH + 4})`}>
          <line x1={labelW} x2={width - right} y1={0} y2={0} class="axis-line" />
          <text x={labelW} y={12} class="tick" text-anchor="start">0</text>
          <line x1={ringEnd} x2={ringEnd} y1={-(agTop + laneH + 4 - lanesTop)} y2={4} class="end-mark ring-end" />
          <text x={Math.max(ringEnd, labelW + 60)} y={12} class="tick ring" text-anchor="end" data-testid="ring-end">ring {fmtSeconds(timing.ringTimeS)}</text>
          <text x={agEnd} y={27} class="tick" text-anchor="end" data-testid="gather-end">all-gather {fmtSeconds(timing.allgatherTimeS)}</text>
        </g>
        <line x1={now} x2={now} y1={lanesTop} y2={agTop + laneH} class="playhead" data-testid="playhead" />
      </svg>
    </div>
  );
}
