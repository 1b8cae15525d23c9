#!/usr/bin/env node
// Copies KaTeX's stylesheet and WOFF2 fonts from node_modules into
// static/vendor/katex/, which is committed: production builds run Hugo only and
// the CSP serves fonts and styles from 'self' alone.
//
// Only WOFF2 is shipped (every browser that runs the visualizations reads it),
// so the stylesheet's @font-face rules are rewritten to list only the WOFF2
// source; otherwise browsers could request the missing .woff/.ttf files.
// Fonts are displayed with swap rather than KaTeX's block (see swapFontDisplay).
// Running it twice produces identical files.

import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLAT_CSS } from './flatten-katex.mjs';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const katexDist = join(dirname(require.resolve('katex/package.json')), 'dist');
const target = join(repoRoot, 'static', 'vendor', 'katex');

function woff2Only(css) {
  // Each src is a comma-separated list of url(...) format(...) pairs.
  return css.replace(/src:([^;}]+)/g, (declaration, sources) => {
    const woff2 = sources.split(',').filter((source) => source.includes('.woff2'));
    if (woff2.length === 0) throw new Error(`no woff2 source in: ${declaration}`);
    return `src:${woff2.join(',')}`;
  });
}

rmSync(target, { recursive: true, force: true });
mkdirSync(join(target, 'fonts'), { recursive: true });

// KaTeX declares its fonts font-display:block, which hides the formulas' text for up to three
// seconds while the fonts load; swap shows it at once in a fallback face.
function swapFontDisplay(css) {
  return css.replaceAll('font-display:block', 'font-display:swap');
}

const css = readFileSync(join(katexDist, 'katex.min.css'), 'utf8');
// The formulas are rendered flat (flatten-katex.mjs); their rules come last, to override KaTeX's.
writeFileSync(join(target, 'katex.min.css'), `${swapFontDisplay(woff2Only(css))}\n${FLAT_CSS}\n`);

const fonts = readdirSync(join(katexDist, 'fonts')).filter((name) => name.endsWith('.woff2')).sort();
for (const font of fonts) copyFileSync(join(katexDist, 'fonts', font), join(target, 'fonts', font));

copyFileSync(join(dirname(katexDist), 'LICENSE'), join(target, 'LICENSE'));
const { version } = JSON.parse(readFileSync(join(dirname(katexDist), 'package.json'), 'utf8'));
writeFileSync(join(target, 'VERSION'), `${version}\n`);

console.log(`Vendored KaTeX ${version}: katex.min.css and ${fonts.length} WOFF2 fonts into static/vendor/katex/`);
