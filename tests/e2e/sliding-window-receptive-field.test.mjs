// Browser tests of the sliding-window receptive-field figure: every layer's cells, the readouts and
// the narration are the core's influence map and closed forms; sliders, the URL hash, a rejected
// hash, the keyboard, reduced motion and a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/sliding-window-receptive-field/';
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('inference'); });
after(() => site.close());

// What the figure must draw for (layers, window): the input row, then the core's map per layer,
// over the reach and one window past it.
function expected(layers, window) {
  const field = core.slidingWindowReceptiveField({ layers, window });
  const seqLen = field.reachTokens + window + 1;
  const input = new Uint8Array(seqLen);
  input[0] = 1;
  const reached = [input, ...core.slidingWindowInfluence({ layers, window, seqLen, source: 0 })];
  return { reached, frontier: reached.map((r) => r.lastIndexOf(1)), field };
}

// The cell states of layer l as drawn: the row's states, and one circle per state in the path of
// that state (a circle is two arcs).
async function drawnStates(page, l) {
  const row = page.getByTestId(`layer-${l}`);
  const states = (await row.getAttribute('data-states')).split(' ');
  const arcs = await row.locator('path.cells').evaluateAll((ps) => Object.fromEntries(ps.map((p) => [p.classList[1], (p.getAttribute('d').match(/a/g) ?? []).length])));
  for (const state of ['pending', 'unreached', 'reached', 'new']) {
    assert.equal(arcs[state] / 2, states.filter((s) => s === state).length, `layer ${l}: circles drawn ${state}`);
  }
  return states;
}

function expectedStates(e, l, step) {
  return Array.from(e.reached[l], (on, p) => {
    if (l > step) return 'pending';
    if (!on) return 'unreached';
    return l === step && (l === 0 || !e.reached[l - 1][p]) ? 'new' : 'reached';
  });
}

async function assertStep(page, e, layers, window, step) {
  for (let l = 0; l <= layers; l++) assert.deepEqual(await drawnStates(page, l), expectedStates(e, l, step), `layer ${l} at step ${step}`);
  assert.equal(await page.getByTestId('reach').textContent(), `${e.frontier[step]} tokens`);
  // The map agrees with the closed form layer by layer: W - 1 positions per layer.
  assert.equal(e.frontier[step], step * (window - 1));
  const narration = await page.getByTestId('narration').textContent();
  if (step > 0) {
    assert.match(narration, new RegExp(`^Layer ${step}: position ${e.frontier[step]} attends to positions ${e.frontier[step] - window + 1}–${e.frontier[step]} .* the oldest of them, ${e.frontier[step - 1]}, already carries position 0`));
    // The window drawn from the frontier down to the layer below: W edges.
    assert.equal(await page.getByTestId('window-edges').locator('line').count(), Math.min(window, e.frontier[step] + 1));
  }
}

test('opens at the input with the default stack; every layer is the core\'s map; Step forward advances', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const e = expected(4, 4);
  assert.equal((await settledHash(page)).step, '0');
  for (let step = 0; step <= 4; step++) {
    await assertStep(page, e, 4, 4, step);
    if (step < 4) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  assert.equal(await page.getByTestId('reach-mask').textContent(), `4 × 3 = ${e.field.reachTokens}`);
  assert.equal(await page.getByTestId('reach-paper').textContent(), `4 × 4 = ${e.field.paperReachTokens}`);
  // Mistral 7B at full scale, from its preset.
  const kv = core.kvCacheBytes({ model: 'mistral-7b', contextTokens: 1 });
  const big = core.slidingWindowReceptiveField({ layers: kv.layers, window: kv.slidingWindow });
  const fmt = (n) => n.toLocaleString('en-US');
  assert.match(await page.getByTestId('why').textContent(),
    new RegExp(`${kv.layers} layers, W = ${fmt(kv.slidingWindow)}\\) that is ${fmt(big.reachTokens)} versus ${fmt(big.paperReachTokens)} tokens`));
  assert.equal((await settledHash(page)).step, '4');
  await screenshot(page, 'sliding-window-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the sliders rebuild the stack from the core and the hash restores it', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#layers=7&window=6&step=5`);
  let e = expected(7, 6);
  await assertStep(page, e, 7, 6, 5);
  assert.equal(await page.getByTestId('reach-mask').textContent(), `7 × 5 = ${e.field.reachTokens}`);
  // Moving a slider opens the new stack at its input.
  await page.locator('label.slider', { hasText: 'Window W' }).locator('input').fill('2');
  e = expected(7, 2);
  await assertStep(page, e, 7, 2, 0);
  await page.evaluate(() => document.activeElement.blur());  // End on the focused slider would move the slider
  await page.keyboard.press('End');
  await assertStep(page, e, 7, 2, 7);
  assert.deepEqual(await settledHash(page), { layers: '7', window: '2', step: '7' });
  assert.deepEqual(problems, []);
  await close();
});

test('a hash outside the sliders\' range says so and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#layers=4&window=99`);
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /window must be a whole number from 2 to 6, got 99/);
  await page.getByRole('button', { name: /Step forward/ }).click();
  await assertStep(page, expected(4, 4), 4, 4, 1);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard steps and plays; reduced motion still reaches the last layer', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="reach"]').textContent === '12 tokens', null, { timeout: 15000 });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.stack .cells.new')).animationName), 'none');
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows and the stack, readouts and narration fit', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#layers=8&window=6&step=8`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  await screenshot(page, 'sliding-window-375');
  assert.deepEqual(problems, []);
  await close();
});

test('the no-script summary states the default stack\'s reach as the core computes it', () => {
  const html = readFileSync(new URL('../../site/viz/sliding-window-receptive-field/index.html', import.meta.url), 'utf8');
  const { field } = expected(4, 4);
  assert.match(html, new RegExp(`with 4 layers and a window of 4 it reaches position ${field.reachTokens}\\.`));
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('sliding-window-receptive-field')));
