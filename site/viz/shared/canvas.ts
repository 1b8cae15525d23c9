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
