// What a post costs a reader: every post is loaded in Chromium under the production headers
// (scripts/serve-static.mjs applies netlify.toml), scrolled to the end so every lazy figure loads,
// and the bytes transferred are printed per post. However many figures a post embeds, each
// WebAssembly module crosses the network at most once; a second visit fetches nothing
// fingerprinted again and revalidates the rest.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startSite } from './browser.mjs';

const POSTS = readdirSync('public/posts', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `/posts/${d.name}/`);
let site;
before(async () => { site = await startSite(); });
after(() => site.close());

// Every response the page and its same-origin frames receive, with the bytes that crossed the
// network (0 when served from the browser's cache).
async function recordTransfers(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const byId = new Map();
  const fromCache = new Set();
  cdp.on('Network.requestServedFromCache', ({ requestId }) => fromCache.add(requestId));
  cdp.on('Network.responseReceived', ({ requestId, response }) =>
    byId.set(requestId, { url: response.url, status: response.status, cached: fromCache.has(requestId) || Boolean(response.fromDiskCache), bytes: 0 }));
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const r = byId.get(requestId);
    if (r) r.bytes = r.cached ? 0 : encodedDataLength;
  });
  return () => [...byId.values()];
}

// Scrolls through the whole post so every lazily loaded frame loads, then waits for each figure.
async function readThrough(page) {
  const frames = page.locator('.viz__frame iframe');
  for (let i = 0; i < await frames.count(); i++) {
    await frames.nth(i).scrollIntoViewIfNeeded();
    await page.frameLocator('.viz__frame iframe').nth(i).locator('#app > *:not(noscript)').first().waitFor();
  }
  await page.waitForLoadState('networkidle');
  return frames.count();
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

for (const post of POSTS) {
  test(`${post} downloads each WebAssembly module at most once`, async () => {
    const { page, problems, close } = await site.open(null);
    const transfers = await recordTransfers(page);
    await page.goto(site.base + post, { waitUntil: 'networkidle' });
    const figures = await readThrough(page);
    const first = transfers();
    const total = first.reduce((sum, r) => sum + r.bytes, 0);
    const wasm = first.filter((r) => r.url.endsWith('.wasm') && r.bytes > 0);
    console.log(`${post}: ${figures} figures, ${first.length} responses, ${kb(total)} transferred ` +
      `(WebAssembly: ${wasm.map((r) => `${r.url.split('/').pop()} ${kb(r.bytes)}`).join(', ') || 'none'})`);
    for (const url of new Set(wasm.map((r) => r.url))) {
      const downloads = wasm.filter((r) => r.url === url).length;
      assert.equal(downloads, 1, `${url} downloaded ${downloads} times`);
    }

    // A second visit: fingerprinted files come from the cache without a request, the rest revalidate.
    // (Through another page: going to the same URL again would be a reload, which revalidates.)
    await page.goto('about:blank');
    const before = transfers().length;
    await page.goto(site.base + post, { waitUntil: 'networkidle' });
    await readThrough(page);
    const again = transfers().slice(before);
    const fingerprinted = again.filter((r) => /(-[A-Za-z0-9_-]{8}|\.[0-9a-f]{64})\.(js|css)$/.test(r.url) && !r.cached);
    assert.deepEqual(fingerprinted.map((r) => r.url), [], 'fingerprinted files are fetched again on a second visit');
    console.log(`${post}: second visit ${again.filter((r) => !r.cached).length} requests, ${kb(again.reduce((s, r) => s + r.bytes, 0))} transferred`);
    assert.deepEqual(problems, []);
    await close();
  });
}
