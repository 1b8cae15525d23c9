// Size budget of every visualization page (ARCHITECTURE.md): at most 200 KB gzipped for the
// JavaScript, CSS, WebAssembly and model weights it loads (fonts excluded). Sizes are measured on the committed
// build output in static/ and printed, so the numbers in a review come from this run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { builtVisualizations } from '../../scripts/built-visualizations.mjs';

const STATIC = new URL('../../static/', import.meta.url).pathname;
const BUDGET = 200 * 1024;
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

// Every JS chunk a module imports statically or dynamically (relative specifiers), recursively.
function jsClosure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const src = readFileSync(file, 'utf8');
  for (const m of src.matchAll(/(?:from\s*|import\s*\(\s*|import\s*)["'](\.{1,2}\/[^"']+\.js)["']/g)) {
    jsClosure(resolve(dirname(file), m[1]), seen);
  }
  return seen;
}

// The modules a figure's sources load: every loadModule('<part>') call under site/viz/<name>/.
// A figure that loads none is an error: every number a figure shows comes from the core.
function modulesLoadedBy(name) {
  const dir = new URL(`../../site/viz/${name}/`, import.meta.url).pathname;
  const parts = new Set();
  for (const f of readdirSync(dir, { recursive: true }).filter((f) => /\.tsx?$/.test(f))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/loadModule\(\s*'(\w+)'\s*\)/g)) parts.add(m[1]);
  }
  assert.ok(parts.size > 0, `${name}: no loadModule('<part>') call in site/viz/${name}/`);
  return parts;
}

// The model weights a figure's sources fetch from static/models/ (the Part 1 translation models):
// every 'models/<file>.bin' they name. They count towards the page like its module.
function modelsFetchedBy(name) {
  const dir = new URL(`../../site/viz/${name}/`, import.meta.url).pathname;
  const files = new Set();
  for (const f of readdirSync(dir, { recursive: true }).filter((f) => /\.tsx?$/.test(f))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/\bmodels\/([\w.-]+\.bin)\b/g)) files.add(join(STATIC, 'models', m[1]));
  }
  return files;
}

function pageAssets(name) {
  const dir = join(STATIC, 'visualizations', name);
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const files = new Set();
  for (const m of html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="stylesheet"[^>]*\shref)="([^"]+)"/g)) {
    const file = resolve(dir, m[1]);
    if (file.endsWith('.js')) jsClosure(file).forEach((f) => files.add(f));
    else files.add(file);
  }
  // The part's WebAssembly module(s) the figure loads at run time through wasm/load.ts.
  for (const part of modulesLoadedBy(name)) {
    files.add(join(STATIC, `wasm/attn_${part}.js`));
    files.add(join(STATIC, `wasm/attn_${part}.wasm`));
  }
  for (const model of modelsFetchedBy(name)) files.add(model);
  return [...files];
}

const names = builtVisualizations();

test('there is at least one visualization', () => assert.ok(names.length > 0));

for (const name of names) {
  test(`${name}: JS + CSS + WASM + weights within ${BUDGET / 1024} KB gzipped`, () => {
    const files = pageAssets(name);
    for (const f of files) assert.ok(existsSync(f), `${name} references a missing file ${f}`);
    const sizes = files.map((f) => [f.slice(STATIC.length), gz(f)]);
    const total = sizes.reduce((s, [, n]) => s + n, 0);
    console.log(`${name}: ${(total / 1024).toFixed(1)} KB gzipped\n` +
      sizes.map(([f, n]) => `  ${(n / 1024).toFixed(1).padStart(6)} KB  ${f}`).join('\n'));
    assert.ok(total <= BUDGET, `${name} loads ${(total / 1024).toFixed(1)} KB gzipped`);
  });
}
