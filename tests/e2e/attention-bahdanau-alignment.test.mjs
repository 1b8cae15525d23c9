// Browser tests of the Bahdanau alignment figure: the drawn heatmap cells, score bars and vector
// strips are the classic module's translateSentence values for the committed RNNsearch weights;
// the sentence choice, the reader's sentence (and its out-of-vocabulary message), the URL hash, a
// rejected hash, the keyboard, reduced motion and a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, slotValues, startSite } from './browser.mjs';
import { fmt } from './figure-format.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/attention-bahdanau-alignment/';
const MODEL = new Uint8Array(readFileSync(new URL('../../static/models/bahdanau-rnnsearch.bin', import.meta.url)));
const CANONICAL = 'the agreement on the european economic area was signed in august 1992';
const SHORT = 'the european commission signed the treaty';
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('classic'); });
after(() => site.close());

const translate = (sentence) => core.translateSentence({ model: MODEL, sentence });
const row = (m, i) => Array.from(m.data.subarray(i * m.shape[1], (i + 1) * m.shape[1]));
const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

// Everything step `step` draws, read from the page.
const drawn = (page) => page.evaluate(() => {
  const q = (id) => document.querySelector(`[data-testid="${id}"]`);
  // The cells are painted on a canvas, which lists the weights of the rows it draws.
  const alphas = JSON.parse(q('heat-cells').dataset.alphas);
  const rows = [...q('heatmap').querySelectorAll('[data-testid^="row-"]')].map((g, i) => ({
    state: g.dataset.state,
    label: g.querySelector('text').textContent,
    alphas: alphas[i] ?? [],
  }));
  // What the canvas holds at each cell's centre of the last drawn row and of the next (opacity 0 to 1).
  // (Read from a copy: Chromium warns when one canvas is read back repeatedly.)
  const heat = q('heat-cells'), k = heat.width / parseFloat(heat.style.width);
  const copy = Object.assign(document.createElement('canvas'), { width: heat.width, height: heat.height }).getContext('2d');
  copy.drawImage(heat, 0, 0);
  const pixels = copy.getImageData(0, 0, heat.width, heat.height).data;
  const { x, y, cellW, cellH } = JSON.parse(heat.dataset.grid);
  const paintedRow = (i) => (i < rows.length ? (alphas[0] ?? []).map((_, j) =>
    pixels[4 * (Math.floor((y + (i + 0.5) * cellH) * k) * heat.width + Math.floor((x + (j + 0.5) * cellW) * k)) + 3] / 255) : []);
  const painted = { last: paintedRow(alphas.length - 1), next: paintedRow(alphas.length) };
  // The bars are painted on a canvas, which lists what it draws (tops and heights in the drawing's coordinates).
  const bars = JSON.parse(q('score-bars-canvas').dataset.bars);
  const baseline = Number(q('score-bars').querySelector('line').getAttribute('y1'));
  // The strips' cells are painted on one canvas, which lists the values it draws.
  const strips = JSON.parse(q('strip-cells').dataset.strips);
  const words = [...q('source-words').querySelectorAll('text')].map((t) => t.textContent);
  return { rows, bars, baseline, words, painted, ...strips };
});

async function assertStep(page, r, step) {
  const d = await drawn(page);
  assert.deepEqual(d.words, r.source);
  assert.equal(d.rows.length, r.target.length);
  const tx = r.source.length;
  d.rows.forEach((g, i) => {
    assert.equal(g.state, i < step ? 'done' : i === step ? 'current' : 'pending', `row ${i}`);
    assert.equal(g.label, i <= step ? r.target[i] : '');
    if (i > step) { assert.equal(g.alphas.length, 0); return; }
    // Each filled cell is alpha_ij from the module (painted with opacity alpha_ij).
    assert.equal(g.alphas.length, tx);
    const expected = row(r.alignment, i);
    g.alphas.forEach((alpha, j) => close(alpha, expected[j], 1e-12, `alpha[${i}][${j}]`));
  });
  // The current row is painted with those opacities; the next row's cells are empty.
  d.painted.last.forEach((opacity, j) => close(opacity, row(r.alignment, step)[j], 0.01, `painted opacity[${step}][${j}]`));
  d.painted.next.forEach((opacity, j) => assert.equal(opacity, 0, `row ${step + 1}, cell ${j} painted before its step`));
  // The bars are e_ij of this step, on one linear scale around the baseline e = 0.
  const e = row(r.scores, step);
  assert.equal(d.bars.length, tx);
  const signedHeights = d.bars.map((b) => (b.y < d.baseline - 1e-6 ? b.height : -b.height));
  const pxPerUnit = Math.max(...signedHeights) / Math.max(...e);
  d.bars.forEach((b, j) => {
    close(b.score, e[j], 1e-12, `e[${step}][${j}]`);
    if (Math.abs(e[j] * pxPerUnit) > 0.5) close(signedHeights[j], e[j] * pxPerUnit, 1e-3, `bar ${j} height`);
  });
  const strongest = e.indexOf(Math.max(...e));
  assert.deepEqual(d.bars.map((b) => b.strongest), e.map((_, j) => j === strongest));
  // The strips: s_{i-1}, h_j* of the most weighted word (the largest score's), and c_i.
  assert.deepEqual(d.query, row(r.queries, step));
  assert.deepEqual(d.context, row(r.contexts, step));
  assert.deepEqual(d.annotation, row(r.annotations, strongest));
}

test('opens at the first decoder step of the Fig. 3 sentence; every drawn value is the module\'s; Step forward reveals the next row', async () => {
  const { page, problems, close: done } = await site.open(VIZ);
  const r = translate(CANONICAL);
  assert.equal(await page.getByTestId('translation').textContent(), r.target.slice(0, -1).join(' '));
  assert.match(await page.getByTestId('pair').textContent(), /never seen in training/);
  assert.match(await page.getByTestId('narration').textContent(), /^Look for:/);
  for (let step = 0; step < r.target.length; step++) {
    await assertStep(page, r, step);
    if (step === 5) {
      // économique: mostly 'economic', and the narration says it looks back (the inversion).
      const a = row(r.alignment, 5);
      assert.equal(await page.getByTestId('narration').textContent(),
        `Step 6 of ${r.target.length}: ‘économique’ looks mostly at ‘economic’ (${a[5].toFixed(2)}) and ‘european’ (${a[4].toFixed(2)}). ` +
        `It looks back, left of ‘area’: French puts these words in another order. Scores run from ${Math.min(...row(r.scores, 5)).toFixed(1)} ` +
        `to ${Math.max(...row(r.scores, 5)).toFixed(1)}; p(économique) = ${r.probabilities[5].toFixed(3)}.`);
      await screenshot(page, 'bahdanau-alignment-desktop');
    }
    if (step < r.target.length - 1) await page.getByRole('button', { name: /Step forward/ }).click();
    // The score bars glide to the new step's (GLIDE_MS, 300 ms).
    if (step === 0) assert.equal(await page.getByTestId('score-bars-canvas').getAttribute('data-gliding'), '');
  }
  assert.deepEqual(await settledHash(page), { sentence: 'canonical', step: String(r.target.length - 1) });
  assert.deepEqual(problems, []);
  await done();
});

test('the equation panel substitutes the step\'s own values', async () => {
  const { page, problems, close: done } = await site.open(`${VIZ}#sentence=canonical&step=6`);
  const r = translate(CANONICAL);
  const e = row(r.scores, 6), a = row(r.alignment, 6);
  const j = a.indexOf(Math.max(...a));
  const equations = page.getByTestId('equations');
  assert.match(await equations.textContent(), new RegExp(`j\\* = ${j + 1} \\(‘${r.source[j]}’\\)`));
  const values = await slotValues(equations);
  assert.equal(values.e, fmt(e[j], 2));
  assert.equal(values.alpha, fmt(a[j], 3));
  assert.equal(values.a1, fmt(a[j], 2));
  assert.equal(values.j1, String(j + 1));
  assert.deepEqual(problems, []);
  await done();
});

test('the short pair and the reader\'s sentence, from the module; an unknown word is named and the figure keeps working', async () => {
  const { page, problems, close: done } = await site.open(VIZ);
  await page.getByRole('radio', { name: 'Short' }).click();
  const s = translate(SHORT);
  await assertStep(page, s, 0);
  await page.keyboard.press('End');
  await assertStep(page, s, s.target.length - 1);
  await page.getByRole('radio', { name: 'Your sentence' }).click();
  const input = page.locator('#own-text');
  await input.fill('The economic area was signed.');
  await page.getByRole('button', { name: 'Translate' }).click();
  const own = translate('the economic area was signed');
  await assertStep(page, own, 0);
  assert.deepEqual(await settledHash(page), { sentence: 'own', step: '0', text: 'The economic area was signed.' });
  // The vocabulary is offered: completions of the word being typed.
  await input.fill('the agr');
  assert.deepEqual(await page.locator('#own-words option').evaluateAll((os) => os.map((o) => o.value)), ['the agreement', 'the agricultural']);
  await input.fill('the agrement was signd');
  await input.press('Enter');
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(),
    'Not translated: \'agrement\' and \'signd\' are not in this model\'s vocabulary of 237 English words; try \'agreement\' for \'agrement\', \'sign\' for \'signd\'×');
  await assertStep(page, own, 0);  // the last good sentence stays
  assert.equal(await input.inputValue(), 'the agrement was signd');
  await page.getByRole('button', { name: /Step forward/ }).click();
  await assertStep(page, own, 1);
  assert.deepEqual(problems, []);
  await done();
});

test('a hash restores the reader\'s sentence and step; a rejected hash says so and the figure keeps working', async () => {
  let { page, problems, close: done } = await site.open(`${VIZ}#sentence=own&text=the+council+does+not+sign+the+treaty&step=4`);
  const own = translate('the council does not sign the treaty');
  await assertStep(page, own, 4);
  assert.equal(await page.locator('#own-text').inputValue(), 'the council does not sign the treaty');
  assert.deepEqual(problems, []);
  await done();
  ({ page, problems, close: done } = await site.open(`${VIZ}#sentence=poem&step=2`));
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /sentence must be canonical, short, own; got 'poem'/);
  await page.getByRole('button', { name: /Step forward/ }).click();
  await assertStep(page, translate(CANONICAL), 1);
  await done();
  ({ page, problems, close: done } = await site.open(`${VIZ}#sentence=own&text=${encodeURIComponent(Array(40).fill('the treaty').join(' '))}`));
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /this figure draws sentences of up to 20 words \(the full stop counts\); this one has 81/);
  assert.deepEqual(problems, []);
  await done();
});

test('keyboard steps and plays; reduced motion still reaches the last step', async () => {
  const { page, problems, close: done } = await site.open(VIZ, { reducedMotion: 'reduce' });
  const r = translate(CANONICAL);
  await page.keyboard.press('ArrowRight');
  // The score bars jump to the new step instead of gliding.
  assert.equal(await page.getByTestId('score-bars-canvas').getAttribute('data-gliding'), null);
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await settledHash(page)).step, '1');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForFunction((n) => document.querySelector(`[data-testid="row-${n}"]`)?.dataset.state === 'current', r.target.length - 1, { timeout: 30000 });
  assert.deepEqual(problems, []);
  await done();
});

test('at 375 px nothing overflows and the drawing, narration and controls fit', async () => {
  const { page, problems, close: done } = await site.open(`${VIZ}#sentence=canonical&step=6`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  await assertStep(page, translate(CANONICAL), 6);
  await screenshot(page, 'bahdanau-alignment-375');
  assert.deepEqual(problems, []);
  await done();
});

test('a reader\'s sentence at the figure\'s cap of 20 words still fits a phone\'s and a laptop\'s frame', async () => {
  const long = 'the european council will sign the agreement on 12 may 1995 and the commission signed the treaty yesterday';
  const r = translate(long);
  assert.equal(r.source.length - 1, 19);
  for (const viewport of [{ width: 375, height: 812 }, { width: 1280, height: 800 }]) {
    const { page, problems, close: done } = await site.open(`${VIZ}#sentence=own&text=${encodeURIComponent(long)}&step=${r.target.length - 1}`, { viewport });
    await assertStep(page, r, r.target.length - 1);
    assert.equal(await horizontalOverflow(page), 0);
    const bottom = await page.evaluate(() => Math.ceil(document.getElementById('app').getBoundingClientRect().bottom));
    assert.ok(bottom <= viewport.height, `${viewport.width} px: content ${bottom} px in a ${viewport.height} px frame`);
    if (viewport.width === 375) await screenshot(page, 'bahdanau-alignment-long-375');
    assert.deepEqual(problems, []);
    await done();
  }
});

test('the no-script summary gives the translation the module computes', () => {
  const html = readFileSync(new URL('../../site/viz/attention-bahdanau-alignment/index.html', import.meta.url), 'utf8');
  const r = translate(CANONICAL);
  assert.ok(html.replace(/\s+/g, ' ').includes(`“${r.target.slice(0, -2).join(' ')}”`), 'the French sentence, without its full stop and <eos>');
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('attention-bahdanau-alignment')));
