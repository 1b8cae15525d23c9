// Browser tests of Part 3, the FlashAttention post: it loads under the production
// Content-Security-Policy with no console error or failed request, each of its five figures starts
// from the core inside its iframe, each frame takes its figure's height up to the window's (and has
// it before the figure loads), nothing overflows at 375 px, reduced motion still works, the reading
// time stays within 30 minutes and the collapsed "how these numbers were computed" section opens.
// Screenshots at 1280 and 375 px go to test-artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { horizontalOverflow, screenshot, startSite } from './browser.mjs';

const POST = '/posts/flash-attention-deep-dive/';
const FIGURES = ['gpu-memory-hierarchy', 'online-softmax', 'flash-attention-tiling', 'fa1-vs-fa2-parallelism', 'fa3-warp-specialization'];
// The frame's height cap, from viz.css: the window's height less 4.5rem for the title bar.
const TITLE_BAR = 72;

let site;
before(async () => { site = await startSite(); });
after(() => site.close());

// One figure's iframe: its selector, its element and the document inside it.
const frameSelector = (name) => `iframe[src*="visualizations/${name}/"]`;
const iframeOf = (page, name) => page.locator(frameSelector(name));
const frameOf = (page, name) => page.frameLocator(frameSelector(name));

// Scrolls to each figure (frames load lazily) and waits until it has started and its frame has
// been sized to it. Returns, per figure, the frame's height and the figure's own.
async function startAll(page) {
  const sizes = {};
  for (const name of FIGURES) {
    const iframe = iframeOf(page, name);
    await iframe.scrollIntoViewIfNeeded();
    const frame = frameOf(page, name);
    await frame.locator('.viz-footer').waitFor();
    assert.equal(await frame.locator('.fatal').count(), 0, `${name} started`);
    await page.waitForFunction((selector) => document.querySelector(selector).parentElement
      .classList.contains('viz__frame--sized'), frameSelector(name));
    const figure = await frame.locator('#app').evaluate((app) => app.getBoundingClientRect().bottom + window.scrollY);
    sizes[name] = { frame: (await iframe.boundingBox()).height, figure };
  }
  return sizes;
}

test('at 1280 px the post loads, its five figures start and each frame fits its figure', async () => {
  const { page, problems, close } = await site.open(POST, { viewport: { width: 1280, height: 900 } });
  assert.equal(await page.locator('iframe').count(), FIGURES.length);
  const sizes = await startAll(page);
  const cap = 900 - TITLE_BAR;
  for (const [name, { frame, figure }] of Object.entries(sizes)) {
    assert.ok(Math.abs(frame - Math.min(Math.ceil(figure), cap)) <= 1, `${name}: frame ${frame} px for a ${figure} px figure (cap ${cap} px)`);
  }
  // Every figure is shown whole: none is taller than the window allows (figure-fit.test.mjs).
  for (const [name, { figure }] of Object.entries(sizes)) assert.ok(figure <= cap, `${name}: ${figure} px, cap ${cap} px`);
  assert.equal(await page.locator('.katex-error').count(), 0);
  await screenshot(page, 'flash-attention-post-1280');
  assert.deepEqual(problems, []);
  await close();
});

// Frames load lazily; until its figure reports its height, a frame takes the height measured for
// its width (site/data/frame_heights.json, `make frame-heights`). At a phone's, a tablet's and a
// desktop's width, that height is the figure's within the table's 2 px, so nothing moves on load.
// A stale table (a figure whose layout changed since it was measured) fails here.
for (const [width, height] of [[390, 844], [768, 1024], [1280, 900], [1600, 1000]]) {
  test(`at ${width} px each frame has its figure's height before the figure loads`, async () => {
    const { page, close } = await site.open(POST, { viewport: { width, height } });
    // First with the figures kept from loading: the frames hold the measured heights.
    await page.route('**/visualizations/**', (route) => route.abort());
    await page.reload({ waitUntil: 'networkidle' });
    const measured = {};
    for (const name of FIGURES) {
      assert.ok(await iframeOf(page, name).evaluate((f) => f.parentElement.dataset.vizHeights), `${name} has no measured heights`);
      measured[name] = (await iframeOf(page, name).boundingBox()).height;
    }
    await page.unroute('**/visualizations/**');
    await page.reload({ waitUntil: 'networkidle' });
    const sizes = await startAll(page);
    for (const name of FIGURES) {
      assert.ok(Math.abs(sizes[name].frame - measured[name]) <= 3,
        `${name}: the frame went from ${measured[name]} to ${sizes[name].frame} px when its figure loaded (run \`make frame-heights\`)`);
    }
    await close();
  });
}

test('at 375 px neither the post nor any of its figures overflows horizontally', async () => {
  const { page, problems, close } = await site.open(POST, { viewport: { width: 375, height: 812 } });
  await startAll(page);
  assert.equal(await horizontalOverflow(page), 0);
  for (const name of FIGURES) {
    const overflow = await frameOf(page, name).locator('html')
      .evaluate((html) => html.scrollWidth - html.clientWidth);
    assert.equal(overflow, 0, `${name} overflows its frame`);
  }
  await screenshot(page, 'flash-attention-post-375');
  assert.deepEqual(problems, []);
  await close();
});

test('with prefers-reduced-motion the post and its centerpiece still work', async () => {
  const { page, problems, close } = await site.open(POST, { reducedMotion: 'reduce' });
  await iframeOf(page, 'flash-attention-tiling').scrollIntoViewIfNeeded();
  const frame = frameOf(page, 'flash-attention-tiling');
  const count = frame.getByTestId('step-count');
  await count.waitFor();
  const before = await count.textContent();
  await frame.getByRole('button', { name: /Step forward/ }).click();
  await page.waitForFunction(([selector, b]) => document.querySelector(selector).contentDocument
    .querySelector('[data-testid="step-count"]').textContent !== b, [frameSelector('flash-attention-tiling'), before]);
  assert.deepEqual(problems, []);
  await close();
});

test('the reading time is at most 30 minutes, and the model bookkeeping opens on demand', async () => {
  const { page, problems, close } = await site.open(POST, { viewport: { width: 1280, height: 900 } });
  const minutes = Number((await page.getByText(/\d+ min read/).first().textContent()).match(/(\d+) min read/)[1]);
  assert.ok(minutes <= 30, `reading time ${minutes} min`);
  const details = page.locator('details.how-computed');
  const bounds = details.locator('[data-table="benchmarks"]');
  assert.equal(await details.evaluate((d) => d.open), false, 'collapsed by default');
  assert.equal(await bounds.isVisible(), false);
  await details.locator('summary').click();
  await bounds.waitFor({ state: 'visible' });
  await bounds.scrollIntoViewIfNeeded();
  await screenshot(page, 'flash-attention-post-how-computed-1280');
  assert.deepEqual(problems, []);
  await close();
});

test('the FlashAttention-2 section\'s link shows the tiling figure in the original loop order', async () => {
  const { page, problems, close } = await site.open(POST);
  const frame = frameOf(page, 'flash-attention-tiling');
  await page.getByRole('link', { name: 'See the original order in the tiling figure' }).click();
  await frame.getByRole('radio', { name: /FA1/ }).and(frame.locator('[aria-checked="true"]')).waitFor();
  const box = await iframeOf(page, 'flash-attention-tiling').boundingBox();
  assert.ok(box.y < 800 && box.y + box.height > 0, 'the figure is scrolled into view');
  assert.deepEqual(problems, []);
  await close();
});
