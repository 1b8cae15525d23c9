// Canvas helpers shared by the figures that paint on a canvas (the GPU's SM grid, timelines).

/** Device pixels per CSS pixel, capped at 2: sharper gains nothing visible and costs fill rate. */
export const pixelRatio = () => Math.min(window.devicePixelRatio || 1, 2);

/**
 * The canvas's 2-D context drawing in CSS pixels over a width x height CSS-pixel area. The backing
 * store is resized only when the size changes, because resizing reallocates and clears it.
 */
export function cssPixelContext(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D {
  const dpr = pixelRatio();
  const w = Math.round(width * dpr), h = Math.round(height * dpr);
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  const g = canvas.getContext('2d')!;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return g;
}
