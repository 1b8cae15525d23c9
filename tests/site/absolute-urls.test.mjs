// The production build (netlify.toml's command, with the site address Netlify provides in URL) gives
// every canonical link, og:url, og:image, sitemap entry and feed link as an absolute URL on that
// address: crawlers and social cards do not resolve relative ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const SITE = 'https://attention.example';
const { command } = parse(readFileSync(join(repoRoot, 'netlify.toml'), 'utf8')).build;

function productionBuild(env) {
  const out = mkdtempSync(join(tmpdir(), 'site-'));
  execFileSync('bash', ['-c', `${command} --destination "${out}" --quiet`], {
    cwd: repoRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: 'pipe',
  });
  return out;
}

const attribute = (html, pattern) => [...html.matchAll(pattern)].map((m) => m[1]);

for (const [label, env, base] of [['URL', { URL: SITE }, SITE], ['HUGO_BASEURL', { URL: SITE, HUGO_BASEURL: 'https://mirror.example/' }, 'https://mirror.example']]) {
  test(`with ${label} set, the production build writes absolute site URLs on ${base}`, () => {
    const out = productionBuild(env);
    try {
      const problems = [];
      const expectAbsolute = (where, urls, min = 1) => {
        if (urls.length < min) problems.push(`${where}: no URL found`);
        for (const url of urls) if (!url.startsWith(base + '/')) problems.push(`${where}: ${url}`);
      };
      const pages = readdirSync(out, { recursive: true }).filter((f) => f.endsWith('.html') && !f.startsWith('visualizations/'));
      for (const page of pages) {
        const html = readFileSync(join(out, page), 'utf8');
        expectAbsolute(`${page} canonical`, attribute(html, /<link rel=canonical href="?([^" >]+)/g));
        expectAbsolute(`${page} og:url`, attribute(html, /<meta property="?og:url"? content="?([^" >]+)/g));
        expectAbsolute(`${page} og:image`, attribute(html, /<meta property="?og:image"? content="?([^" >]+)/g), 0);
      }
      const post = readFileSync(join(out, 'posts/flash-attention-deep-dive/index.html'), 'utf8');
      assert.equal(attribute(post, /<meta property="?og:image"? content="?([^" >]+)/g).length, 1, 'a post has an og:image');
      const sitemap = readFileSync(join(out, 'sitemap.xml'), 'utf8');
      expectAbsolute('sitemap', attribute(sitemap, /<loc>([^<]+)<\/loc>/g));
      const feed = readFileSync(join(out, 'index.xml'), 'utf8');
      expectAbsolute('feed', [...attribute(feed, /<link>([^<]+)<\/link>/g), ...attribute(feed, /<guid>([^<]+)<\/guid>/g)]);
      assert.deepEqual(problems, []);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
}
