// Browser tests of the online-softmax visualization, standalone and embedded: it renders the
// core's trace, steps, restores state from the URL hash, survives a bad seed, works with the
// keyboard, at 375 px and with reduced motion.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, screenshot, settled, settledHash, startSite } from './browser.mjs';

const VIZ = '/visualizations/online-softmax/';
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('flash'); });
after(() => site.close());

// The trace the figure must show, computed independently in Node from the same core and seed
// (the figure draws q, K, V as one randomNormal vector: 4 + 8*4 + 8*2 numbers).
function example(seed) {
  const d = core.randomNormal([1, 1, 1, 52], seed, 1);
  return { q: d.subarray(0, 4), qShape: [1, 1, 1, 4], k: d.slice(4, 36), kShape: [1, 1, 8, 4], v: d.slice(36), vShape: [1, 1, 8, 2] };
}
const expectedSteps = (seed) => core.flashForwardTrace({ ...example(seed), blockQ: 1, blockK: 4 }).steps;
const shown = (x) => (x === -Infinity ? '−∞' : x.toFixed(3).replace('-', '−'));
const stateM = (page) => page.locator('[data-testid="state-m"] [data-value]').first();
const stateL = (page) => page.locator('[data-testid="state-ℓ"] [data-value]').first();

test('each step shows the m and ℓ of the core trace; Step forward advances', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seed=19`);
  const steps = expectedSteps(19);
  for (let i = 0; i < steps.length; i++) {
    assert.equal(await settled(stateM(page)), shown(steps[i].m[0]), `m at step ${i}`);
    assert.equal(await settled(stateL(page)), shown(steps[i].l[0]), `ℓ at step ${i}`);
    if (i === 2) await screenshot(page, 'online-softmax-desktop');
    if (i < steps.length - 1) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  assert.equal((await settledHash(page)).step, '3');
  // The last step compares with the dense softmax computed by sdpa.
  const dense = core.sdpa(example(19));
  const cells = await page.getByTestId('comparison').locator('tbody tr').evaluateAll((rows) =>
    rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => td.textContent)));
  assert.equal(cells.length, 3);
  assert.equal(cells[0][1], dense.output[0].toFixed(5).replace('-', '−'));
  assert.equal(cells[2][1], dense.lse[0].toFixed(5).replace('-', '−'));
  assert.deepEqual(problems, []);
  await close();
});

test('the URL hash restores the step and the seed', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=2&seed=7`);
  const steps = expectedSteps(7);
  assert.equal(await page.getByTestId('seed').textContent(), '7');
  assert.equal(await settled(stateM(page)), shown(steps[2].m[0]));
  assert.equal(await page.locator('.scrubber-stops [aria-current="step"]').textContent(), 'Tile 2');
  // Scores of both tiles are visible at step 2; none is still "?".
  for (let j = 1; j <= 8; j++) assert.notEqual(await page.getByTestId(`score-${j}`).textContent(), '?');
  assert.deepEqual(problems, []);
  await close();
});

test('a seed the core rejects shows its message and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seed=banana`);
  await assert.doesNotReject(page.getByRole('alert').waitFor());
  assert.match(await page.getByRole('alert').textContent(), /seed: must be an integer in \[0, 4294967295\]/);
  await page.getByRole('button', { name: /Step forward/ }).click();
  assert.equal(await settled(stateM(page)), shown(expectedSteps(19)[1].m[0]));  // default example
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard: arrows step, Home resets, Space plays to the end; focus is visible', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seed=19`);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('Home');
  assert.equal((await settledHash(page)).step, '0');
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none');
  await page.keyboard.press('Escape');
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('+');  // 2x
  await page.keyboard.press('+');  // 4x
  await page.keyboard.press(' ');
  await page.waitForFunction(() => location.hash.includes('step=3'), null, { timeout: 5000 });
  assert.deepEqual(problems, []);
  await close();
});

test('reduced motion: values snap and the figure still steps', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seed=19`, { reducedMotion: 'reduce' });
  await page.getByRole('button', { name: /Step forward/ }).click();
  assert.equal(await settled(stateM(page)), shown(expectedSteps(19)[1].m[0]));
  const animation = await page.evaluate(() => getComputedStyle(document.querySelector('.viz')).animationName);
  assert.equal(animation, 'none');
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows horizontally', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=2&seed=19`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  await screenshot(page, 'online-softmax-375');
  assert.deepEqual(problems, []);
  await close();
});
