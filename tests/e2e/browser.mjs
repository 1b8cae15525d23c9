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

// The figure's URL hash as an object, once it has caught up with the figure: figures write it
// HASH_DELAY_MS (150 ms, site/viz/shared/hashState.ts) after the last change.
export async function settledHash(page) {
  await page.waitForTimeout(350);
  return Object.fromEntries(new URLSearchParams(await page.evaluate(() => location.hash.slice(1))));
}

export const horizontalOverflow = (page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

// Interaction latency over a scripted sweep of a figure's controls. `sweep` runs in the page and
// receives `time(act, kind)`, which performs one interaction the way a reader's click arrives,
// between two frames, and records the main-thread time it costs until the result is on screen: the
// recompute (the handler, the re-render, which Preact runs after a microtask, and style and
// layout, forced right away so that no task in between can take them out of the count) plus the
// frame that shows it (animation callbacks, paint and commit, from the frame's start to the end of
// its task). The idle wait for the next frame is not counted, nor is rasterisation, which runs on
// other threads. The sweep starts once the page's entry animations (its finite ones) have
// finished, as a reader's first click would. `cold` is the first pass, which also pays one-off
// costs (JavaScript and WebAssembly functions compiled on first use, first results computed);
// `warm` is three more passes, the steady state of a reader working the controls (three, so that
// the 95th percentile rests on more than two or three samples). Returns both, in milliseconds,
// and `warmKinds`, the `kind` each warm interaction was timed under (e.g. 'step' or 'setting';
// 'interaction' when not given), so a summary can say which kind of interaction sets the p95.
// Timings are printed by the tests, not asserted: a loaded CI machine is slower than a reader's
// laptop.
export async function sweepTimes(page, sweep) {
  return page.evaluate(`(async () => {
    await Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished));
    // A message posted now is delivered after the current task (and any frame that task runs).
    const afterTask = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); });
    // The next frame's main-thread time: from its animation callbacks to the end of its paint and commit.
    const nextFrame = () => new Promise((r) => requestAnimationFrame(() => { const t0 = performance.now(); afterTask().then(() => r(performance.now() - t0)); }));
    const pass = async () => {
      const out = [];
      const time = async (act, kind = 'interaction') => {
        await nextFrame();
        const t0 = performance.now();
        act();
        await afterTask();
        document.body.getBoundingClientRect();
        const recompute = performance.now() - t0;
        out.push({ ms: recompute + await nextFrame(), kind });
      };
      await (${sweep.toString()})(time);
      return out;
    };
    const cold = await pass();
    const warm = [...await pass(), ...await pass(), ...await pass()];
    return { cold: cold.map((t) => t.ms), warm: warm.map((t) => t.ms), warmKinds: warm.map((t) => t.kind) };
  })()`);
}

// Intervals between animation frames while the figure plays (started by its Play button).
export async function playingFrameIntervals(page, frames = 90) {
  return page.evaluate(async (n) => {
    document.querySelector('button[aria-label^="Play"]').click();
    const gaps = [];
    let last = performance.now();
    await new Promise((done) => {
      const tick = (now) => { gaps.push(now - last); last = now; if (gaps.length < n) requestAnimationFrame(tick); else done(); };
      requestAnimationFrame(tick);
    });
    return gaps.slice(2);
  }, frames);
}

export const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];

// One line for the log: how many interactions, median and p95 of the warm passes, and the cold
// pass's; then, when the sweep timed more than one kind of interaction, the warm figures per kind.
export function timingSummary(name, { cold, warm, warmKinds }) {
  const stats = (xs) => `median ${percentile(xs, 0.5).toFixed(1)} ms, p95 ${percentile(xs, 0.95).toFixed(1)} ms`;
  const kinds = [...new Set(warmKinds)];
  const byKind = kinds.length < 2 ? '' : '; warm, by kind: ' + kinds.map((k) => {
    const xs = warm.filter((_, i) => warmKinds[i] === k);
    return `${k} (${xs.length}) ${stats(xs)}`;
  }).join(', ');
  return `${name}: ${warm.length} interactions, ${stats(warm)} (first pass: ${stats(cold)})${byKind}`;
}
