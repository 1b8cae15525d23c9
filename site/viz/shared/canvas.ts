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
  const g = sizedContext(canvas, Math.round(width * dpr), Math.round(height * dpr));
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return g;
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
