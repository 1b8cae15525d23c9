#!/usr/bin/env node
// Pre-renders every formula in content/ with KaTeX into site/data/katex.json.
//
// Why: production builds run Hugo 0.111 only, which can neither run KaTeX nor
// pass math through Markdown untouched. So math is rendered here, committed,
// and looked up by the `m` shortcode and the `math` code-block render hook.
//
//   node scripts/render-math.mjs          rewrite site/data/katex.json
//   node scripts/render-math.mjs --check  exit 1 if the committed file is stale,
//                                          misses or carries unused entries, or
//                                          if KaTeX rejects a formula
//
// Three source forms are recognised:
//   inline   {{< m `TeX` >}}        (raw backtick string: backslashes arrive verbatim)
//   display  ```math … ```           (fenced code block, also ~~~math)
//   inline   \(TeX\) in a string of site/data/generated/*.json (the posts' computed tables)
//
// Key = sha1(normalized TeX + "|inline" | "|display"), where normalizing collapses
// every run of ASCII whitespace to one space and trims the ends. Hugo computes
// the same key in site/layouts/partials/math/render.html; normalizing makes the key
// immune to indentation (fences inside list items), CRLF files and trailing
// newlines. Because the normalized text is also what gets rendered, a TeX `%`
// comment would swallow the rest of the formula, so unescaped `%` is rejected.

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import katex from 'katex';
import { flattenKatex } from './flatten-katex.mjs';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const contentDir = join(repoRoot, 'content');
const dataFile = join(repoRoot, 'site', 'data', 'katex.json');
const generatedDir = join(repoRoot, 'site', 'data', 'generated');

function normalizeTex(tex) {
  return tex.replace(/[ \t\n\r\f]+/g, ' ').replace(/^ /, '').replace(/ $/, '');
}

/** The key of a formula in site/data/katex.json (the tests look formulas up by it too). */
export function mathKey(tex, mode) {
  return createHash('sha1').update(`${normalizeTex(tex)}|${mode}`, 'utf8').digest('hex');
}

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length;
}

// Inline math: the only accepted form is a raw-string positional parameter.
// Any other spelling of the shortcode would reach Hugo with different escaping,
// so it is reported instead of silently producing a key Hugo will not ask for.
function extractInline(text, file, formulas, problems) {
  const anyUse = /\{\{[<%]\s*m\s[\s\S]*?[>%]\}\}/g;
  const rawString = /^\{\{<\s*m\s+`([^`]*)`\s*>\}\}$/;
  for (const match of text.matchAll(anyUse)) {
    const line = lineOf(text, match.index);
    const parsed = rawString.exec(match[0]);
    if (!parsed) {
      problems.push(`${file}:${line}: use {{< m \`TeX\` >}} (backticks), found ${match[0]}`);
      continue;
    }
    formulas.push({ tex: parsed[1], mode: 'inline', file, line });
  }
}

// Display math: fenced blocks whose info string starts with `math`. Fences of
// other languages are skipped whole, so a Markdown sample inside a code block
// is never mistaken for math. Blockquote markers are stripped from content lines
// when the fence itself sits in a blockquote.
function extractDisplay(text, file, formulas) {
  const lines = text.split(/\r?\n/);
  const opening = /^([ \t]*(?:>[ \t]?)*)(`{3,}|~{3,})[ \t]*([^\s`{]*)/;
  let open = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!open) {
      const m = opening.exec(line);
      if (m) open = { quoted: m[1].includes('>'), fence: m[2], isMath: m[3] === 'math', start: i + 1, body: [] };
      continue;
    }
    const bare = open.quoted ? line.replace(/^[ \t]*(?:>[ \t]?)*/, '') : line.trimStart();
    const closer = new RegExp(`^${open.fence[0] === '`' ? '`' : '~'}{${open.fence.length},}[ \\t]*$`);
    if (closer.test(bare)) {
      if (open.isMath) formulas.push({ tex: open.body.join('\n'), mode: 'display', file, line: open.start });
      open = null;
    } else {
      open.body.push(open.quoted ? bare : line);
    }
  }
}

function markdownFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(dir, name));
}

function hasTexComment(tex) {
  return /(^|[^\\])(\\\\)*%/.test(tex);
}

/** Inline math \(TeX\) in a string of a computed table (site/data/generated/*.json), which the
 *  data-table shortcode renders through partials/math/text.html; group 1 is the TeX. */
export const INLINE_IN_TEXT = /\\\((.+?)\\\)/g;

// Every such formula of the computed tables.
function extractGenerated(formulas) {
  if (!existsSync(generatedDir)) return;
  for (const name of readdirSync(generatedDir).filter((n) => n.endsWith('.json')).sort()) {
    const file = relative(repoRoot, join(generatedDir, name));
    const walk = (value) => {
      if (typeof value === 'string') {
        for (const m of value.matchAll(INLINE_IN_TEXT)) formulas.push({ tex: m[1], mode: 'inline', file, line: 0 });
      } else if (value && typeof value === 'object') {
        Object.values(value).forEach(walk);
      }
    };
    walk(JSON.parse(readFileSync(join(generatedDir, name), 'utf8')));
  }
}

function collectFormulas() {
  const formulas = [];
  const problems = [];
  for (const path of markdownFiles(contentDir)) {
    const file = relative(repoRoot, path);
    const text = readFileSync(path, 'utf8');
    extractInline(text, file, formulas, problems);
    extractDisplay(text, file, formulas);
  }
  extractGenerated(formulas);
  return { formulas, problems };
}

function renderAll(formulas, problems) {
  const rendered = {};
  for (const { tex, mode, file, line } of formulas) {
    const source = normalizeTex(tex);
    const where = `${file}:${line}: ${mode} math ${JSON.stringify(source)}`;
    if (source === '') {
      problems.push(`${where}: empty formula`);
      continue;
    }
    if (hasTexComment(source)) {
      problems.push(`${where}: unescaped % (write \\% for a percent sign)`);
      continue;
    }
    try {
      rendered[mathKey(tex, mode)] = flattenKatex(katex.renderToString(source, {
        displayMode: mode === 'display',
        output: 'htmlAndMathml',
        throwOnError: true,
        strict: 'error',
        trust: false,
      }));
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
    }
  }
  return rendered;
}

function serialize(rendered) {
  const sorted = Object.fromEntries(Object.keys(rendered).sort().map((key) => [key, rendered[key]]));
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

function compareWithCommitted(rendered, formulas) {
  const committed = existsSync(dataFile) ? JSON.parse(readFileSync(dataFile, 'utf8')) : {};
  const problems = [];
  const whereByKey = new Map(formulas.map((f) => [mathKey(f.tex, f.mode), f]));
  for (const [key, html] of Object.entries(rendered)) {
    const { file, line, mode, tex } = whereByKey.get(key);
    const where = `${file}:${line}: ${mode} math ${JSON.stringify(normalizeTex(tex))}`;
    if (!(key in committed)) problems.push(`${where}: missing from site/data/katex.json`);
    else if (committed[key] !== html) problems.push(`${where}: stale entry in site/data/katex.json`);
  }
  for (const key of Object.keys(committed)) {
    if (!(key in rendered)) problems.push(`site/data/katex.json: unused entry ${key}`);
  }
  return problems;
}

function main() {
  const check = process.argv.includes('--check');
  const { formulas, problems } = collectFormulas();
  const rendered = renderAll(formulas, problems);
  if (check && problems.length === 0) problems.push(...compareWithCommitted(rendered, formulas));
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    if (check) console.error('Run `make math` (node scripts/render-math.mjs) and commit site/data/katex.json.');
    process.exit(1);
  }
  if (check) {
    console.log(`site/data/katex.json is up to date (${Object.keys(rendered).length} formulas).`);
    return;
  }
  writeFileSync(dataFile, serialize(rendered));
  console.log(`Wrote ${relative(repoRoot, dataFile)} (${Object.keys(rendered).length} formulas).`);
}

// Run as a script (make math); imported by the tests for mathKey and INLINE_IN_TEXT.
if (process.argv[1] === fileURLToPath(import.meta.url)) main();
