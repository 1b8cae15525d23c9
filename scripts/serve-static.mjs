#!/usr/bin/env node
// Serves a built site directory the way production does: the response headers declared in
// netlify.toml (Content-Security-Policy, framing rules, ...) are applied to every response, so
// browser tests catch a page the policy would break. Matching [[headers]] blocks apply in file
// order; a later block's value for the same header replaces an earlier one. Like Netlify, it sends
// an ETag with every file, answers a matching If-None-Match with 304, compresses text with gzip,
// and gives a file no rule sets Cache-Control for Netlify's default: cache, but revalidate first.
//
// Usage: node scripts/serve-static.mjs [dir=public] [port=1313]
// As a module: const server = await serveStatic(dir, port); ... server.close();
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parse } from 'smol-toml';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.ico': 'image/x-icon',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.xml': 'application/xml', '.txt': 'text/plain; charset=utf-8',
};

// Netlify's Cache-Control for a file no header rule gives one.
export const DEFAULT_CACHE_CONTROL = 'public, max-age=0, must-revalidate';
const COMPRESSIBLE = /^(text\/|application\/(json|xml|wasm)|image\/svg)/;

const repoRoot = resolve(fileURLToPath(import.meta.url), '../..');

export async function headerRules(tomlPath = join(repoRoot, 'netlify.toml')) {
  const config = parse(await readFile(tomlPath, 'utf8'));
  return (config.headers ?? []).map(({ for: pattern, values }) => ({
    test: new RegExp('^' + pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$'),
    values,
  }));
}

async function resolveFile(dir, urlPath) {
  const path = normalize(decodeURIComponent(urlPath)).replace(/^(\.\.[/\\])+/, '');
  let file = join(dir, path);
  const info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    if (!urlPath.endsWith('/')) return { redirect: urlPath + '/' };
    file = join(file, 'index.html');
  }
  return (await stat(file).catch(() => null))?.isFile() ? { file } : { missing: true };
}

export async function serveStatic(dir = 'public', port = 1313) {
  const root = resolve(dir);
  const rules = await headerRules();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    for (const rule of rules) {
      if (rule.test.test(url.pathname)) for (const [name, value] of Object.entries(rule.values)) res.setHeader(name, value);
    }
    const found = await resolveFile(root, url.pathname);
    if (found.redirect) {
      res.writeHead(301, { Location: found.redirect + url.search });
      return res.end();
    }
    const file = found.file ?? join(root, '404.html');
    let body = await readFile(file).catch(() => Buffer.from('Not found'));
    const type = MIME[extname(file)] ?? 'application/octet-stream';
    if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', DEFAULT_CACHE_CONTROL);
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    res.setHeader('ETag', etag);
    if (found.file && req.headers['if-none-match'] === etag) {
      res.writeHead(304);
      return res.end();
    }
    if (COMPRESSIBLE.test(type) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      body = gzipSync(body);
      res.setHeader('Content-Encoding', 'gzip');
      res.setHeader('Vary', 'Accept-Encoding');
    }
    res.writeHead(found.file ? 200 : 404, { 'Content-Type': type });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir = 'public', port = '1313'] = process.argv.slice(2);
  await serveStatic(dir, Number(port));
  console.log(`Serving ${resolve(dir)} at http://localhost:${port}/ with the headers of netlify.toml`);
}
