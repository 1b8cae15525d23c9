// The rotation on a time axis proportional to the core's timing model: per device, a compute bar
// for each ring step (attention of its Q shard against the K/V shard in residence) and a send bar
// (forwarding that shard to the next device) that starts with it; below, the naive alternative
// that all-gathers K/V before computing. Bars fill up to the clock's time; the playhead marks it.
// Drawn in CSS pixels at the element's width, so labels keep their size on a phone.
//
// Three layers, so that playback redraws only what moves: the bars' outlines and lanes (change with
// the figure or the width), their solid fill up to the clock's time (every frame), and the shard
// labels (dark once their step has run). The first and last are class components that skip
// rendering while their props are unchanged (as shared/AttentionGrid.tsx does).
import type { Signal } from '@preact/signals';
import { Component } from 'preact';
import { useMemo } from 'preact/hooks';
import { fmtSeconds } from '../shared/format';
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
  return { width, height: agTop + laneH + axisH, labelW, right, narrow, lanesTop, agTop, laneH, x, bars };
}

const showsLabel = (b: BarSpec) => b.label !== undefined && b.w >= 38 && b.h >= 12;

// The lanes, their names and every bar's outline (faint), with its times in data attributes for the tests.
class Outlines extends Component<{ L: Layout; figure: Figure }> {
  shouldComponentUpdate(next: { L: Layout }) { return next.L !== this.props.L; }
  render({ L, figure }: { L: Layout; figure: Figure }) {
    const lanes: [string, string, number][] = [
      ...Array.from({ length: figure.config.devices }, (_, d): [string, string, number] => [`lane-${d}`, `GPU ${d}`, L.lanesTop + d * L.laneH]),
      ['lane-allgather', L.narrow ? 'gather' : 'all-gather', L.agTop]];
    return (
      <g>
        {figure.steps.map((s) => <line key={s.end} x1={L.x(s.end)} x2={L.x(s.end)} y1={L.lanesTop} y2={L.lanesTop + figure.config.devices * L.laneH} class="step-edge" />)}
        {lanes.map(([id, name, top]) => (
          <g key={id} class="lane" data-testid={id}>
            <text x={L.labelW - 6} y={top + L.laneH / 2} text-anchor="end" dominant-baseline="central" class="lane-label">{name}</text>
            {L.bars.map((b, i) => b.lane === id && (
              <g key={i} class={`bar ${b.kind}`} data-i={i} data-t0={b.t0} data-t1={b.t1}>
                <rect x={b.x0} y={b.y} width={b.w} height={b.h} fill={b.fill} fill-opacity={0.25} rx={2} />
              </g>
            ))}
          </g>
        ))}
      </g>
    );
  }
}

// The shard names on the bars wide and tall enough for them: dark on a bar whose step has run.
class Labels extends Component<{ L: Layout; doneBy: number }> {
  shouldComponentUpdate(next: { L: Layout; doneBy: number }) { return next.L !== this.props.L || next.doneBy !== this.props.doneBy; }
  render({ L, doneBy }: { L: Layout; doneBy: number }) {
    return (
      <g>
        {L.bars.map((b, i) => showsLabel(b) && (
          <text key={i} data-i={i} x={b.x0 + b.w / 2} y={b.y + b.h / 2} class={b.t1 <= doneBy ? 'bar-label filled' : 'bar-label'}
            text-anchor="middle" dominant-baseline="central">{b.label}</text>
        ))}
      </g>
    );
  }
}

// `clockTime` is the clock's signal and `doneBy` the time of its last stop reached: read here, so
// that playback re-renders the timeline alone.
export function Timeline({ figure, clockTime, doneBy }: { figure: Figure; clockTime: Signal<number>; doneBy: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  // Kept while the figure and the width stay, so the outline and label layers skip rendering.
  const L = useMemo(() => layout(figure, width), [figure, width]);
  const time = clockTime.value, now = L.x(time);
  const { timing, config } = figure;
  const { labelW, right, narrow, lanesTop, agTop, laneH, height } = L;
  const ringEnd = L.x(timing.ringTimeS), agEnd = L.x(timing.allgatherTimeS);
  return (
    <div ref={ref} class="timeline-frame" data-drawing>
      <svg class="timeline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`${config.devices} devices: one rotation takes ${fmtSeconds(timing.ringTimeS)} with communication overlapped, against ${fmtSeconds(timing.allgatherTimeS)} for all-gather then compute`}>
        <g class="legend-row" transform="translate(0 4)">
          <rect x={labelW} y={2} width={12} height={10} fill={COMPUTE} rx={2} />
          <text x={labelW + 16} y={7} dominant-baseline="central" class="legend-text">{narrow ? 'attention' : 'attention on the resident K/V shard'}</text>
          <rect x={labelW + (narrow ? 86 : 232)} y={4} width={12} height={6} fill={SEND} rx={2} />
          <text x={labelW + (narrow ? 102 : 248)} y={7} dominant-baseline="central" class="legend-text">{narrow ? 'send K/V →' : 'send it to the next device'}</text>
        </g>
        <Outlines L={L} figure={figure} />
        <g class="progress">
          {L.bars.map((b, i) => b.x0 < now && <rect key={i} x={b.x0} y={b.y} width={Math.min(now - b.x0, b.w)} height={b.h} fill={b.fill} rx={2} />)}
        </g>
        <Labels L={L} doneBy={doneBy} />
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
