// Painting a cell's density image: one canvas pixel per image pixel (the core's PIXELS x PIXELS),
// scaled by CSS. Only computed entries are coloured: a pixel with none stays transparent, and a
// pixel with some is lit in proportion to the square root of its computed share, never fainter than
// MIN_ALPHA, so that a thin pattern (a few scores in a pixel of thousands of pairs) stays visible.
import { colors } from '../shared/theme';

export const MIN_ALPHA = 0.18;

/** The alpha (0..255) of a pixel whose computed share is `fraction`. */
export const pixelAlpha = (fraction: number) => (fraction > 0 ? Math.round(255 * (MIN_ALPHA + (1 - MIN_ALPHA) * Math.sqrt(fraction))) : 0);

export const CELL_COLOR = colors.sram;

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

// The image of each density array, kept as long as the array is (the model keeps each N's arrays):
// a reader moving N back and forth repaints a cell by copying its image, not by recomputing it.
const images = new WeakMap<Float32Array, ImageData>();

function densityImage(fraction: Float32Array, pixels: number): ImageData {
  const kept = images.get(fraction);
  if (kept) return kept;
  const image = new ImageData(pixels, pixels);
  const [r, gr, b] = rgb(CELL_COLOR);
  const px = image.data;
  for (let i = 0; i < fraction.length; i++) {
    const a = pixelAlpha(fraction[i]);
    if (a === 0) continue;
    px[4 * i] = r;
    px[4 * i + 1] = gr;
    px[4 * i + 2] = b;
    px[4 * i + 3] = a;
  }
  images.set(fraction, image);
  return image;
}

export function paintDensity(canvas: HTMLCanvasElement, fraction: Float32Array, pixels: number): void {
  if (canvas.width !== pixels) canvas.width = pixels;
  if (canvas.height !== pixels) canvas.height = pixels;
  canvas.getContext('2d')!.putImageData(densityImage(fraction, pixels), 0, 0);
}
