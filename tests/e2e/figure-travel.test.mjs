// The mechanisms every embedded figure inherits from the viz shortcode (layouts/shortcodes/viz.html,
// assets/js/viz-frame.js) and the shared figure code (site/viz/shared/mount.tsx, hashState.ts,
// PlayControls.tsx): state that travels (deep links, hash changes, New tab, full screen), the
// keyboard from the post, a figure framed by another site, and the post without JavaScript.
// Checked on the tiling figure of the FlashAttention post and on every figure where it is cheap.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { screenshot, startSite, writtenHash } from './browser.mjs';

const POST = '/posts/flash-attention-deep-dive/';
const NAME = 'flash-attention-tiling';
const FRAME = `iframe[src*="visualizations/${NAME}/"]`;
let site;
before(async () => { site = await startSite(); });
after(() => site.close());

const stepCount = (frame) => frame.getByTestId('step-count');
// The framed figure's hash once written.
const frameHash = (page) => page.frame({ url: new RegExp(`/visualizations/${NAME}/`) }).evaluate(writtenHash);
// The post's scroll position once its smooth scrolling has stopped.
async function settledScroll(page) {
  let last = -1;
  for (;;) {
    const y = await page.evaluate(() => window.scrollY);
    if (y === last) return y;
    last = y;
    await page.waitForTimeout(250);
  }
}
const inView = (page, selector) => page.locator(selector).evaluate((el) => {
  const box = el.getBoundingClientRect();
  return box.top >= -1 && box.top < window.innerHeight / 2;
});

test('a post URL #fig-<name>:<state> opens the post scrolled to that figure, in that state', async () => {
  const { page, problems, close } = await site.open(`${POST}#fig-${NAME}:step=9`);
  const frame = page.frameLocator(FRAME);
  await stepCount(frame).filter({ hasText: /^step 10 \// }).waitFor();
  await settledScroll(page);
  assert.ok(await inView(page, `#fig-${NAME}`), 'the figure is scrolled into view');
  // Changing the post's hash later moves the figure too (no reload).
  await page.evaluate((name) => { location.hash = `#fig-${name}:step=4`; }, NAME);
  await stepCount(frame).filter({ hasText: /^step 5 \// }).waitFor();
  assert.deepEqual(problems, []);
  await close();
});

test('a standalone figure follows a change of its hash without a reload', async () => {
  const { page, problems, close } = await site.open(`/visualizations/${NAME}/#step=0`);
  await page.evaluate(() => { window.notReloaded = true; location.hash = '#step=6'; });
  await stepCount(page).filter({ hasText: /^step 7 \// }).waitFor();
  assert.equal(await page.evaluate(() => window.notReloaded), true);
  // Playing, then a new hash: the old run stops and does not write its steps into the new hash.
  await page.getByRole('button', { name: /^Play/ }).click();
  await page.evaluate(() => { location.hash = '#step=2'; });
  await page.waitForTimeout(800);
  assert.match(await page.evaluate(() => location.hash), /step=2(&|$)/);
  assert.deepEqual(problems, []);
  await close();
});

test('New tab and full screen carry the state the reader stepped to; the post URL follows it', async () => {
  const { page, problems, close } = await site.open(POST);
  await page.locator(FRAME).scrollIntoViewIfNeeded();
  const frame = page.frameLocator(FRAME);
  await frame.getByRole('button', { name: /^Step forward/ }).click();
  await frame.getByRole('button', { name: /^Step forward/ }).click();
  const state = (await frameHash(page)).slice(1);
  assert.match(state, /(^|&)step=2(&|$)/);
  const newTab = page.locator(`#fig-${NAME} [data-viz-newtab]`);
  // The post hears of the state by a message, handled in a task of its own.
  await page.waitForFunction(([name, state]) => decodeURIComponent(location.hash) === `#fig-${name}:${state}`, [NAME, state], { timeout: 5000 })
    .catch(() => {});
  assert.equal(await newTab.getAttribute('href'), `/visualizations/${NAME}/#${state}`);
  assert.equal(await page.evaluate(() => decodeURIComponent(location.hash)), `#fig-${NAME}:${state}`);
  const [tab] = await Promise.all([page.context().waitForEvent('page'), newTab.click()]);
  await stepCount(tab).filter({ hasText: /^step 3 \// }).waitFor();
  await tab.close();
  const fullscreen = page.locator(`#fig-${NAME} [data-viz-fullscreen]`);
  // Chromium has the Fullscreen API, so the button is shown.
  await fullscreen.click();
  await page.waitForFunction(() => document.fullscreenElement !== null);
  assert.match(await stepCount(frame).textContent(), /^step 3 \//);
  await page.evaluate(() => document.exitFullscreen());
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard: one Tab and Enter reach the first figure; its shortcuts work from any control; Space does not scroll the post', async () => {
  const { page, problems, close } = await site.open('/posts/online-softmax/');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to the first figure');
  await page.keyboard.press('Enter');
  const frame = page.frameLocator('iframe[src*="visualizations/online-softmax/"]');
  const current = frame.locator('.scrubber-stops [aria-current="step"]');
  await page.waitForFunction(() => document.activeElement?.tagName === 'IFRAME');
  await current.waitFor();  // the figure has started
  const scrolled = await settledScroll(page);
  await page.keyboard.press('ArrowRight');
  await current.filter({ hasText: 'Tile 1' }).waitFor();
  await page.keyboard.press(' ');   // plays
  await page.waitForTimeout(300);
  await page.keyboard.press(' ');   // pauses
  assert.equal(await page.evaluate(() => window.scrollY), scrolled, 'Space scrolled the post');
  await page.keyboard.press('Home');
  await current.filter({ hasText: /^Start|^Init|^0/ }).or(current.first()).waitFor();
  // With focus on a button of the figure, the arrows still step and Space plays/pauses instead of
  // pressing the button. (Focusing the button may scroll the post to show it: measured after.)
  await frame.getByRole('button', { name: /^Play/ }).focus();
  const atButton = await settledScroll(page);
  await page.keyboard.press(' ');
  await frame.getByRole('button', { name: /^Pause/ }).waitFor();
  await page.keyboard.press(' ');
  await frame.getByRole('button', { name: /^Play/ }).waitFor();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await current.filter({ hasText: 'Tile 1' }).waitFor();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  assert.notEqual(await current.textContent(), await frame.locator('.scrubber-stops > *').last().textContent());
  assert.equal(await page.evaluate(() => window.scrollY), atButton);
  assert.deepEqual(problems, []);
  await close();
});

test('a figure framed by another site shows its title and links back to its post; it reports its height', async () => {
  // Another site: a page on another port (another origin) that frames the figure.
  const host = createServer((_, res) => res.end(`<!doctype html><script>window.heights = []; addEventListener('message', (e) => { if (e.data?.type === 'viz:height') heights.push(e.data.height); });</script>
    <iframe src="${site.base}/visualizations/${NAME}/" title="embedded" style="width: 900px; height: 700px"></iframe>`));
  await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
  const { page, problems, close } = await site.open(null);
  await page.goto(`http://127.0.0.1:${host.address().port}/`);
  const frame = page.frameLocator('iframe');
  await frame.locator('h1').waitFor();
  assert.ok(await frame.locator('h1').evaluate((h) => h.getBoundingClientRect().width > 100), 'the title is visible');
  const source = frame.getByRole('link', { name: /^from Attention, Explained Live ↗$/ });
  await source.waitFor();
  assert.equal(await source.getAttribute('href'), `${site.base}${POST}`);
  assert.equal(await source.getAttribute('target'), '_blank');
  await page.waitForFunction(() => window.heights.length > 0);
  await stepCount(frame).waitFor();
  await screenshot(page, 'embedded-elsewhere');
  assert.deepEqual(problems, []);
  await close();
  host.close();
});

// Each figure page's own <noscript> text, as built.
const summary = (name) => readFileSync(`static/visualizations/${name}/index.html`, 'utf8')
  .match(/<noscript>\s*<p>([\s\S]*?)<\/p>/)[1].replace(/\s+/g, ' ').trim();

for (const width of [375, 1280]) {
  test(`without JavaScript at ${width} px each figure shows its text summary, and its poster only when legible`, async () => {
    const { page, close } = await site.open(null, { viewport: { width, height: 812 }, javaScriptEnabled: false });
    for (const post of [POST, '/posts/online-softmax/']) {
      await page.goto(site.base + post, { waitUntil: 'networkidle' });
      for (const figure of await page.locator('figure[data-viz-name]').all()) {
        const name = await figure.getAttribute('data-viz-name');
        const fallback = figure.locator('.viz__fallback');
        const text = (await fallback.locator('p').first().textContent()).replace(/\s+/g, ' ').trim();
        assert.equal(text, summary(name), `${post} ${name}`);
        assert.ok(await fallback.locator('p').first().isVisible(), `${name}: summary visible`);
        const box = await fallback.locator('p').first().boundingBox();
        assert.ok(box.width <= width, `${name}: summary fits`);
        const bar = await figure.locator('.viz__bar').boundingBox();
        assert.ok(box.y >= bar.y + bar.height, `${name}: summary below the title bar, not under it`);
        const poster = fallback.locator('img');
        if (await poster.count()) assert.equal(await poster.isVisible(), width >= 640, `${name}: poster shown only from 640 px`);
      }
      await screenshot(page, `noscript${post.replaceAll('/', '-')}${width}`);
    }
    await close();
  });
}
