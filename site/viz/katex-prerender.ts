// Vite plugin: `import eq from './x.tex?katex'` yields KaTeX's HTML for the formula, rendered at
// build time, so pages ship no KaTeX JavaScript (78 KB gzipped). Live values go into slots:
// `\slot{name}` in the .tex file becomes an element with data-slot="name" that
// EquationCallout fills at run time. The HTML's vertical offsets are margins (flatten-katex.mjs).
import { readFileSync } from 'node:fs';
import katex from 'katex';
import type { Plugin } from 'vite';
import { flattenKatex } from '../../scripts/flatten-katex.mjs';

const SUFFIX = '?katex';

export function katexPrerender(): Plugin {
  return {
    name: 'katex-prerender',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (!source.endsWith(SUFFIX)) return null;
      const resolved = await this.resolve(source.slice(0, -SUFFIX.length), importer, { skipSelf: true });
      return resolved ? resolved.id + SUFFIX : null;
    },
    load(id) {
      if (!id.endsWith(SUFFIX)) return null;
      const file = id.slice(0, -SUFFIX.length);
      this.addWatchFile(file);
      const tex = readFileSync(file, 'utf8').trim().replace(/\\slot\{(\w+)\}/g, '\\htmlData{slot=$1}{\\square}');
      const html = katex.renderToString(tex, {
        displayMode: true,
        throwOnError: true,
        output: 'html',
        trust: (context) => context.command === '\\htmlData',
        strict: (code: string) => (code === 'htmlExtension' ? 'ignore' : 'error'),
      });
      return `export default ${JSON.stringify(flattenKatex(html))};`;
    },
  };
}
