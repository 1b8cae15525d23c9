// One partition's SM-utilisation timeline on a canvas: a row per SM, time in K/V tiles across
// (shared by both partitions), each thread block a bar in its (batch, head) colour. The finished
// picture is drawn once per launch into an offscreen canvas; each frame copies the part before the
// playhead at full strength and the rest as a faint preview, so playback costs two image copies.
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { useResize } from '../shared/useResize';
import { pairColor, type Side } from './model';

const AXIS_H = 18;

function renderBlocks(s: Side, heads: number, width: number, rows: number, rowH: number, span: number, dpr: number): HTMLCanvasElement {
  const c = document.createElement('canvas');
  c.width = Math.max(1, Math.round(width * dpr));
  c.height = Math.max(1, Math.round(rows * rowH * dpr));
  const g = c.getContext('2d')!;
  g.scale(dpr, dpr);
  const b = s.work.blocks, x = (t: number) => (t / span) * width;
  const gap = rowH >= 3 ? 0.6 : 0;
  // Launch order keeps a (batch, head)'s blocks together, so the fill colour rarely changes.
  let pair = -1;
  for (let i = 0; i < b.sm.length; i++) {
    const x0 = x(b.startTiles[i]), x1 = x(b.endTiles[i]);
    const p = b.batch[i] * heads + b.head[i];
    if (p !== pair) { pair = p; g.fillStyle = pairColor(b.batch[i], b.head[i], heads); }
    // A sliver at each block's start marks where one block ends and the next begins.
    g.fillRect(x0 + (x1 - x0 > 3 ? 0.75 : 0), b.sm[i] * rowH + gap / 2, Math.max(0.6, x1 - x0 - (x1 - x0 > 3 ? 0.75 : 0)), rowH - gap);
  }
  return c;
}

export function Timeline({ s, heads, span, t, label }: { s: Side; heads: number; span: number; t: number; label: string }) {
  const [ref, size] = useResize<HTMLDivElement>();
  const canvas = useRef<HTMLCanvasElement>(null);
  const width = Math.max(120, size.width);
  const rows = s.work.smCount;
  const rowH = rows > 120 ? 1.3 : 1.5;
  const height = Math.round(rows * rowH) + AXIS_H;
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  const picture = useMemo(() => renderBlocks(s, heads, width, rows, rowH, span, dpr), [s, heads, width, span, dpr]);

  // Drawn in the commit, before the browser paints, so the canvas never shows a stale frame.
  useLayoutEffect(() => {
    const el = canvas.current!;
    el.width = Math.round(width * dpr);
    el.height = Math.round(height * dpr);
    const g = el.getContext('2d')!;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const plotH = rows * rowH;
    g.fillStyle = '#1a1a1a';  // idle SM time
    g.fillRect(0, 0, width, plotH);
    const px = Math.min(width, (t / span) * width);
    g.globalAlpha = 0.2;
    g.drawImage(picture, 0, 0, picture.width, picture.height, 0, 0, width, plotH);
    g.globalAlpha = 1;
    if (px > 0) g.drawImage(picture, 0, 0, Math.round(px * dpr), picture.height, 0, 0, px, plotH);
    // The end of this launch.
    const endX = (s.work.makespanTiles / span) * width;
    g.fillStyle = '#e5e5e5';
    g.fillRect(Math.min(endX, width - 1), 0, 1, plotH);
    // Playhead.
    g.fillStyle = '#93c5fd';
    g.fillRect(Math.min(px, width - 2), 0, 2, plotH);
    // Axis: tiles.
    g.fillStyle = '#a3a3a3';
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'top';
    const ticks = 4;
    for (let k = 0; k <= ticks; k++) {
      const v = (span * k) / ticks, x = (width * k) / ticks;
      g.fillRect(Math.min(x, width - 1), plotH, 1, 4);
      g.textAlign = k === 0 ? 'left' : k === ticks ? 'right' : 'center';
      g.fillText(Math.round(v).toLocaleString('en-US'), x, plotH + 5);
    }
  }, [picture, t, width, height]);

  return (
    <div class="timeline" ref={ref}>
      <canvas ref={canvas} style={{ width: `${width}px`, height: `${height}px` }} role="img" aria-label={label} />
    </div>
  );
}
