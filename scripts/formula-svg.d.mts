// Types of formula-svg.mjs, for the TypeScript that uses it (site/viz/formula-prerender.ts) and its
// results (site/viz/shared/EquationCallout.tsx, formula.d.ts). Numbers are viewBox units, 1,000 per em.
/** A value's place: its box's left edge, width and baseline, and the font size there. */
export interface FormulaSlot { name: string; x: number; width: number; baseline: number; size: number }
export interface TypesetFormula { image: string; viewBox: number[]; slots: FormulaSlot[] }
export function formulaSvg(tex: string, options: { color: string }): TypesetFormula;
export function formulaFile(file: string): TypesetFormula;
export interface ValueGlyph { width: number; start: [number, number]; rest: string }
export function valueGlyphs(): Record<string, ValueGlyph>;
