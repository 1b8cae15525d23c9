// Theme tokens for every visualization. The values live in site/data/theme.json, the single
// source the Hugo stylesheet reads too, so the posts and their figures share one palette.
import tokens from '../../data/theme.json';

export const colors = tokens.colors;
export const motionTokens = tokens.motion;

// Exposes the palette as CSS custom properties (--bg, --hbm, --head-0, ...) for the stylesheets.
export function applyTheme(root: HTMLElement = document.documentElement): void {
  for (const [name, value] of Object.entries(colors)) {
    if (Array.isArray(value)) value.forEach((v, i) => root.style.setProperty(`--head-${i}`, v));
    else root.style.setProperty(`--${name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`, value);
  }
}
