// Types of formula-svg.mjs, for the TypeScript that imports it (site/viz/formula-prerender.ts).
export interface FormulaSlot { name: string; x: number; width: number; baseline: number; size: number }
export interface TypesetFormula { image: string; viewBox: number[]; slots: FormulaSlot[] }
export function formulaSvg(tex: string, options: { color: string }): TypesetFormula;
export function formulaFile(file: string): TypesetFormula;
export interface ValueGlyph { width: number; start: [number, number]; rest: string }
export function valueGlyphs(): Record<string, ValueGlyph>;
