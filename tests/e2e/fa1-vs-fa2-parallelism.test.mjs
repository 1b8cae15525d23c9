// Browser tests of the fa1-vs-fa2-parallelism visualization: thread blocks, waves, SM utilisation
// and predicted times equal the core's work-list model (computed here in Node from the same
// module), the batch slider moves them, the URL hash restores the launch and the clock, a launch
// the core rejects shows its message, keyboard, reduced motion, 375 px; prints the p95 time of a
// scripted sweep of the controls.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { assertFoldsBehind, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/fa1-vs-fa2-parallelism/';
const SWEEP = sweepFor('fa1-vs-fa2-parallelism');
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('flash'); });
after(() => site.close());

function expected({ gpu = 'a100-sxm-80gb', batch = 1, heads = 16, n = 8192, d = 128, causal = false } = {}) {
  const c = causal ? 'top_left' : 'none';
  const launch = { gpu, batch, heads, qLen: n, blockQ: 128, blockK: 128, causal: c };
  const roofline = core.predictAttention({ gpu, batch, heads, qLen: n, headDim: d, causal: c, algorithm: 'flash', precision: 'fp16' });
  const side = (partition) => {
    const w = core.gpuWorkPartition({ ...launch, partition });
    return { blocks: w.blocks.sm.length, waves: w.waves.length, util: w.smUtilization, timeS: roofline.timeS / w.smUtilization, smCount: w.smCount };
  };
  return { fa1: side('fa1'), fa2: side('fa2') };
}
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.abs(b), `${what}: ${a} != ${b}`);

async function checkSides(page, exp) {
  for (const key of ['fa1', 'fa2']) {
    assert.equal(await page.getByTestId(`${key}-blocks`).textContent(), exp[key].blocks.toLocaleString('en-US'), `${key} blocks`);
    assert.equal(await page.getByTestId(`${key}-waves`).textContent(), exp[key].waves.toLocaleString('en-US'), `${key} waves`);
    near(Number(await page.locator(`.${key}-util`).getAttribute('data-value')), 100 * exp[key].util, `${key} utilisation`);
    near(Number(await page.getByTestId(`${key}-time`).getAttribute('data-seconds')), exp[key].timeS, `${key} time`);
  }
}

test('batch 1: FA1 starves the SMs, FA2 fills them; the batch slider converges them (numbers from the core)', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const one = expected();
  await checkSides(page, one);
  assert.ok(one.fa1.util < 0.2 && one.fa2.util > 0.9, 'the default launch shows the gap');
  // Opens mid-launch: FA2 has every SM busy, FA1 one per (batch, head).
  assert.equal(await page.getByTestId('fa2-busy').textContent(), `${one.fa2.smCount} of ${one.fa2.smCount}`);
  assert.equal(await page.getByTestId('fa1-busy').textContent(), `16 of ${one.fa1.smCount}`);
  assert.match(await page.getByTestId('narration').textContent(), /FA1 has 16 SMs busy and 92 idle/);
  await screenshot(page, 'fa1-vs-fa2-parallelism-1280');
  await page.getByRole('slider', { name: 'Batch size' }).fill('64');
  const many = expected({ batch: 64 });
  await checkSides(page, many);
  assert.ok(Math.abs(many.fa1.util - many.fa2.util) < 0.06, 'large batch converges');
  assert.equal((await settledHash(page)).batch, '64');
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('End');
  assert.match(await page.getByTestId('narration').textContent(), /Done\. FA1: 1,024 blocks/);
  await screenshot(page, 'fa1-vs-fa2-parallelism-batch64-1280');
  assert.deepEqual(problems, []);
  await close();
});

test('the URL hash restores GPU, batch, heads, N, d, causal and the step', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#gpu=h100-sxm&batch=4&heads=8&n=4096&d=64&causal=1&step=2`);
  const exp = expected({ gpu: 'h100-sxm', batch: 4, heads: 8, n: 4096, d: 64, causal: true });
  await checkSides(page, exp);
  assert.equal(exp.fa1.smCount, 132);
  assert.equal(await page.getByTestId('batch').textContent(), '4');
  assert.deepEqual(await settledHash(page), { gpu: 'h100-sxm', batch: '4', heads: '8', n: '4096', d: '64', causal: '1', step: '2' });
  assert.equal(await page.getByRole('checkbox', { name: 'causal' }).isChecked(), true);
  assert.deepEqual(problems, []);
  await close();
});

test('a launch the core rejects shows its message and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#batch=64&heads=64`);
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /thread blocks exceed the in-browser limit of 65536/);
  await page.getByRole('slider', { name: 'Batch size' }).fill('2');
  assert.equal(await page.getByRole('alert').count(), 0);
  await checkSides(page, expected({ batch: 2 }));
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard: Home, arrows, End and Space step through the waves; focus is visible', async () => {
  const { page, problems, close } = await site.open(VIZ);
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('Home');
  assert.equal((await settledHash(page)).step, '0');
  assert.match(await page.getByTestId('narration').textContent(), /Press Play/);
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '1');
  // After FA2's first wave (64 tiles of 128 x 128 at N = 8192) the second wave has taken over.
  assert.match(await page.getByTestId('narration').textContent(), /^Tile 64 of 4,096: FA2 has 108 SMs busy/);
  await page.keyboard.press('End');
  assert.equal((await settledHash(page)).step, '11');  // 10 FA2 waves and 1 FA1 wave: 11 ends after 0
  await page.keyboard.press('Home');
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => Number(new URLSearchParams(location.hash.slice(1)).get('step')) >= 5, null, { timeout: 5000 });
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none');
  assert.deepEqual(problems, []);
  await close();
});

test('reduced motion: no entry animation, Play jumps from wave to wave', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`, { reducedMotion: 'reduce' });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.panel')).animationName), 'none');
  await page.getByRole('button', { name: /^Play/ }).click();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('step') === '1', null, { timeout: 4000 });
  assert.match(await page.getByTestId('narration').textContent(), /^Tile 64 of/);
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows and secondary controls fold', async () => {
  const { page, problems, close } = await site.open(VIZ, { viewport: { width: 375, height: 812 } });
  await assertFoldsBehind(page, page.getByRole('combobox', { name: 'Heads' }), 'More controls');
  await screenshot(page, 'fa1-vs-fa2-parallelism-375');
  assert.deepEqual(problems, []);
  await close();
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () => printInteractionTime(site, SWEEP));
