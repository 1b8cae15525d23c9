// Canvas helpers shared by the figures that paint on a canvas (the GPU's SM grid, timelines).

/** Device pixels per CSS pixel, capped at 2: sharper gains nothing visible and costs fill rate. */
export const pixelRatio = () => Math.min(window.devicePixelRatio || 1, 2);

/**
 * The canvas's 2-D context with a backing store of w x h device pixels. Only a dimension that
 * changed is set, because each assignment (even of the same value) reallocates and clears the store.
 */
export function sizedContext(canvas: HTMLCanvasElement, w: number, h: number): CanvasRenderingContext2D {
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  return canvas.getContext('2d')!;
}

/**
 * The canvas's 2-D context drawing in CSS pixels over a width x height CSS-pixel area.
 */
export function cssPixelContext(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D {
  const dpr = pixelRatio();
  return inCssPixels(sizedContext(canvas, Math.round(width * dpr), Math.round(height * dpr)));
}

// The context set to draw in CSS pixels on its device-pixel store.
function inCssPixels(g: CanvasRenderingContext2D): CanvasRenderingContext2D {
  const dpr = pixelRatio();
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return g;
}

// The CSS size each growing canvas's store has reached (growingContext).
const grown = new WeakMap<HTMLCanvasElement, { width: number; height: number }>();

/**
 * The 2-D context of a canvas whose drawing changes size with the reader's settings, cleared and
 * drawing in CSS pixels. Its store only grows, to the largest width and height asked for so far: a
 * smaller drawing then paints into the store it has, where resizing the store would allocate a new
 * one and hand the compositor a new canvas resource (a few ms of main-thread time on a
 * software-rendered page). The canvas's CSS size is set to the store's, so its container must
 * clip it to the drawing.
 */
export function growingContext(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D {
  const seen = grown.get(canvas);
  const size = { width: Math.max(seen?.width ?? 0, Math.ceil(width)), height: Math.max(seen?.height ?? 0, Math.ceil(height)) };
  grown.set(canvas, size);
  canvas.style.width = `${size.width}px`;
  canvas.style.height = `${size.height}px`;
  const g = cssPixelContext(canvas, size.width, size.height);
  g.clearRect(0, 0, size.width, size.height);
  return g;
}

/**
 * The 2-D context of a canvas that growingContext sized, drawing in CSS pixels and not cleared, to
 * redraw part of what it holds.
 */
export function grownContext(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  return inCssPixels(canvas.getContext('2d')!);
}

const offPage = new Map<string, HTMLCanvasElement>();
/**
 * A cleared context, in CSS pixels over width x height, of a canvas outside the page, for text that
 * is then copied onto a canvas in the page with drawImage (copyText). Assigning a font to a canvas
 * in the page makes Chromium bring the page's pending style changes up to date at that moment: in a
 * render, that is a restyle in the middle of the render's DOM changes, and another after them. A
 * canvas outside the page resolves its font alone. Each `use` (e.g. 'row labels') has a canvas of
 * its own, whose store grows to the largest size that use has asked for and is never shrunk: a
 * use's requests differ along one side only (a strip as long as the grid), and reallocating the
 * store at each new size cost a change of N about 0.4 ms (the tiling figure, 1x). Not one canvas
 * shared by all uses either: drawImage takes a copy-on-write snapshot of the whole source store, so
 * the next drawing on a store grown to the widest and the tallest of every use copied all of it
 * (at N = 32: a 448 x 448 px store for strips at most 100 px wide, 0.17 ms per copy).
 */
export function offPageContext(use: string, width: number, height: number): CanvasRenderingContext2D {
  let canvas = offPage.get(use);
  if (!canvas) offPage.set(use, (canvas = document.createElement('canvas')));
  const dpr = pixelRatio();
  const g = cssPixelContext(canvas, Math.max(Math.ceil(width), canvas.width / dpr), Math.max(Math.ceil(height), canvas.height / dpr));
  g.clearRect(0, 0, width, height);
  return g;
}

/** Copies what `text` (an offPageContext of width x height) drew onto `g` at (x, y), in g's CSS pixels. */
export function copyText(g: CanvasRenderingContext2D, text: CanvasRenderingContext2D, x: number, y: number, width: number, height: number) {
  const dpr = pixelRatio();
  g.drawImage(text.canvas, 0, 0, Math.round(width * dpr), Math.round(height * dpr), x, y, width, height);
}

let family: string | null = null;
/**
 * The page's font family, for canvas text set beside the page's own. Read once: reading a computed
 * style during a render forces the page's pending style changes to be resolved there and then.
 */
export const pageFontFamily = () => (family ??= getComputedStyle(document.body).fontFamily);

let measurer: CanvasRenderingContext2D | null = null;
const textWidths = new Map<string, number>();
/** The width in CSS px of `text` drawn in `font` (a CSS font shorthand), measured once per pair. */
export function textWidth(text: string, font: string): number {
  const key = `${font}|${text}`;
  let w = textWidths.get(key);
  if (w === undefined) {
    measurer ??= document.createElement('canvas').getContext('2d')!;
    measurer.font = font;
    w = measurer.measureText(text).width;
    textWidths.set(key, w);
  }
  return w;
}

/**
 * SVG attributes that keep a line of `text` within `max` px: none when it fits, else a
 * textLength that condenses it to `max`, so a narrow box never has text running out of it.
 */
export const fitText = (text: string, font: string, max: number) =>
  (textWidth(text, font) > max ? { textLength: max, lengthAdjust: 'spacingAndGlyphs' } : {});
