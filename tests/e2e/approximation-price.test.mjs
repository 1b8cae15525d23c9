// Browser tests of the approximation-price figure: every point (FLOPs, error, top-1) and the
// readouts are the core's results for the same method on the same seeded inputs, computed here;
// the N = 256 run comes from the worker; the LRA table is labelled as published results with its
// source; controls, the URL hash, a rejected hash, the keyboard, reduced motion and 375 px.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/approximation-price/';
const D = 64;
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('classic'); });
after(() => site.close());

// The methods in the figure's order with the arguments it gives the core (model.ts).
const METHODS = [
  ['dense', 'sparseAttention', () => ({ pattern: { kind: 'dense' } })],
  ['longformer', 'sparseAttention', () => ({ pattern: { kind: 'longformer', oneSidedWindow: 16, global: 2 } })],
  ['bigbird', 'sparseAttention', (n, seed) => ({ pattern: { kind: 'bigbird', block: 16, oneSidedWindow: 1, global: 1, randomBlocks: 2, seed } })],
  ['lsh', 'lshAttention', (n, seed) => ({ numBuckets: Math.max(2, n / 32), chunkLength: 32, numRounds: 2, seed })],
  ['linformer', 'linformer', (n, seed) => ({ projectedLength: 32, seed })],
  ['performer', 'performer', (n, seed) => ({ numFeatures: 64, seed })],
  ['linear', 'linearAttention', () => ({})],
  ['synthesizer', 'synthesizer', (n, seed) => ({ kind: 'dense', hidden: 64, seed })],
  ['routing', 'routingAttention', (n, seed) => ({ numClusters: Math.round(Math.sqrt(n)), iterations: 4, seed })],
];

function expected({ n = 128, input = 'retrieval', seed = 1 } = {}) {
  const shape = [1, 1, n, D];
  let qkv, shared;
  if (input === 'random') {
    qkv = { q: core.randomNormal(shape, seed, 1), qShape: shape, k: core.randomNormal(shape, seed + 1, 1), kShape: shape,
      v: core.randomNormal(shape, seed + 2, 1), vShape: shape };
    shared = { ...qkv, k: qkv.q };
  } else {
    const r = core.retrievalInputs({ qShape: shape, noise: 0.1, sharpness: 2, seed });
    const pairs = core.retrievalInputs({ qShape: shape, kvLen: n / 2, noise: 0.1, sharpness: 12, seed });
    qkv = { q: r.q, qShape: shape, k: r.k, kShape: shape, v: r.v, vShape: shape };
    shared = { q: pairs.q, qShape: shape, k: pairs.q, kShape: shape, v: core.randomNormal(shape, seed + 2, 1), vShape: shape };
  }
  const points = METHODS.map(([id, fn, args]) => {
    const r = core[fn]({ ...(id === 'lsh' ? shared : qkv), ...args(n, seed) });
    return { id, flops: r.cost.flops, error: r.error.relativeFrobenius, top1: r.error.top1Preserved };
  });
  return Object.assign(points, { input });
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
// A configuration not computed before runs in the worker: wait (up to a minute) until the
// figure draws the points expected, then check them and the readouts.
async function arrives(page, e, step) {
  const want = JSON.stringify([...e.slice(0, step + 1)]);
  for (let i = 0; i < 600 && JSON.stringify(await drawnPoints(page)) !== want; i++) await page.waitForTimeout(100);
  await assertStep(page, e, step);
}
const drawnPoints = (page) => page.getByTestId('points').locator('.point').evaluateAll((gs) => gs.map((g) => ({
  id: g.dataset.method, flops: Number(g.dataset.flops), error: Number(g.dataset.error), top1: Number(g.dataset.top1) })));

async function assertStep(page, e, step) {
  assert.deepEqual(await drawnPoints(page), [...e.slice(0, step + 1)], `points up to step ${step}`);
  const p = e[step];
  assert.equal(await page.getByTestId('flops').textContent(), `${p.flops.toLocaleString('en-US')} (${(p.flops / e[0].flops).toFixed(2)}× exact)`);
  assert.equal(await page.getByTestId('error').textContent(), pct(p.error));
  // Top-1 is a retrieval measure: on random inputs exact attention has no single key to find.
  assert.equal(await page.getByTestId('top1').textContent(), e.input === 'retrieval' ? pct(p.top1) : '— (no single key to find)');
}

test('opens on exact attention; stepping adds each method at the core\'s cost and error', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const e = expected();
  assert.match(await page.getByTestId('narration').textContent(), /^Look for:/);
  for (let step = 0; step < METHODS.length; step++) {
    await assertStep(page, e, step);
    if (step < METHODS.length - 1) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  // The published table sits beside ours, labelled as theirs, with the current method's row marked.
  const lra = page.getByTestId('lra');
  assert.match(await lra.locator('figcaption').textContent(), /Theirs, not ours.*arXiv:2011\.04006, Table 1/);
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');  // Longformer
  assert.equal(await lra.locator('tr.current').getAttribute('data-model'), 'Longformer');
  assert.match(await page.getByTestId('narration').textContent(), /scored 56\.89% on the Retrieval task/);
  await screenshot(page, 'approximation-price-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the input toggle and a larger N (run in the worker) redraw from the core; the hash restores them', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#n=128&input=random&seed=2&step=8`);
  await arrives(page, expected({ input: 'random', seed: 2 }), 8);
  await page.locator('select[aria-label="Sequence length N"]').selectOption('256');
  await arrives(page, expected({ n: 256, input: 'random', seed: 2 }), 8);
  await page.locator('[role="radiogroup"][aria-label="Input"] [data-value="retrieval"]').click();
  await arrives(page, expected({ n: 256, input: 'retrieval', seed: 2 }), 8);
  assert.deepEqual(await settledHash(page), { n: '256', input: 'retrieval', seed: '2', step: '8' });
  assert.deepEqual(problems, []);
  await close();
});

test('a rejected hash says why in plain words and the figure keeps working', async () => {
  for (const [hash, message] of [['n=100', /n must be one of 128, 256, 512, got 100/], ['input=sorted', /input must be 'random' or 'retrieval', got 'sorted'/],
    ['step=12', /step must be a whole number from 0 to 8, got 12/]]) {
    const { page, problems, close } = await site.open(`${VIZ}#${hash}`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), message);
    await page.getByRole('button', { name: /Step forward/ }).click();
    await assertStep(page, expected(), 1);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('keyboard steps and plays; reduced motion reaches the last method', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('End');
  assert.equal((await settledHash(page)).step, '8');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="points"] .point').length === 9, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.chart .point')).transitionDuration), '0s');
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows; the LRA table folds behind a button and opens over the figure', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=8`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  assert.equal(await page.getByTestId('lra').isVisible(), false);
  await page.getByRole('button', { name: 'Published LRA results' }).click();
  assert.equal(await page.getByTestId('lra').isVisible(), true);
  assert.equal(await horizontalOverflow(page), 0);
  await page.getByRole('button', { name: 'Hide LRA results' }).click();
  await assertStep(page, expected(), 8);
  await screenshot(page, 'approximation-price-375');
  assert.deepEqual(problems, []);
  await close();
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('approximation-price')));
