#!/usr/bin/env node
// Serves a built site directory the way production does: the response headers declared in
// netlify.toml (Content-Security-Policy, framing rules, ...) are applied to every response, so
// browser tests catch a page the policy would break. Matching [[headers]] blocks apply in file
// order; a later block's value for the same header replaces an earlier one.
//
// Usage: node scripts/serve-static.mjs [dir=public] [port=1313]
// As a module: const server = await serveStatic(dir, port); ... server.close();
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.ico': 'image/x-icon',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.xml': 'application/xml', '.txt': 'text/plain; charset=utf-8',
};

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
    const body = await readFile(file).catch(() => Buffer.from('Not found'));
    res.writeHead(found.file ? 200 : 404, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' });
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
