// One partition's SM-utilisation timeline: a row per SM, time in K/V tiles across (shared by both
// partitions), each thread block a bar in its (batch, head) colour. The finished picture is
// written pixel by pixel into the canvas once per launch and width (a few hundred thousand pixel
// writes; thousands of fillRect calls cost far more in a software-rendered canvas). The playhead
// and the faint preview of the part still to come are HTML layers over it, so moving the clock
// changes two transforms and never redraws the canvas.
import { fmtInt } from '../shared/format';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { pixelRatio, sizedContext } from '../shared/canvas';
import type { Clock } from '../shared/stepper';
import { useWidth } from '../shared/useWidth';
import { pairRgb, type Side } from './model';

const IDLE_RGB: [number, number, number] = [0x1a, 0x1a, 0x1a];
// ImageData is RGBA in memory order; a little-endian Uint32 reads it as ABGR.
const pack = ([r, g, b]: [number, number, number]) => ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
const TICKS = 4;

// The picture: one pixel row per SM (CSS stretches it to the row height), w device pixels wide.
// Idle SM time, then each block's bar, at least one pixel wide, with a one-pixel gap at its start
// when it is wide enough to show where the previous block ended.
function drawBlocks(w: number, h: number, s: Side, heads: number, span: number): ImageData {
  const image = new ImageData(w, h);
  const px = new Uint32Array(image.data.buffer);
  px.fill(pack(IDLE_RGB));
  const b = s.work.blocks, xScale = w / span;
  let pair = -1, color = 0;
  for (let i = 0; i < b.sm.length; i++) {
    const p = b.batch[i] * heads + b.head[i];
    if (p !== pair) { pair = p; color = pack(pairRgb(b.batch[i], b.head[i], heads)); }
    let x0 = Math.round(b.startTiles[i] * xScale);
    const x1 = Math.min(w, Math.max(x0 + 1, Math.round(b.endTiles[i] * xScale)));
    if (x1 - x0 > 3) x0 += 1;
    const row = b.sm[i] * w;
    for (let x = row + x0, e = row + x1; x < e; x++) px[x] = color;
  }
  return image;
}

// Pictures already drawn, per partition: figures are cached by launch (model.ts), so a reader
// switching back to a GPU or batch size gets its pictures without redrawing them. A partition's
// heads and time span are its figure's, so only the width can differ. Kept as bitmaps in the
// canvas's own (premultiplied) format: showing one is a copy, where putImageData converts every
// pixel again.
const pictures = new WeakMap<Side, OffscreenCanvas>();
function picture(w: number, h: number, s: Side, heads: number, span: number): OffscreenCanvas {
  const cached = pictures.get(s);
  if (cached && cached.width === w && cached.height === h) return cached;
  const bitmap = new OffscreenCanvas(w, h);
  bitmap.getContext('2d')!.putImageData(drawBlocks(w, h, s, heads, span), 0, 0);
  pictures.set(s, bitmap);
  return bitmap;
}

// The playhead and the dimmed part ahead of it: the only part of the timeline that follows the
// clock, so a step re-renders these two layers and not the canvas and axis under them.
function Playhead({ clock, span, width }: { clock: Clock; span: number; width: number }) {
  const at = Math.min(1, Math.max(0, clock.time.value / span));
  return (
    <>
      <div class="timeline-ahead" style={{ transform: `translateX(${at * width}px)` }} />
      <div class="timeline-playhead" style={{ transform: `translateX(${Math.min(at * width, width - 2)}px)` }} />
    </>
  );
}

export function Timeline({ s, heads, span, clock, label }: { s: Side; heads: number; span: number; clock: Clock; label: string }) {
  const [ref, measured] = useWidth<HTMLDivElement>();
  const canvas = useRef<HTMLCanvasElement>(null);
  const width = Math.max(120, measured);
  const rows = s.work.smCount;
  // A pixel per SM on a phone, where two timelines share the frame with the controls.
  const rowH = width < 480 ? 1 : rows > 120 ? 1.3 : 1.5;
  const plotH = Math.round(rows * rowH);
  const dpr = pixelRatio();
  // The canvas keeps as many pixel rows as the largest GPU shown so far needs, and the plot clips
  // the rows under a smaller GPU's picture: a GPU change then draws into the same store, where
  // resizing it would allocate a new one and hand the compositor a new canvas resource.
  const storeRows = useRef(0);
  storeRows.current = Math.max(storeRows.current, rows);
  const canvasH = (storeRows.current * plotH) / rows;

  // Before the browser paints, so the canvas never shows another launch's picture.
  useLayoutEffect(() => {
    const w = Math.round(width * dpr);
    sizedContext(canvas.current!, w, storeRows.current).drawImage(picture(w, rows, s, heads, span), 0, 0);
  }, [s, heads, span, width, rows, dpr]);

  const end = Math.min(1, s.work.makespanTiles / span);
  return (
    <div class="timeline" ref={ref}>
      <div class="timeline-plot" style={{ height: `${plotH}px` }}>
        <canvas ref={canvas} style={{ width: `${width}px`, height: `${canvasH}px` }} role="img" aria-label={label} />
        <Playhead clock={clock} span={span} width={width} />
        <div class="timeline-end" style={{ left: `${end * 100}%` }} />
      </div>
      <div class="timeline-axis" aria-hidden="true">
        {Array.from({ length: TICKS + 1 }, (_, k) => (
          <span key={k} class={k === 0 ? 'first' : k === TICKS ? 'last' : ''} style={{ left: `${(100 * k) / TICKS}%` }}>
            {fmtInt(Math.round((span * k) / TICKS))}{k === TICKS ? ' tiles' : ''}
          </span>
        ))}
      </div>
    </div>
  );
}
