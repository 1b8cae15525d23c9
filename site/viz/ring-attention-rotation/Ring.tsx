// The devices on a ring: each keeps its query shard and holds one K/V shard at a time; during a
// step it computes on that shard while the arrow to its right neighbour carries it onward.
import { SEND } from './Timeline';
import type { Figure } from './model';

const SIZE = 250;

// One colour per K/V shard, spread around the hue circle, so a shard can be followed round the ring;
// light enough (70 %) for dark text at every hue (contrast >= 5.8 : 1).
export const shardColor = (j: number, P: number) => `hsl(${Math.round((j * 360) / P + 200) % 360} 65% 70%)`;

export function Ring({ figure, step }: { figure: Figure; step: number }) {
  const P = figure.config.devices;
  // The ring step on screen: the one starting at this stop, or the last one once the rotation is done.
  const t = Math.min(step, P - 1), sending = step < P - 1;
  const c = SIZE / 2, R = SIZE / 2 - 34;
  const at = (d: number) => {
    const a = -Math.PI / 2 + (2 * Math.PI * d) / P;
    return [c + R * Math.cos(a), c + R * Math.sin(a)];
  };
  const nodeW = P > 6 ? 54 : 62, nodeH = 38;
  return (
    <svg class="ring" width={SIZE} height={SIZE} viewBox={`0 0 ${SIZE} ${SIZE}`} role="img"
      aria-label={`Ring of ${P} devices at ring step ${t + 1}: device d holds K/V shard (d − ${t}) mod ${P}`}>
      <defs>
        <marker id="ring-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
          <path d="M0,0 L8,4 L0,8 z" fill={SEND} />
        </marker>
      </defs>
      <circle cx={c} cy={c} r={R} class="ring-track" />
      {P > 1 && Array.from({ length: P }, (_, d) => {
        // An arc segment from device d towards d + 1, drawn between the nodes.
        const a0 = -Math.PI / 2 + (2 * Math.PI * (d + 0.5)) / P - Math.PI / P * 0.35;
        const a1 = -Math.PI / 2 + (2 * Math.PI * (d + 0.5)) / P + Math.PI / P * 0.35;
        const p0 = [c + R * Math.cos(a0), c + R * Math.sin(a0)], p1 = [c + R * Math.cos(a1), c + R * Math.sin(a1)];
        return <path key={d} d={`M${p0[0]},${p0[1]} A${R},${R} 0 0 1 ${p1[0]},${p1[1]}`} class={sending ? 'ring-link active' : 'ring-link'}
          marker-end={sending ? 'url(#ring-arrow)' : undefined} />;
      })}
      {Array.from({ length: P }, (_, d) => {
        const [x, y] = at(d);
        const kv = figure.trace.steps[t * P + d].kvShard;
        return (
          <g key={d} class="device" data-testid={`device-${d}`} data-kv={kv} transform={`translate(${x - nodeW / 2} ${y - nodeH / 2})`}>
            <rect width={nodeW} height={nodeH} rx={6} class="device-box" />
            <text x={nodeW / 2} y={11} text-anchor="middle" dominant-baseline="central" class="device-name">GPU {d}</text>
            <rect x={3} y={20} width={nodeW / 2 - 4} height={15} rx={3} class="q-chip" />
            <text x={3 + (nodeW / 2 - 4) / 2} y={27.5} text-anchor="middle" dominant-baseline="central" class="chip-text">Q{d}</text>
            <rect x={nodeW / 2 + 1} y={20} width={nodeW / 2 - 4} height={15} rx={3} fill={shardColor(kv, P)} />
            <text x={nodeW / 2 + 1 + (nodeW / 2 - 4) / 2} y={27.5} text-anchor="middle" dominant-baseline="central" class="chip-text dark">KV{kv}</text>
          </g>
        );
      })}
      <text x={c} y={c - 7} text-anchor="middle" class="ring-center">{step >= P ? 'rotation done' : `step ${t + 1} of ${P}`}</text>
      <text x={c} y={c + 10} text-anchor="middle" class="ring-center muted">{sending ? 'K/V moves →' : step >= P ? 'all shards seen' : 'last shard: no send'}</text>
    </svg>
  );
}
