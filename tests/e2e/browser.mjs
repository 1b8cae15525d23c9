// Shared set-up of the browser tests: the built site (public/) served with production headers,
// Debian's Chromium driven by playwright-core, and a page wrapper that records every console
// error, page error and failed request so each test can assert there were none.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve-static.mjs';

export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
mkdirSync(ARTIFACTS, { recursive: true });

export async function startSite(dir = process.env.SITE_DIR ?? 'public') {
  const server = await serveStatic(dir, 0);
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await launchChromium().catch((e) => { server.close(); throw e; });
  return {
    base,
    // A fresh page with problem recording. `options` are Playwright context options
    // (viewport, reducedMotion, ...).
    async open(path, options = {}) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
      const page = await context.newPage();
      const problems = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
      page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
      await page.goto(base + path, { waitUntil: 'networkidle' });
      return { page, problems, close: () => context.close() };
    },
    async close() {
      await browser.close();
      server.close();
    },
  };
}

export async function screenshot(page, name) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

export const horizontalOverflow = (page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

// Interaction latency: clicks each element matched by `selector` in turn (`rounds` times over) and
// measures, in the page, from the click to the end of the re-render and layout it causes. Returns
// the samples' 95th percentile in milliseconds (printed by the caller; timings are reported, not
// asserted, since a loaded CI machine is slower than a reader's laptop).
export async function interactionP95(page, selector, rounds = 3) {
  const samples = await page.evaluate(async ([sel, n]) => {
    const out = [];
    const targets = [...document.querySelectorAll(sel)];
    for (let r = 0; r < n; r++) {
      for (const el of targets) {
        const t0 = performance.now();
        el.click();
        await new Promise((resolve) => setTimeout(resolve, 0));  // let the batched render run
        void document.body.offsetHeight;                           // force style and layout
        out.push(performance.now() - t0);
      }
    }
    return out;
  }, [selector, rounds]);
  samples.sort((a, b) => a - b);
  return samples[Math.min(samples.length - 1, Math.ceil(0.95 * samples.length) - 1)];
}
