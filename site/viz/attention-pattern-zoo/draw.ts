// Painting a cell's density image: one canvas pixel per image pixel (the core's PIXELS x PIXELS),
// scaled by CSS. Only computed entries are coloured: a pixel with none stays transparent, and a
// pixel with some is lit in proportion to the square root of its computed share, never fainter than
// MIN_ALPHA, so that a thin pattern (a few scores in a pixel of thousands of pairs) stays visible.
import { colors } from '../shared/theme';

export const MIN_ALPHA = 0.18;

/** The alpha (0..255) of a pixel whose computed share is `fraction`. */
export const pixelAlpha = (fraction: number) => (fraction > 0 ? Math.round(255 * (MIN_ALPHA + (1 - MIN_ALPHA) * Math.sqrt(fraction))) : 0);

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

export function paintDensity(canvas: HTMLCanvasElement, fraction: Float32Array, pixels: number, color: string): void {
  if (canvas.width !== pixels) canvas.width = pixels;
  if (canvas.height !== pixels) canvas.height = pixels;
  const g = canvas.getContext('2d')!;
  const image = g.createImageData(pixels, pixels);
  const [r, gr, b] = rgb(color);
  const px = image.data;
  for (let i = 0; i < fraction.length; i++) {
    const a = pixelAlpha(fraction[i]);
    if (a === 0) continue;
    px[4 * i] = r;
    px[4 * i + 1] = gr;
    px[4 * i + 2] = b;
    px[4 * i + 3] = a;
  }
  g.putImageData(image, 0, 0);
}

export const CELL_COLOR = colors.sram;
