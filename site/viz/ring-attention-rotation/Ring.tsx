// The devices on a ring: each keeps its query shard and holds one K/V shard at a time; during a
// step it computes on that shard while the arrow to its right neighbour carries it onward.
//
// Painted on a canvas, not built of SVG: as SVG, a new device count added or removed up to 40
// elements and laid out up to 24 text nodes again (at 1.5x CPU slowdown the figure's settings took
// about 2 ms longer at the 95th percentile). The canvas names what it shows (aria-label) and
// lists the shard each device holds in data-kv.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { cssPixelContext, pageFontFamily } from '../shared/canvas';
import { colors } from '../shared/theme';
import { SEND } from './Timeline';
import type { Figure } from './model';

const SIZE = 250;

// One colour per K/V shard, spread around the hue circle, so a shard can be followed round the ring;
// light enough (70 %) for dark text at every hue (contrast >= 5.8 : 1).
export const shardColor = (j: number, P: number) => `hsl(${Math.round((j * 360) / P + 200) % 360} 65% 70%)`;

interface RingState { P: number; t: number; step: number; sending: boolean; kv: number[] }

// The arrowhead at angle a on the circle of radius R round (c, c), pointing clockwise along it:
// a triangle 11 px long and 10 px wide, the size the SVG marker had at this stroke width.
function arrowhead(g: CanvasRenderingContext2D, c: number, R: number, a: number) {
  g.save();
  g.translate(c + R * Math.cos(a), c + R * Math.sin(a));
  g.rotate(a + Math.PI / 2);  // x along the clockwise tangent
  g.beginPath();
  g.moveTo(1.5, 0);
  g.lineTo(-11, 5);
  g.lineTo(-11, -5);
  g.closePath();
  g.fill();
  g.restore();
}

// A filled rounded rectangle.
function box(g: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number, fill: string) {
  g.beginPath();
  g.roundRect(x, y, w, h, r);
  g.fillStyle = fill;
  g.fill();
}

function paintRing(canvas: HTMLCanvasElement, { P, t, step, sending, kv }: RingState) {
  const g = cssPixelContext(canvas, SIZE, SIZE);
  g.clearRect(0, 0, SIZE, SIZE);
  const c = SIZE / 2, R = SIZE / 2 - 34, family = pageFontFamily();
  g.lineWidth = 1.5;
  g.strokeStyle = colors.border;
  g.beginPath();
  g.arc(c, c, R, 0, 2 * Math.PI);
  g.stroke();
  // An arc segment from device d towards d + 1, between the nodes; arrowed while shards move.
  if (P > 1) {
    g.lineWidth = sending ? 2.5 : 2;
    g.strokeStyle = sending ? SEND : colors.border;
    g.fillStyle = SEND;
    for (let d = 0; d < P; d++) {
      const mid = -Math.PI / 2 + (2 * Math.PI * (d + 0.5)) / P, half = (Math.PI / P) * 0.35;
      g.beginPath();
      g.arc(c, c, R, mid - half, mid + half);
      g.stroke();
      if (sending) arrowhead(g, c, R, mid + half);
    }
  }
  const nodeW = P > 6 ? 54 : 62, nodeH = 38, chipW = nodeW / 2 - 4;
  const corners = Array.from({ length: P }, (_, d) => {
    const a = -Math.PI / 2 + (2 * Math.PI * d) / P;
    return [c + R * Math.cos(a) - nodeW / 2, c + R * Math.sin(a) - nodeH / 2];
  });
  corners.forEach(([x, y], d) => {
    box(g, x + 0.5, y + 0.5, nodeW - 1, nodeH - 1, 6, colors.panel);
    g.lineWidth = 1;
    g.strokeStyle = colors.textMuted;
    g.stroke();
    box(g, x + 3, y + 20, chipW, 15, 3, colors.border);
    box(g, x + nodeW / 2 + 1, y + 20, chipW, 15, 3, shardColor(kv[d], P));
  });
  // The text grouped by font: assigning a font other than the current one parses it again.
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  const texts = (font: string, fill: string, line: (d: number) => [string, number, number]) => {
    g.font = `${font} ${family}`;
    g.fillStyle = fill;
    for (let d = 0; d < P; d++) g.fillText(...line(d));
  };
  texts('650 11px', colors.text, (d) => [`GPU ${d}`, corners[d][0] + nodeW / 2, corners[d][1] + 11]);
  texts('10px', colors.text, (d) => [`Q${d}`, corners[d][0] + 3 + chipW / 2, corners[d][1] + 27.5]);
  texts('650 10px', '#0a0a0a', (d) => [`KV${kv[d]}`, corners[d][0] + nodeW / 2 + 1 + chipW / 2, corners[d][1] + 27.5]);
  g.textBaseline = 'alphabetic';
  g.font = `12px ${family}`;
  g.fillStyle = colors.text;
  g.fillText(step >= P ? 'rotation done' : `step ${t + 1} of ${P}`, c, c - 7);
  g.fillStyle = colors.textMuted;
  g.fillText(sending ? 'K/V moves →' : step >= P ? 'all shards seen' : 'last shard: no send', c, c + 10);
}

export function Ring({ figure, step }: { figure: Figure; step: number }) {
  const P = figure.config.devices;
  // The ring step on screen: the one starting at this stop, or the last one once the rotation is done.
  const t = Math.min(step, P - 1), sending = step < P - 1;
  const kv = Array.from({ length: P }, (_, d) => figure.trace.steps[t * P + d].kvShard);
  const canvas = useRef<HTMLCanvasElement>(null);
  useLayoutEffect(() => paintRing(canvas.current!, { P, t, step, sending, kv }));
  return (
    <canvas ref={canvas} class="ring" style={{ width: `${SIZE}px`, height: `${SIZE}px` }} role="img" data-testid="ring" data-kv={kv.join(' ')}
      aria-label={`Ring of ${P} devices at ring step ${t + 1}: device d holds K/V shard (d − ${t}) mod ${P}`} />
  );
}
