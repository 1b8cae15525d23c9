// Shared set-up of the browser tests: the built site (public/) served with production headers,
// Debian's Chromium driven by playwright-core, and a page wrapper that records every console
// error, page error and failed request so each test can assert there were none.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../../scripts/chromium.mjs';
import { floorSweep, percentile, sweepTimes, timingSummary } from '../../scripts/interaction-timing.mjs';
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
    // (viewport, reducedMotion, ...). With `path` null the page stays blank.
    async open(path, options = {}) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
      const page = await context.newPage();
      const problems = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
      page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
      if (path !== null) await page.goto(base + path, { waitUntil: 'networkidle' });
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

// Page code: resolves with the figure's URL hash once it has caught up with the figure. Figures
// write it HASH_DELAY_MS (150 ms, site/viz/shared/hashState.ts) after the last change, in the next
// idle period (at the latest 500 ms later), so an idle callback asked for after that lag, with a
// later deadline, runs after the write's. (Headless Chromium may have no idle period for seconds
// after a key press when nothing is animating.)
export const writtenHash = () => new Promise((r) => setTimeout(() => requestIdleCallback(() => r(location.hash), { timeout: 1000 }), 350));

// The figure's URL hash as an object, once it has caught up with the figure.
export async function settledHash(page) {
  return Object.fromEntries(new URLSearchParams((await page.evaluate(writtenHash)).slice(1)));
}

// A locator's text once it has settled: numbers glide to their new value, so the text is read
// every 100 ms until two readings agree (for up to 3 s) and that reading is returned.
export async function settled(locator) {
  let last;
  for (let i = 0; i < 30; i++) {
    const text = await locator.textContent();
    if (text === last) return text;
    last = text;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

// The live values of the EquationCallouts inside `container`, by slot name (a name used by several
// formulas shows the same value in each, so its first slot stands for all). A value is drawn in
// glyphs over its formula (shared/EquationCallout.tsx), its text in data-value.
export const slotValues = (container) => container.evaluate((root) => {
  const values = {};
  for (const el of root.querySelectorAll('[data-value-of]')) values[el.dataset.valueOf] ??= el.dataset.value;
  return values;
});

export const horizontalOverflow = (page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

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

// At phone width: nothing overflows horizontally, `control` (a locator) is folded away until the
// button named `more` is pressed, and unfolding it overflows nothing either.
export async function assertFoldsBehind(page, control, more) {
  assert.equal(await horizontalOverflow(page), 0);
  assert.equal(await control.isVisible(), false);
  await page.getByRole('button', { name: more }).click();
  assert.equal(await control.isVisible(), true);
  assert.equal(await horizontalOverflow(page), 0);
}

// The figure's interaction time over its scripted sweep (interaction-sweeps.mjs), and the frame
// interval while it plays, printed for the log: a number for the author, not a check, since a
// loaded test machine is slower than a reader's. Fails only on console errors or failed requests.
export async function printInteractionTime(site, sweep) {
  const { page, problems, close } = await site.open(sweep.path);
  const times = await sweepTimes(page, sweep.sweep);
  const floor = await sweepTimes(page, floorSweep);
  await page.keyboard.press('Home');
  const frames = await playingFrameIntervals(page);
  console.log(`${timingSummary(sweep.label, times)}; playing: p95 frame interval ${percentile(frames, 0.95).toFixed(1)} ms; ` +
    `floor (one text node changed): p95 ${percentile(floor.warm, 0.95).toFixed(1)} ms`);
  assert.deepEqual(problems, []);
  await close();
}
