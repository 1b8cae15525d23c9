// Types of flatten-katex.mjs, for the TypeScript that imports it (site/viz/katex-prerender.ts).
export function flattenKatex(html: string): string;
export const FLAT_CSS: string;
