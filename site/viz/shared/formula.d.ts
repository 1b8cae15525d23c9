// Formulas imported with ?formula are typeset at build time (formula-prerender.ts): an SVG image
// and the boxes of its live values, in the image's viewBox units (1,000 per em).
declare module '*.tex?formula' {
  const formula: import('../../../scripts/formula-svg.mjs').TypesetFormula;
  export default formula;
}
// The glyphs live values are drawn with, by character (formula-prerender.ts): advance width, and
// the outline's first point and its relative path from there, in units of 1/1000 em with y
// growing upwards.
declare module 'virtual:value-glyphs' {
  const glyphs: Record<string, import('../../../scripts/formula-svg.mjs').ValueGlyph>;
  export default glyphs;
}
