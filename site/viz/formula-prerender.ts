// Vite plugin: `import f from './x.tex?formula'` yields the formula typeset at build time as one
// SVG image, with the places of its live values (scripts/formula-svg.mjs), and
// `virtual:value-glyphs` the TeX glyphs those values are drawn with, so pages ship neither a TeX
// engine nor its fonts and markup. EquationCallout draws a formula and fills its values in.
import { formulaFile, valueGlyphs } from '../../scripts/formula-svg.mjs';
import type { Plugin } from 'vite';

const SUFFIX = '?formula';
const GLYPHS = 'virtual:value-glyphs';

// The SVG as a data URL: only the characters a URL gives a meaning to are escaped ('#' would
// start a fragment, '%' an escape), so the markup stays readable and compresses as well as before.
const dataUrl = (svg: string) => `data:image/svg+xml,${svg.replace(/%/g, '%25').replace(/#/g, '%23').replace(/\s+/g, ' ')}`;

export function formulaPrerender(): Plugin {
  return {
    name: 'formula-prerender',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (source === GLYPHS) return '\0' + GLYPHS;
      if (!source.endsWith(SUFFIX)) return null;
      const resolved = await this.resolve(source.slice(0, -SUFFIX.length), importer, { skipSelf: true });
      return resolved ? resolved.id + SUFFIX : null;
    },
    load(id) {
      if (id === '\0' + GLYPHS) return `export default ${JSON.stringify(valueGlyphs())};`;
      if (!id.endsWith(SUFFIX)) return null;
      const file = id.slice(0, -SUFFIX.length);
      this.addWatchFile(file);
      const { image, viewBox, slots } = formulaFile(file);
      return `export default ${JSON.stringify({ image: dataUrl(image), viewBox, slots })};`;
    },
  };
}
