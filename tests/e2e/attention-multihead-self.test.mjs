// Browser tests of the multi-head self-attention figure: every edge drawn is a weight of the core's
// multi-head layer run with the four constructed pattern heads (recomputed here from patternHead and
// multiHeadAttention), and equals the pattern head's own softmax; head toggles, token selection by
// tap and by keyboard, the shapes panel, the URL hash, rejected hashes, reduced motion and 375 px.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/attention-multihead-self/';
const TOKENS = ['[CLS]', 'The', 'animal', 'didn’t', 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired', '[SEP]'];
const N = 13, H = 4, D_MODEL = 64, DK = 16, MIN_DRAWN = 0.01;
const INPUTS = [
  { pattern: 'previous_token', numTokens: N },
  { pattern: 'head_word', heads: [0, 2, 4, 4, 4, 6, 4, 11, 11, 11, 11, 4, 12] },
  { pattern: 'coreference', numTokens: N, links: [[8, 2]], fallback: 12 },
  { pattern: 'broadcast', numTokens: N, separator: 12 },
];
let site;
let core;
let layer;
let patterns;
before(async () => {
  site = await startSite();
  core = await loadModule('classic');
  patterns = INPUTS.map((p) => core.patternHead({ ...p, features: 'sinusoidal', featureDim: DK, minWeight: 0.9 }));
  const wQ = new Float64Array(H * D_MODEL * DK), wK = new Float64Array(H * D_MODEL * DK);
  patterns.forEach((p, h) => { wQ.set(p.q.data, h * D_MODEL * DK); wK.set(p.k.data, h * D_MODEL * DK); });
  const x = new Float64Array(N * D_MODEL);
  for (let i = 0; i < N; i++) x[i * D_MODEL + i] = 1;
  layer = core.multiHeadAttention({ mode: 'self', x, xShape: [1, N, D_MODEL], numHeads: H, headDim: DK, valueDim: DK, wQ, wK, weightsSeed: 7 });
});
after(() => site.close());

const weight = (h, i, j) => layer.weights.data[(h * N + i) * N + j];

// The edges the figure must draw for the heads shown and the selected token.
function expectedEdges(heads, selected = null) {
  const edges = [];
  for (const h of heads) for (let i = 0; i < N; i++) {
    if (selected !== null && i !== selected) continue;
    for (let j = 0; j < N; j++) if (weight(h, i, j) >= MIN_DRAWN) edges.push(`${h} ${i} ${j} ${weight(h, i, j)}`);
  }
  return edges.sort();
}
const drawnEdges = async (page) => (await page.getByTestId('edges').locator('line').evaluateAll((ls) =>
  ls.map((l) => `${l.dataset.head} ${l.dataset.from} ${l.dataset.to} ${Number(l.dataset.weight)}`))).sort();

test('the layer\'s weights are the pattern heads\' softmax, and each row favours its target', () => {
  for (let h = 0; h < H; h++) for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) {
    assert.ok(Math.abs(weight(h, i, j) - patterns[h].weights.data[i * N + j]) < 1e-12, `head ${h} (${i}, ${j})`);
  }
  for (let h = 0; h < H; h++) for (let i = 0; i < N; i++) assert.ok(weight(h, i, patterns[h].targets[i]) >= 0.9 - 1e-12);
  assert.equal(patterns[2].targets[8], 2);  // it -> animal
});

test('opens on head 1; stepping shows each head alone and then all four, with the core\'s weights', async () => {
  const { page, problems, close } = await site.open(VIZ);
  assert.match(await page.getByTestId('caveat').textContent(), /Illustrative, constructed after Clark et al\. 2019 \(What Does BERT Look At\?\) — not learned/);
  assert.deepEqual(await settledHash(page), { step: '0', heads: '1111', token: 'none' });
  for (let step = 0; step <= H; step++) {
    const heads = step < H ? [step] : [0, 1, 2, 3];
    assert.deepEqual(await drawnEdges(page), expectedEdges(heads), `step ${step}`);
    const pressed = await page.locator('.head-toggle').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-pressed')));
    assert.deepEqual(pressed, [0, 1, 2, 3].map((h) => String(heads.includes(h))));
    if (step < H) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  const narration = await page.getByTestId('narration').textContent();
  assert.match(narration, /each head's output is \[13 × 16\]; concatenated they form \[13 × 64\], and W_O \[64 × 64\] projects that back to the model width, an output of \[13 × 64\]/);
  // The shapes panel reads the layer's tensors.
  assert.deepEqual(layer.headOutputs.shape, [1, 4, 13, 16]);
  assert.deepEqual(layer.output.shape, [1, 1, 13, 64]);
  assert.equal(await page.getByTestId('shape-heads').textContent(), '4 heads × [13 × 16]');
  assert.equal(await page.getByTestId('shape-concat').textContent(), 'concat [13 × 64]');
  assert.equal(await page.getByTestId('shape-wo').textContent(), 'W_O [64 × 64]');
  assert.equal(await page.getByTestId('shape-out').textContent(), 'output [13 × 64]');
  await screenshot(page, 'multihead-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the coreference step narrates it -> animal with the core\'s weight', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=2`);
  const text = await page.getByTestId('narration').textContent();
  assert.match(text, new RegExp(`“it” → “animal” \\(${weight(2, 8, 2).toFixed(2)}\\)`));
  assert.deepEqual(problems, []);
  await close();
});

test('toggling heads and selecting a token (tap and keyboard) isolate edges; the hash restores them', async () => {
  const { page, problems, close } = await site.open(VIZ);
  // On head 1's step, switching head 3 on shows heads 1 and 3 together.
  await page.locator('.head-toggle').nth(2).click();
  assert.deepEqual(await drawnEdges(page), expectedEdges([0, 2]));
  // Tap "it": only its outgoing attention.
  await page.getByTestId('from-8').click();
  assert.deepEqual(await drawnEdges(page), expectedEdges([0, 2], 8));
  assert.match(await page.getByTestId('narration').textContent(), new RegExp(`^From “it”: head 1 \\(previous token\\) → “because” \\(${weight(0, 8, 7).toFixed(2)}\\); head 3 \\(coreference\\) → “animal” \\(${weight(2, 8, 2).toFixed(2)}\\)`));
  assert.deepEqual(await settledHash(page), { step: '4', heads: '1010', token: '8' });
  // Tap it again: every token.
  await page.getByTestId('from-8').click();
  assert.deepEqual(await drawnEdges(page), expectedEdges([0, 2]));
  // The keyboard path: the select box.
  await page.locator('.token-pick select').focus();
  await page.locator('.token-pick select').selectOption({ label: 'animal' });
  assert.deepEqual(await drawnEdges(page), expectedEdges([0, 2], 2));
  await close();

  const restored = await site.open(`${VIZ}#step=4&heads=0101&token=11`);
  assert.deepEqual(await drawnEdges(restored.page), expectedEdges([1, 3], 11));
  assert.equal(await restored.page.locator('.token-pick select').inputValue(), '11');
  assert.deepEqual([...problems, ...restored.problems], []);
  await restored.close();
});

test('a hash the figure cannot use says so and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=2&heads=12&token=40`);
  await page.getByRole('alert').waitFor();
  const alert = await page.getByRole('alert').textContent();
  assert.match(alert, /heads must be 4 digits 0 or 1 \(one per head\), got "12"/);
  assert.match(alert, /token must be a whole number from 0 to 12 \(a position in the sentence\) or none, got "40"/);
  assert.deepEqual(await drawnEdges(page), expectedEdges([2]));
  await page.getByRole('button', { name: /Step forward/ }).click();
  assert.deepEqual(await drawnEdges(page), expectedEdges([3]));
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard steps and plays; reduced motion reaches the last step without transitions', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.locator('.viz-footer').waitFor();  // keys are heard once the figure has drawn
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '1');
  await page.keyboard.press('End');
  assert.equal((await settledHash(page)).step, '4');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="narration"]').textContent.startsWith('All heads together'), null, { timeout: 15000 });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.arcs .edges line')).transitionDuration), '0s');
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows; the legend and shapes fold away and unfold', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=4`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  assert.equal(await page.getByTestId('shape-concat').isVisible(), false);
  await screenshot(page, 'multihead-375');
  await page.getByRole('button', { name: 'Legend and shapes' }).click();
  assert.equal(await page.getByTestId('shape-concat').isVisible(), true);
  assert.equal(await horizontalOverflow(page), 0);
  await screenshot(page, 'multihead-375-shapes');
  assert.deepEqual(problems, []);
  await close();
});

test('the no-script summary gives the layer\'s shapes as the core computes them', () => {
  const html = readFileSync(new URL('../../site/viz/attention-multihead-self/index.html', import.meta.url), 'utf8');
  const [, h, n, dv] = layer.headOutputs.shape;
  assert.match(html, new RegExp(`is a ${n} × ${dv} matrix; the ${['', 'one', 'two', 'three', 'four'][h]} are concatenated into ${n} × ${h * dv} and projected by W_O \\(${h * dv} × ${layer.output.shape[3]}\\)`));
  for (const t of TOKENS.slice(1, -1)) assert.ok(html.replace(/\s+/g, ' ').includes(t), t);
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('attention-multihead-self')));
