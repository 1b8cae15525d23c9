// Browser tests of the flash-attention-tiling visualization: it shows the core's traces (checked
// against flashForwardTrace / standardAttentionTrace called here in Node), its controls change the
// numbers to the core's, the URL hash round-trips, an over-cap size shows the core's message, and
// it works with the keyboard, at 375 px and with reduced motion. Prints the p95 interaction time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { assertFoldsBehind, printInteractionTime, screenshot, settled, settledHash, slotValues, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';
import { fmt, fmtBytes } from './figure-format.mjs';

const VIZ = '/visualizations/flash-attention-tiling/';
const SWEEP = sweepFor('flash-attention-tiling');
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('flash'); });
after(() => site.close());

// The figure's example (site/viz/flash-attention-tiling/model.ts): one randomNormal draw with
// seed 3 laid out as Q | K | V, each N x d; fp16-sized elements (2 bytes) in the traffic model.
const SEED = 3;
function input({ n = 16, d = 4, br = 4, bc = 4, causal = false } = {}) {
  const size = n * d;
  const draw = core.randomNormal([1, 1, 1, 3 * size], SEED, 1);
  const shape = [1, 1, n, d];
  return {
    q: draw.slice(0, size), qShape: shape, k: draw.slice(size, 2 * size), kShape: shape, v: draw.slice(2 * size), vShape: shape,
    causal: causal ? 'top_left' : 'none', blockQ: br, blockK: bc, elementBytes: 2,
  };
}
const flashSteps = (cfg = {}, order = 'fa2') => core.flashForwardTrace({ ...input(cfg), loopOrder: order }).steps;
const standardSteps = (cfg = {}) => core.standardAttentionTrace(input(cfg)).steps;
const shown = (x) => fmt(x, 2);

const bytesOf = (page, cls) => page.locator(`.memory-bar.${cls}`).getAttribute('data-bytes').then(Number);
const stepFromUrl = async (page) => Number((await settledHash(page)).step);

async function expectCountersAt(page, steps, i, label) {
  assert.equal(await bytesOf(page, 'hbm-read'), steps[i].hbmBytesRead, `${label}: HBM read`);
  assert.equal(await bytesOf(page, 'hbm-written'), steps[i].hbmBytesWritten, `${label}: HBM written`);
  assert.equal(await bytesOf(page, 'sram'), steps[i].sramBytesHeld, `${label}: SRAM held`);
  assert.equal(Number(await page.getByTestId('flops').locator('[data-value]').getAttribute('data-value')), steps[i].flops, `${label}: FLOPs`);
}

// The step canvas's pixel 3/8 of the way into each block (inside a cell, clear of the lines),
// block by block as the pointer's rectangles list them (row by row).
const blockPixels = (page) => page.evaluate(() => {
  const canvas = document.querySelector('canvas.stage-step');
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;  // one read-back
  const k = canvas.width / canvas.clientWidth, left = parseFloat(canvas.style.left), top = parseFloat(canvas.style.top);
  const grid = document.querySelector('.stage-overlay .attn-grid').transform.baseVal[0].matrix;
  return [...document.querySelectorAll('.attn-blocks > rect')].map((rect) => {
    const x = grid.e + rect.x.baseVal.value + rect.width.baseVal.value * 0.375 - left, y = grid.f + rect.y.baseVal.value + rect.height.baseVal.value * 0.375 - top;
    const at = 4 * (Math.round(y * k) * canvas.width + Math.round(x * k));
    return [...data.subarray(at, at + 4)];
  });
});

const assertBytesText = (text, bytes, what) => assert.equal(text, fmtBytes(bytes), what);
const bytesMoved = (step, direction) => step.transfers.filter((t) => t.direction === direction).reduce((a, t) => a + t.bytes, 0);

// The whole-run line: each algorithm's total HBM traffic (the last step's reads plus writes) and their ratio.
async function expectWholeRun(page, std, flash, version) {
  const total = (steps) => steps.at(-1).hbmBytesRead + steps.at(-1).hbmBytesWritten;
  assertBytesText(await page.getByTestId('total-standard').textContent(), total(std), 'standard, whole run');
  assertBytesText(await page.getByTestId('total-flash').textContent(), total(flash), `FlashAttention-${version}, whole run`);
  const line = await page.locator('.whole-run').textContent();
  assert.match(line, new RegExp(`FlashAttention-${version} `));
  assert.equal(line.match(/\(([\d.]+)× less\)/)[1], fmt(total(std) / total(flash), 1));
}

test('a tile step shows the m, ℓ and counters of the core trace; the narration quotes them', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=8`);
  const steps = flashSteps();
  const s = steps[8];
  assert.equal(s.kind, 'tile');
  for (let r = s.rowBegin; r < s.rowEnd; r++) {
    assert.equal(await page.getByTestId(`m-${r + 1}`).textContent(), shown(s.m[r - s.rowBegin]), `m of row ${r + 1}`);
    assert.equal(await page.getByTestId(`l-${r + 1}`).textContent(), shown(s.l[r - s.rowBegin]), `ℓ of row ${r + 1}`);
  }
  await expectCountersAt(page, steps, 8, 'step 8');
  // The score matrix is painted on a canvas: each block's colour is its state in the trace at this
  // step (the tile's weights green, blocks done grey and see-through, the rest the panel's colour).
  const pixels = await blockPixels(page);
  assert.equal(pixels.length, 16);
  pixels.forEach(([r, g, b, a], k) => {
    const at = steps.findIndex((t) => t.kind === 'tile' && t.qBlock * 4 + t.kBlock === k);
    const what = `block ${k} (tile at step ${at}): rgba ${r} ${g} ${b} ${a}`;
    if (at === 8) assert.ok(g > r + 40 && g > b, `${what} shows the tile's weights`);
    else if (at < 8) assert.ok(a < 255 && Math.abs(r - g) < 20 && Math.abs(g - b) < 20, `${what} is done`);
    else assert.deepEqual([r, g, b, a], [20, 20, 20, 255], `${what} is not reached yet`);
  });
  assert.equal(await bytesOf(page, 'nn-bytes'), 0, 'FlashAttention stores no S or P');
  await expectWholeRun(page, standardSteps(), steps, 2);
  // The loop's counters are the step's blocks; the caption's bytes are the step's transfers.
  const blocks = (key) => Math.max(...steps.map((t) => t[key])) + 1;
  assert.deepEqual(await page.locator('.code .counter').allTextContents(), [`i = ${s.qBlock + 1} of ${blocks('qBlock')}`, `j = ${s.kBlock + 1} of ${blocks('kBlock')}`]);
  assertBytesText((await page.locator('.step-caption .moved').textContent()).match(/\(([^)]+)\)$/)[1], bytesMoved(s, 'read'), 'caption, bytes read');
  // The narration follows the row whose max rose most: its rescale factor and new max are the trace's.
  let row = -1;
  for (let i = 0; i < s.rescale.length; i++) if (s.rescale[i] > 0 && s.rescale[i] < 1 && (row < 0 || s.rescale[i] < s.rescale[row])) row = i;
  assert.ok(row >= 0, 'the default example rescales at step 8');
  const narration = await page.getByTestId('narration').textContent();
  assert.match(narration, new RegExp(`Q block ${s.qBlock + 1} × K block ${s.kBlock + 1}: running max of row ${s.rowBegin + row + 1} rises from .* to ${shown(s.m[row])}, previous output rescaled by ${shown(s.rescale[row])}`));
  await page.waitForTimeout(600);
  // The SRAM frames, once they have moved: one around the tile, one around its rows of Q and O, one
  // around its columns of Kᵀ and of Vᵀ, each 1.5 px outside what it frames.
  const frames = await page.locator('.stage .sram-frame').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
  const tile = await page.locator('.attn-blocks > rect.active').evaluate((e) => e.getBoundingClientRect().toJSON());
  const framing = (box) => frames.filter((f) => Math.abs(f.x - (box.x - 1.5)) < 0.6 && Math.abs(f.y - (box.y - 1.5)) < 0.6 &&
    Math.abs(f.width - (box.width + 3)) < 0.6 && Math.abs(f.height - (box.height + 3)) < 0.6);
  assert.equal(framing(tile).length, 1, `a frame around the tile ${JSON.stringify(tile)}: ${JSON.stringify(frames)}`);
  assert.equal(frames.length, 5, 'frames around the tile, Q, O, Kᵀ and Vᵀ');
  assert.equal(frames.filter((f) => Math.abs(f.y - tile.y) < 2 && Math.abs(f.height - tile.height - 3) < 1).length, 3, 'the tile, Q and O frames share the rows');
  assert.equal(frames.filter((f) => Math.abs(f.x - tile.x) < 2 && Math.abs(f.width - tile.width - 3) < 1).length, 3, 'the tile, Kᵀ and Vᵀ frames share the columns');
  await screenshot(page, 'flash-attention-tiling-desktop');
  // Step forward advances to the trace's next step.
  await page.getByRole('button', { name: /Step forward/ }).click();
  await expectCountersAt(page, steps, 9, 'step 9');
  assert.deepEqual(problems, []);
  await close();
});

test('a smaller N repaints into the canvases of the largest N shown, clipped to the stage, with the trace’s blocks', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=8`);
  const stores = () => page.evaluate(() => [...document.querySelectorAll('.stage > canvas')].map((c) => [c.width, c.height]));
  // The stage's layout box (offsetWidth/Height: its entry animation scales it for a moment).
  const stageBox = () => page.locator('.stage').evaluate((e) => [e.offsetWidth, e.offsetHeight]);
  const [small, box16] = [await stores(), await stageBox()];
  await page.locator('select[name="n"]').selectOption('32');
  await page.waitForFunction(() => document.querySelectorAll('.attn-blocks > rect').length === 64);
  const large = await stores();
  assert.ok(large.every(([w, h], i) => w >= small[i][0] && h > small[i][1]), `N = 32 needs larger stores: ${JSON.stringify([small, large])}`);
  await page.locator('select[name="n"]').selectOption('16');
  await page.waitForFunction(() => document.querySelectorAll('.attn-blocks > rect').length === 16);
  assert.deepEqual(await stores(), large, 'back at N = 16 the stores keep their size');
  assert.deepEqual(await stageBox(), box16, 'the stage takes the space of N = 16, not of its stores');
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.stage')).overflowX), 'clip');
  // The blocks drawn are N = 16's at its step 8, as when the figure opened there.
  const steps = flashSteps();
  await page.locator('.scrubber input').evaluate((el) => { el.value = '8'; el.dispatchEvent(new Event('input', { bubbles: true })); });
  const pixels = await blockPixels(page);
  pixels.forEach(([r, g, b, a], k) => {
    const at = steps.findIndex((t) => t.kind === 'tile' && t.qBlock * 4 + t.kBlock === k);
    if (at === 8) assert.ok(g > r + 40 && g > b, `block ${k} shows the tile's weights`);
    else if (at > 8) assert.deepEqual([r, g, b, a], [20, 20, 20, 255], `block ${k} is not reached yet`);
  });
  assert.deepEqual(problems, []);
  await close();
});

// The equations card of the mode shown (the other one is parked).
const equationCard = (page) => page.locator('.card.equations:not(.parked)');
// A row of O as the figure prints it (whole, since d = 4 needs no ellipsis).
const vec = (a) => `(${Array.from(a, shown).join(', ')})`;

test('the equations show the followed row’s online-softmax update with the trace’s values', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=8`);
  const steps = flashSteps();
  const s = steps[8];
  // The followed row is the one whose max rose most; before this tile it stood where the Q block's previous tile left it.
  const local = Array.from(s.rescale).reduce((best, x, i) => (x > 0 && x < 1 && (best < 0 || x < s.rescale[best]) ? i : best), -1);
  assert.ok(local >= 0, 'the default example rescales at step 8');
  const prev = steps.slice(0, 8).findLast((t) => t.kind === 'tile' && t.qBlock === s.qBlock);
  const cols = s.colEnd - s.colBegin;
  const scores = Array.from(s.scores.subarray(local * cols, (local + 1) * cols));
  const rowsum = Array.from(s.weights.subarray(local * cols, (local + 1) * cols)).reduce((a, x) => a + x, 0);
  // The figure's update formula holds for the trace's own numbers (float32 arithmetic).
  assert.ok(Math.abs(s.rescale[local] * prev.l[local] + rowsum - s.l[local]) <= 1e-5 * s.l[local], 'ℓ_new = α ℓ_old + Σ e^(S − m_new)');
  assert.equal(s.rescale[local].toFixed(6), Math.exp(prev.m[local] - s.m[local]).toFixed(6), 'α = e^(m_old − m_new)');
  assert.match(await equationCard(page).locator('h2').textContent(), new RegExp(`^Row ${s.rowBegin + local + 1} its running max rose`));
  assert.deepEqual(await slotValues(equationCard(page)), {
    mold: shown(prev.m[local]), tilemax: shown(Math.max(...scores)), mnew: shown(s.m[local]), alpha: shown(s.rescale[local]),
    lold: shown(prev.l[local]), rowsum: shown(rowsum), lnew: shown(s.l[local]), o: vec(s.output.subarray(local * 4, local * 4 + 4)),
  });

  // Before a row's first key, ℓ is 0: acc / ℓ is undefined, and the O slot says so.
  await page.keyboard.press('Home');
  assert.equal(steps[0].kind, 'load_q');
  assert.deepEqual(await slotValues(equationCard(page)), { mold: '−∞', tilemax: '—', mnew: '−∞', alpha: '—', lold: '0.00', rowsum: '—', lnew: '0.00', o: '—' });

  // Standard attention: a row's m and ℓ are unknown until its whole row of S is in HBM, then they are the trace's.
  await page.getByRole('radio', { name: 'Standard attention' }).click();
  const std = standardSteps();
  const softmax = std.findIndex((t) => t.kind === 'softmax_rows' && t.qBlock === 0);
  assert.deepEqual(await slotValues(equationCard(page)), { m: '?', l: '?' });
  await page.locator('.scrubber input').fill(String(softmax));
  assert.equal(await page.getByTestId('step-count').textContent(), `step ${softmax + 1} / ${std.length}`);
  assert.deepEqual(await slotValues(equationCard(page)), { m: shown(std[softmax].m[0]), l: shown(std[softmax].l[0]) });
  assert.deepEqual(problems, []);
  await close();
});

test('a formula holds still as its values change, and each value is drawn on its line, inside its formula, apart from the others', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=8`);
  // Per formula: its image's box and the boxes of its values, in slot order, relative to the card
  // (which the panels above it may move).
  const boxes = () => equationCard(page).evaluate((root) => [...root.querySelectorAll('.equation-body')].map((body) => {
    const card = root.getBoundingClientRect();
    const box = (el) => { const r = el.getBoundingClientRect(); return { x: r.x - card.x, y: r.y - card.y, right: r.right - card.x, bottom: r.bottom - card.y }; };
    return { image: box(body.querySelector('img')), values: [...body.querySelectorAll('[data-value-of]')].map((el) => ({ slot: el.dataset.valueOf, ...box(el) })) };
  }));
  const before = await boxes();
  // Home: the values become the shorter "−∞" and "—".
  await page.keyboard.press('Home');
  assert.equal((await slotValues(equationCard(page))).tilemax, '—');
  const after = await boxes();
  assert.equal(after.length, 4, 'the four equations of the online-softmax update');
  after.forEach((formula, i) => {
    // To a hundredth of a pixel: the boxes pass through floating-point transforms, whose rounding
    // can differ by a few millionths of a pixel between two layouts of the same geometry.
    for (const side of ['x', 'y', 'right', 'bottom']) {
      assert.ok(Math.abs(formula.image[side] - before[i].image[side]) <= 0.01, `formula ${i + 1} stays where it was (${side}: ${before[i].image[side]} -> ${formula.image[side]})`);
    }
    assert.ok(formula.values.length > 0);
    formula.values.forEach((v, k) => {
      const was = before[i].values[k];
      // Centred on its slot: a value's centre stays put whatever its width.
      assert.ok(Math.abs((v.x + v.right) / 2 - (was.x + was.right) / 2) <= 0.5, `value of ${v.slot} stays centred on its slot`);
      assert.ok(v.x >= formula.image.x - 0.5 && v.right <= formula.image.right + 0.5, `value of ${v.slot} inside its formula`);
      assert.ok(v.y >= formula.image.y - 0.5 && v.bottom <= formula.image.bottom + 0.5, `value of ${v.slot} within its formula's height`);
      const next = formula.values[k + 1];
      if (next && Math.abs(next.bottom - v.bottom) < 2) assert.ok(v.right <= next.x + 0.5, `value of ${v.slot} does not run into ${next.slot}'s`);
    });
  });
  assert.deepEqual(problems, []);
  await close();
});

test('controls: Standard mode stores S and P, causal skips blocks, FA1 order and block sizes follow the core', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`);
  // Standard attention: the N x N counter rises with the trace's hbmBytesStored.
  await page.getByRole('radio', { name: 'Standard attention' }).click();
  const std = standardSteps();
  assert.equal(await page.getByTestId('step-count').textContent(), `step 1 / ${std.length}`);
  for (let i = 0; i < 25; i++) await page.getByRole('button', { name: /Step forward/ }).click();
  assert.equal(await stepFromUrl(page), 25);
  assert.equal(await bytesOf(page, 'nn-bytes'), std[25].hbmBytesStored);
  assert.ok(std[25].hbmBytesStored > 0);
  await expectCountersAt(page, std, 25, 'standard step 25');
  assert.equal(std[25].kind, 'pv_tile');
  // The bar's note names the end total: S and P, 2 · N² two-byte values, as the core counts them.
  assert.equal(std.at(-1).hbmBytesStored, 2 * 16 * 16 * 2);
  assert.equal(await page.locator('.nn-bytes .memory-bar-note').textContent(), `S and P: 2 · N² values, ${fmtBytes(std.at(-1).hbmBytesStored)} for this head by the end.`);
  assertBytesText((await page.getByTestId('narration').textContent()).match(/read from HBM again \(([^)]+)\)/)[1], bytesMoved(std[25], 'read'), 'narration, bytes read');
  await page.waitForTimeout(600);
  await screenshot(page, 'flash-attention-tiling-standard');

  // Back to FlashAttention, causal: the skipped blocks are the trace's skip steps.
  await page.getByRole('radio', { name: 'FlashAttention', exact: true }).click();
  await page.getByLabel('Causal mask').check();
  const causal = flashSteps({ causal: true });
  assert.equal(await page.locator('.attn-cell.skipped').count(), causal.filter((s) => s.kind === 'skip').length);
  assert.equal(await page.getByTestId('step-count').textContent(), `step ${(await stepFromUrl(page)) + 1} / ${causal.length}`);
  await expectCountersAt(page, causal, await stepFromUrl(page), 'causal');

  // FA1 order with Br = 8: the step count and counters are those of the fa1 trace.
  await page.getByRole('radio', { name: /FA1/ }).click();
  await page.locator('select[name="br"]').selectOption('8');
  const fa1 = flashSteps({ causal: true, br: 8 }, 'fa1');
  assert.equal(await page.getByTestId('step-count').textContent(), `step ${(await stepFromUrl(page)) + 1} / ${fa1.length}`);
  await page.keyboard.press('End');
  await page.getByRole('button', { name: /Reset/ }).click();
  for (let i = 0; i < 4; i++) await page.getByRole('button', { name: /Step forward/ }).click();
  await expectCountersAt(page, fa1, 4, 'fa1 step 4');
  await expectWholeRun(page, standardSteps({ causal: true, br: 8 }), fa1, 1);
  const hash = await settledHash(page);
  assert.equal(hash.order, 'fa1');
  assert.equal(hash.br, '8');
  assert.equal(hash.causal, '1');
  assert.deepEqual(problems, []);
  await close();
});

test('the URL hash restores every setting and the step, and is written back unchanged', async () => {
  const hash = 'n=32&d=8&br=8&bc=4&order=fa1&mode=flash&causal=1&step=17';
  const { page, problems, close } = await site.open(`${VIZ}#${hash}`);
  assert.deepEqual(await settledHash(page), Object.fromEntries(new URLSearchParams(hash)));
  const steps = flashSteps({ n: 32, d: 8, br: 8, bc: 4, causal: true }, 'fa1');
  assert.equal(await page.getByTestId('step-count').textContent(), `step 18 / ${steps.length}`);
  await expectCountersAt(page, steps, 17, 'restored');
  assert.equal(await page.locator('select[name="n"]').inputValue(), '32');
  assert.equal(await page.locator('select[name="bc"]').inputValue(), '4');
  assert.equal(await page.getByLabel('Causal mask').isChecked(), true);
  assert.equal(await page.getByRole('radio', { name: /FA1/ }).getAttribute('aria-checked'), 'true');
  assert.deepEqual(problems, []);
  await close();
});

test('an over-cap size shows the core’s message and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#n=2000`);
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /sequence lengths up to 1024, got L = 2000/);
  await page.getByRole('button', { name: /Step forward/ }).click();
  await expectCountersAt(page, flashSteps(), 1, 'after the error');
  assert.deepEqual(problems, []);
  await close();
});

test('a large N is traced in a worker with blocks the figure can draw; the page keeps responding meanwhile', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`);
  // Only block sizes that keep the grid within 32 x 32 tiles are offered at the current N.
  const offered = (name) => page.locator(`select[name="${name}"] option`).evaluateAll((os) => os.map((o) => Number(o.value)));
  assert.deepEqual(await offered('br'), [1, 2, 4, 8, 16, 32, 64]);
  // N = 1,024 at 4 x 4 would be 65,536 tiles: the figure takes 32 x 32 blocks instead of refusing.
  await page.locator('select[name="n"]').selectOption('1024');
  assert.match(await page.getByTestId('computing').textContent(), /Computing the traces for N = 1024, d = 4, Br = 32, Bc = 32/);
  // While the worker computes, the last run is still there and still steps.
  await page.getByRole('button', { name: /Step forward/ }).click();
  await page.waitForFunction(() => !document.querySelector('[data-testid=computing]').textContent, null, { timeout: 60000 });
  const big = { n: 1024, d: 4, br: 32, bc: 32 };
  const steps = flashSteps(big);
  assert.match(await page.getByTestId('step-count').textContent(), new RegExp(` / ${steps.length}$`));
  assert.equal(await page.locator('select[name="br"]').inputValue(), '32');
  assert.deepEqual(await offered('br'), [32, 64]);
  const at = (await stepFromUrl(page));
  await expectCountersAt(page, steps, at, 'N = 1024 from the worker');
  assert.equal(await page.getByRole('alert').count(), 0, 'no error');
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard: arrows step, Home resets, Space plays; focus is visible', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await stepFromUrl(page), 2);
  await page.keyboard.press('Home');
  assert.equal(await stepFromUrl(page), 0);
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none');
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => Number(location.hash.match(/step=(\d+)/)[1]) >= 3, null, { timeout: 5000 });
  await page.keyboard.press(' ');  // pause
  assert.deepEqual(problems, []);
  await close();
});

test('a choice of settings is a radio group: one tab stop, arrow keys move the choice, not the step', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=3`);
  const focused = () => page.evaluate(() => document.activeElement.textContent);
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'FlashAttention');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'Standard attention');
  assert.equal(await page.getByRole('radio', { name: 'Standard attention' }).getAttribute('aria-checked'), 'true');
  assert.match(await page.getByTestId('step-count').textContent(), new RegExp(` / ${standardSteps().length}$`));
  assert.equal((await settledHash(page)).mode, 'standard');
  await page.keyboard.press('ArrowRight');  // past the last choice: back to the first
  assert.equal(await focused(), 'FlashAttention');
  assert.equal(await stepFromUrl(page), 3);
  // The unchosen radio is not a tab stop: Tab goes on to the causal checkbox.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.type), 'checkbox');
  assert.deepEqual(problems, []);
  await close();
});

test('clicking a block of the score matrix goes to the step that computes it; hovering names it', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`);
  const steps = flashSteps();
  const blocks = page.locator('.attn-blocks > rect');
  assert.equal(await blocks.count(), 16);
  // Block (Q 3, K 2) is the 10th of the 4 x 4 grid, row by row.
  const target = steps.findIndex((s) => s.kind === 'tile' && s.qBlock === 2 && s.kBlock === 1);
  await blocks.nth(2 * 4 + 1).hover();
  assert.equal(await page.locator('.attn-blocks > title').textContent(), 'Q block 3 × K block 2: click to go to its step');
  await blocks.nth(2 * 4 + 1).click();
  assert.equal(await page.getByTestId('step-count').textContent(), `step ${target + 1} / ${steps.length}`);
  await expectCountersAt(page, steps, target, 'clicked block');
  assert.deepEqual(problems, []);
  await close();
});

test('a counter glides from its old value to the trace\'s new one, changing its text node in place', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`);
  const steps = flashSteps();
  assert.notEqual(steps[0].flops, steps[1].flops);
  const counter = page.getByTestId('flops').locator('[data-value]');
  await settled(counter);
  const early = await page.evaluate(async () => {
    const span = document.querySelector('[data-testid="flops"] [data-value]');
    window.counterNode = span.firstChild;
    document.querySelector('button[aria-label^="Step forward"]').click();
    // Preact renders in a microtask; these run after it, before any frame can.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return { value: Number(span.dataset.value), text: span.textContent };
  });
  // Rendered, not yet painted: still the old value, not the new one ahead of the glide.
  assert.equal(early.value, steps[1].flops);
  assert.equal(early.text, steps[0].flops.toLocaleString('en-US'));
  assert.equal(await settled(counter), steps[1].flops.toLocaleString('en-US'));
  // The glide rewrote the one text node rather than replacing it on every frame.
  assert.equal(await counter.evaluate((span) => span.childNodes.length === 1 && span.firstChild === window.counterNode), true);
  assert.deepEqual(problems, []);
  await close();
});

test('a counter that changes again within one glide snaps to its value (a reader scrubbing)', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`);
  const steps = flashSteps();
  assert.notEqual(steps[1].flops, steps[2].flops);
  await settled(page.getByTestId('flops').locator('[data-value]'));
  const texts = await page.evaluate(async () => {
    const span = document.querySelector('[data-testid="flops"] [data-value]');
    const step = async () => {
      document.querySelector('button[aria-label^="Step forward"]').click();
      for (let i = 0; i < 5; i++) await Promise.resolve();
      return span.textContent;
    };
    return [await step(), await step()];
  });
  // The first change glides from the old value; the second, at once after it, shows its value.
  assert.deepEqual(texts, [steps[0].flops.toLocaleString('en-US'), steps[2].flops.toLocaleString('en-US')]);
  assert.deepEqual(problems, []);
  await close();
});

test('while the reader steps quickly, a value changing for the first time in a while snaps too (no glide, no flash)', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=3`);
  const steps = flashSteps();
  assert.equal(steps[4].hbmBytesWritten, steps[3].hbmBytesWritten, 'step 4 writes nothing');
  assert.ok(steps[5].hbmBytesWritten > steps[4].hbmBytesWritten, 'step 5 writes O');
  await settled(page.getByTestId('flops').locator('[data-value]'));
  const written = await page.evaluate(async () => {
    const step = async () => {
      document.querySelector('button[aria-label^="Step forward"]').click();
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    await step();
    await step();
    await new Promise((r) => setTimeout(r, 50));  // a flash starts in an effect after the frame
    const bar = document.querySelector('.memory-bar.hbm-written');
    return { transition: bar.querySelector('.memory-bar-fill').style.transition, flashes: bar.querySelector('.memory-bar-flash').getAnimations().length };
  });
  // Bytes written change at step 5 for the first time, but the figure changed one step before.
  assert.deepEqual(written, { transition: 'none', flashes: 0 });
  assert.deepEqual(problems, []);
  await close();
});

test('reduced motion: counters snap to their values, entry animations are off, and each step’s transfers still show', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=3`, { reducedMotion: 'reduce' });
  const steps = flashSteps();
  await page.getByRole('button', { name: /Step forward/ }).click();
  // No glide: the text is final right away.
  assert.equal(await page.getByTestId('flops').locator('[data-value]').textContent(), steps[4].flops.toLocaleString('en-US'));
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.viz')).animationName), 'none');
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.stage')).animationName), 'none');
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.stage .sram-frame')).transitionDuration), '0s', 'SRAM frames jump');
  // The step's HBM transfers are tinted for the step, with or without motion: the K and V blocks
  // step 4 reads, then the rows of O (and their m, ℓ columns: lse) that step 5 writes.
  const tints = () => page.locator('.stage .transfer').evaluateAll((els) => els.map((e) => [e.getAttribute('class'), Number(getComputedStyle(e).opacity)]));
  const expected = (s) => s.transfers.map((t) => [`transfer ${t.direction}`, 0.2]);
  assert.deepEqual(await tints(), expected(steps[4]), `step 4 tints its ${steps[4].transfers.length} transfers`);
  await page.getByRole('button', { name: /Step forward/ }).click();
  assert.deepEqual(await tints(), expected(steps[5]), `step 5 tints its ${steps[5].transfers.length} transfers`);
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows, panels stack and secondary controls fold behind a toggle', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=8`, { viewport: { width: 375, height: 812 } });
  await assertFoldsBehind(page, page.locator('select[name="br"]'), 'More controls');
  // The row table replaces the stage's m and ℓ columns; its values are the trace's.
  const s = flashSteps()[8];
  assert.equal(await settled(page.getByTestId(`m-${s.rowBegin + 1}`)), shown(s.m[0]));
  const rows = await page.locator('.row-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows, Array.from({ length: s.rowEnd - s.rowBegin }, (_, i) =>
    [String(s.rowBegin + i + 1), shown(s.m[i]), shown(s.l[i]), shown(s.rescale[i]), vec(s.output.subarray(4 * i, 4 * i + 4))]));
  await page.waitForTimeout(600);
  await screenshot(page, 'flash-attention-tiling-375');
  assert.deepEqual(problems, []);
  await close();
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () => printInteractionTime(site, SWEEP));

test('embedded in an iframe (as the viz shortcode does) it runs and hides its own title', async () => {
  const { page, problems, close } = await site.open('/');
  await page.evaluate((src) => {
    const frame = document.createElement('iframe');
    frame.src = src;
    frame.style.cssText = 'width: 960px; height: 540px';
    document.body.append(frame);
  }, VIZ + '#step=8');
  const frame = page.frameLocator('iframe[src*="flash-attention-tiling"]');
  await frame.locator('.stage').waitFor();
  assert.equal(await frame.locator('.viz-header h1').evaluate((h) => getComputedStyle(h).position), 'absolute');
  assert.equal(await frame.getByTestId('m-5').textContent(), shown(flashSteps()[8].m[0]));
  assert.deepEqual(problems, []);
  await close();
});
