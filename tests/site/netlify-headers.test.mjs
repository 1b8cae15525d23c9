// Checks netlify.toml's header rules against the built site (SITE_DIR, default
// public/): the site's own pages refuse framing by other sites, every
// visualization may be framed by anyone, every response carries the CSP.
//
// Netlify applies all rules whose `for` matches a path, so the headers a path
// gets are the union of the matching rules; a header set by two rules arrives
// twice (two CSPs are both enforced). The matcher below follows Netlify's
// path syntax: `*` as a whole segment matches the rest of the path (including
// nothing), `*` inside a segment matches any characters, `:name` one segment.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const siteDir = resolve(repoRoot, process.env.SITE_DIR ?? 'public');
const rules = parse(readFileSync(join(repoRoot, 'netlify.toml'), 'utf8')).headers ?? [];

function forPattern(path) {
  const escape = (text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const segments = path.split('/').filter(Boolean).map((segment) => {
    if (segment === '*') return '?(.*)';
    if (segment.startsWith(':')) return '([^/]+)';
    return segment.split('*').map(escape).join('(.*)');
  });
  return new RegExp(`^/${segments.join('/')}/?$`, 'i');
}

const compiled = rules.map((rule) => ({ pattern: forPattern(rule.for), values: rule.values }));

// Every value each header would carry for a request path.
function headersFor(path) {
  const headers = {};
  for (const { pattern, values } of compiled) {
    if (!pattern.test(path)) continue;
    for (const [name, value] of Object.entries(values)) (headers[name.toLowerCase()] ??= []).push(value);
  }
  return headers;
}

// The request paths that serve a built file: /a/b/index.html is also /a/b/.
function requestPaths(file) {
  const path = `/${file.split('\\').join('/')}`;
  return path.endsWith('/index.html') ? [path, path.slice(0, -'index.html'.length)] : [path];
}

const builtFiles = existsSync(siteDir) ? readdirSync(siteDir, { recursive: true, withFileTypes: true }) : [];
const files = builtFiles
  .filter((entry) => entry.isFile())
  .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(siteDir.length + 1))
  .sort();
const isVisualization = (file) => file.startsWith('visualizations/');
const frameAncestors = (csp) => /frame-ancestors\s+([^;]+)/.exec(csp)?.[1].trim() ?? null;

test('the built site exists', () => {
  assert.ok(files.length > 0, `${siteDir} is empty or missing: build the site first`);
});

test('every response carries the CSP baseline', () => {
  const problems = [];
  for (const file of files) {
    for (const path of requestPaths(file)) {
      const headers = headersFor(path);
      const csps = headers['content-security-policy'] ?? [];
      if (csps.length === 0) problems.push(`${path}: no Content-Security-Policy`);
      for (const csp of csps) {
        if (!csp.includes("script-src 'self' 'wasm-unsafe-eval'")) problems.push(`${path}: CSP without the script-src baseline`);
        if (!csp.includes("object-src 'none'")) problems.push(`${path}: CSP without object-src 'none'`);
      }
      if (!(headers['x-content-type-options'] ?? []).includes('nosniff')) problems.push(`${path}: no nosniff`);
    }
  }
  assert.deepEqual(problems, []);
});

test("the site's own pages cannot be framed by other sites", () => {
  const problems = [];
  for (const file of files.filter((name) => name.endsWith('.html') && !isVisualization(name))) {
    for (const path of requestPaths(file)) {
      const headers = headersFor(path);
      const ancestors = (headers['content-security-policy'] ?? []).map(frameAncestors).filter(Boolean);
      if (!ancestors.includes("'self'")) problems.push(`${path}: no CSP with frame-ancestors 'self' (add its section to netlify.toml)`);
      if (ancestors.some((value) => value !== "'self'")) problems.push(`${path}: frame-ancestors other than 'self': ${ancestors}`);
      if (!(headers['x-frame-options'] ?? []).includes('SAMEORIGIN')) problems.push(`${path}: no X-Frame-Options: SAMEORIGIN`);
    }
  }
  assert.deepEqual(problems, []);
});

test('visualizations may be framed by any site', () => {
  // Checked on the built files when there are any, and on a representative path always.
  const paths = ['/visualizations/online-softmax/', ...files.filter(isVisualization).flatMap(requestPaths)];
  const problems = [];
  for (const path of paths) {
    const headers = headersFor(path);
    if (headers['x-frame-options']) problems.push(`${path}: X-Frame-Options ${headers['x-frame-options']}`);
    for (const csp of headers['content-security-policy'] ?? []) {
      const ancestors = frameAncestors(csp);
      if (ancestors !== null && ancestors !== '*') problems.push(`${path}: frame-ancestors ${ancestors}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('WebAssembly is served as application/wasm, its JavaScript loader is not', () => {
  assert.deepEqual(headersFor('/wasm/attn_flash.wasm')['content-type'], ['application/wasm']);
  assert.equal(headersFor('/wasm/attn_flash.js')['content-type'], undefined);
});

// A content hash in the name: Vite's `name-8charhash.ext`, Hugo's `name.min.<64 hex>.ext`.
const FINGERPRINTED = /(-[A-Za-z0-9_-]{8}|\.[0-9a-f]{64})\.(js|css)$/;

test('only fingerprinted files are cached as immutable, and each has one Cache-Control', () => {
  const problems = [];
  for (const file of files) {
    for (const path of requestPaths(file)) {
      const cache = headersFor(path)['cache-control'] ?? [];
      if (cache.length > 1) problems.push(`${path}: ${cache.length} Cache-Control values`);
      if (cache.some((v) => /immutable/.test(v)) && !FINGERPRINTED.test(path)) problems.push(`${path}: immutable without a content hash in its name`);
    }
  }
  assert.deepEqual(problems, []);
  // Every fingerprinted file the built pages load is long-lived.
  const fingerprinted = files.map((f) => `/${f}`).filter((p) => FINGERPRINTED.test(p));
  assert.ok(fingerprinted.length > 0 || files.length === 0);
  for (const path of fingerprinted) assert.match(String(headersFor(path)['cache-control']), /max-age=31536000, immutable/, path);
});
