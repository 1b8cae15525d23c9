// Browser tests of Part 4, the serving post: it loads under the production Content-Security-Policy
// with no console error or failed request, each figure starts from the core inside its iframe,
// nothing overflows at 375 px, and the "stack
// them" diagram is legible on a phone: one column, every card inside the screen, text of at least
// 12 px. Screenshots at 1280 and 375 px go to test-artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { horizontalOverflow, screenshot, startSite } from './browser.mjs';

const POST = '/posts/attention-inference-optimizations/';

let site;
before(async () => { site = await startSite(); });
after(() => site.close());

// Scrolls to every figure (frames load lazily) and waits until each has started.
async function startFigures(page) {
  const names = await page.locator('figure.viz[data-viz-name]')
    .evaluateAll((figures) => figures.map((f) => f.dataset.vizName));
  assert.ok(names.length >= 1, 'no figure in the post');
  for (const name of names) {
    const selector = `iframe[src*="visualizations/${name}/"]`;
    await page.locator(selector).scrollIntoViewIfNeeded();
    const frame = page.frameLocator(selector);
    await frame.locator('.viz-footer').waitFor();
    assert.equal(await frame.locator('.fatal').count(), 0, `${name} started`);
  }
  return names;
}

test('at 1280 px the post loads and its five figures start', async () => {
  const { page, problems, close } = await site.open(POST, { viewport: { width: 1280, height: 900 } });
  assert.equal((await startFigures(page)).length, 5, 'five figures');
  assert.equal(await page.locator('.katex-error').count(), 0);
  await page.locator('.serving-stack').scrollIntoViewIfNeeded();
  await screenshot(page, 'inference-post-stack-1280');
  assert.deepEqual(problems, []);
  await close();
});

// The ring figure opens on the table's worked example: its ring total is the 50 GB/s row's.
test('the ring figure opens on the ring table\'s 50 GB/s row', async () => {
  const { page, problems, close } = await site.open(POST, { viewport: { width: 1280, height: 900 } });
  // Cells as the table shows them on a wide screen: without the labels a phone's stacked rows show.
  const ringTotal = await page.locator('#table-ring tbody').evaluate((body) => {
    const text = (cell) => [...cell.childNodes].filter((n) => !n.classList?.contains('stack-label')).map((n) => n.textContent).join('').trim();
    const row = [...body.rows].find((r) => text(r.cells[0]) === '50 GB/s');
    return text(row.cells[5]);
  });
  const selector = 'iframe[src*="visualizations/ring-attention-rotation/"]';
  await page.locator(selector).scrollIntoViewIfNeeded();
  const total = page.frameLocator(selector).getByTestId('total');
  await total.waitFor();
  // Both in ms, the figure to three significant figures, the table to 0.1 ms.
  const figureMs = Number(/^([\d.]+) ms vs/.exec(await total.textContent())[1]), tableMs = Number(/^([\d.]+) ms$/.exec(ringTotal)[1]);
  assert.ok(Math.abs(figureMs - tableMs) <= 0.5, `figure ${figureMs} ms, table ${tableMs} ms`);
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows and the stack diagram reads as one column of whole cards', async () => {
  const { page, problems, close } = await site.open(POST, { viewport: { width: 375, height: 812 } });
  await startFigures(page);
  assert.equal(await horizontalOverflow(page), 0);
  const stack = page.locator('.serving-stack');
  await stack.scrollIntoViewIfNeeded();
  const cards = await stack.locator('.serving-stack__layer').evaluateAll((layers) => layers.map((layer) => {
    const box = layer.getBoundingClientRect();
    const sizes = [...layer.querySelectorAll('p')].map((p) => parseFloat(getComputedStyle(p).fontSize));
    return { left: box.left, right: box.right, width: box.width, smallest: Math.min(...sizes), overflows: layer.scrollWidth > layer.clientWidth };
  }));
  assert.ok(cards.length >= 4);
  for (const [i, card] of cards.entries()) {
    assert.ok(card.left >= 0 && card.right <= 375, `card ${i} spans ${card.left}–${card.right} px`);
    assert.ok(card.smallest >= 12, `card ${i} has ${card.smallest} px text`);
    assert.equal(card.overflows, false, `card ${i} overflows`);
  }
  // One column: every card as wide as the first.
  assert.ok(cards.every((card) => Math.abs(card.width - cards[0].width) < 1));
  await screenshot(page, 'inference-post-stack-375');
  assert.deepEqual(problems, []);
  await close();
});
