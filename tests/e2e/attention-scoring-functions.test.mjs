// Browser tests of the scoring-functions figure: every bar, readout, chart point and the narration
// are the core's sqrt(d_k) experiment (scalingExperiment, called here with the figure's settings);
// Resample, the URL hash, rejected hashes, the keyboard, reduced motion and a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/attention-scoring-functions/';
const DIMS = [4, 8, 16, 32, 64, 128, 256, 512];
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('classic'); });
after(() => site.close());

// What the figure must show for a seed: the dot products over 100 draws, the additive score over 4
// (the first draw of a seed is shared by both calls).
function expected(seed) {
  const dot = core.scalingExperiment({ dims: DIMS, numKeys: 16, trials: 100, seed });
  const add = core.scalingExperiment({ dims: DIMS, numKeys: 16, trials: 4, seed, includeAdditive: true });
  return DIMS.map((dim, i) => ({ dim, additive: add[i].additive, dot: dot[i].raw, scaled: dot[i].scaled }));
}

// The figure's formats (site/viz/attention-scoring-functions/format.ts), for the drawn text.
const fmt = (x, d) => x.toFixed(d).replace(/^-/, '−');
const fmtVariance = (v) => fmt(v, v >= 100 ? 0 : v >= 10 ? 1 : 3);
const fmtSmall = (x) => (x > 0.99 ? fmt(x, 3) : x >= 0.01 || x === 0 ? fmt(x, 2) : x.toPrecision(2));

// The tallest bar each panel paints, as a fraction of the bar area's height (the canvas spans the
// three panels' bar areas, which start 40 px down and end at its bottom; a panel is a third of its
// width, gaps included).
const paintedPeaks = (page) => page.locator('canvas.bars').evaluate((c) => {
  const k = c.width / parseFloat(c.style.width), cssH = parseFloat(c.style.height), barH = cssH - 40;
  const copy = Object.assign(document.createElement('canvas'), { width: c.width, height: c.height }).getContext('2d');
  copy.drawImage(c, 0, 0);
  const px = copy.getImageData(0, 0, c.width, c.height).data;
  return [0, 1, 2].map((i) => {
    for (let y = 0; y < c.height; y++) {
      for (let x = Math.floor((i * c.width) / 3); x < Math.floor(((i + 1) * c.width) / 3); x++) if (px[4 * (y * c.width + x) + 3] > 0) return (cssH - y / k) / barH;
    }
    return 0;
  });
});

async function assertShows(page, rows, step) {
  const row = rows[step];
  const peaks = await paintedPeaks(page);
  assert.equal(await page.getByTestId('dk').textContent(), String(row.dim));
  for (const m of ['additive', 'dot', 'scaled']) {
    const s = row[m];
    // Bars: this draw's 16 softmax weights, exactly.
    const drawn = JSON.parse(await page.locator('canvas.bars').getAttribute('data-weights'))[m];
    assert.deepEqual(drawn, Array.from(s.firstWeights), `${m} bars at d_k = ${row.dim}`);
    const peak = Math.max(...s.firstWeights), painted = peaks[['additive', 'dot', 'scaled'].indexOf(m)];
    assert.ok(Math.abs(painted - Math.max(peak, 0.005)) < 0.02, `${m}: the tallest bar painted is ${painted} of the area, its weight ${peak}`);
    assert.equal(await page.getByTestId(`top-${m}`).textContent(), fmtSmall(Math.max(...s.firstWeights)));
    assert.match(await page.getByTestId(`variance-${m}`).textContent(), new RegExp(`${fmtVariance(s.variance)}$`));
    assert.match(await page.getByTestId(`entropy-${m}`).textContent(), new RegExp(`${fmt(s.entropy, 2)} nats$`));
    assert.equal(await page.getByTestId(`jacobian-${m}`).textContent(), `‖J‖ ${fmtSmall(s.jacobianNorm)}`);
    // The gradient chart: one point per d_k, the core's mean Jacobian norm.
    const points = await page.getByTestId(`line-${m}`).locator('circle').evaluateAll((cs) => cs.map((c) => Number(c.dataset.norm)));
    assert.deepEqual(points, rows.map((r) => r[m].jacobianNorm));
  }
  const narration = await page.getByTestId('narration').textContent();
  if (!narration.startsWith('Look for')) {
    assert.match(narration, new RegExp(`^At d_k = ${row.dim}, unscaled dot-product scores have variance ≈ ${fmtVariance(row.dot.variance)} \\(about d_k\\) and in this draw the top key takes ${fmtSmall(Math.max(...row.dot.firstWeights))} of the weight`));
    assert.match(narration, new RegExp(`Divided by √${row.dim}, the scores have variance ${fmtVariance(row.scaled.variance)}`));
  }
}

test('opens at d_k = 4; each step up is the core\'s experiment; at 512 the dot product saturates and the scaled one does not', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const rows = expected(1);
  assert.deepEqual(await settledHash(page), { step: '0', seed: '1' });
  assert.match(await page.getByTestId('narration').textContent(), /^Look for: /);
  for (let step = 0; step < DIMS.length; step++) {
    await assertShows(page, rows, step);
    if (step < DIMS.length - 1) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  // What the figure is for: at d_k = 512 the unscaled softmax is nearly one-hot and passes almost no
  // gradient; the scaled one keeps its entropy and its gradient.
  const last = rows.at(-1);
  assert.ok(last.dot.maxWeight > 0.9 && last.scaled.maxWeight < 0.5);
  assert.ok(last.dot.jacobianNorm < 0.35 * last.scaled.jacobianNorm);
  assert.ok(Math.abs(last.dot.variance - 512) < 0.2 * 512 && Math.abs(last.scaled.variance - 1) < 0.2);
  await screenshot(page, 'scoring-functions-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('Resample draws the next seed at the same d_k, and the hash restores seed and step', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=6&seed=41`);
  await assertShows(page, expected(41), 6);
  // The next seed is computed in a worker; Resample shows it when it is there.
  await page.getByRole('button', { name: 'Resample' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="seed"]').textContent === '42');
  await assertShows(page, expected(42), 6);
  assert.deepEqual(await settledHash(page), { step: '6', seed: '42' });
  assert.deepEqual(problems, []);
  await close();
});

test('a seed or step the figure cannot use says so and the figure keeps working', async () => {
  for (const [hash, message] of [
    ['seed=-3', /Seed "-3" was rejected by the core: seed: must be an integer in \[0, 4294967295\]/],
    ['seed=abc', /Seed "abc" was rejected by the core: seed: must be/],
    ['step=9', /Step "9" is not one of the figure's steps: it must be a whole number from 0 to 7 \(d_k = 4 to 512\)/],
  ]) {
    const { page, problems, close } = await site.open(`${VIZ}#${hash}`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), message);
    await page.getByRole('button', { name: /Step forward/ }).click();
    await assertShows(page, expected(1), 1);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('keyboard steps and plays; reduced motion reaches d_k = 512 without transitions', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  // The figure listens for keys once it has drawn (the experiment runs after the module loads).
  await page.locator('.viz-footer').waitFor();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('End');
  assert.equal(await page.getByTestId('dk').textContent(), '512');
  await page.keyboard.press('Home');
  assert.equal(await page.getByTestId('dk').textContent(), '4');
  await page.keyboard.press('k');
  await page.waitForFunction(() => document.querySelector('[data-testid="dk"]').textContent === '512', null, { timeout: 20000 });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.scoring .point')).transitionDuration), '0s');
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows, the three panels stay side by side and the legend folds away', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=7&seed=1`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  const tops = await Promise.all(['additive', 'dot', 'scaled'].map((m) => page.getByTestId(`panel-${m}`).locator('.bar-area').evaluate((r) => Math.round(r.getBoundingClientRect().top))));
  assert.equal(new Set(tops).size, 1, `panel tops ${tops}`);
  assert.equal(await page.locator('.legend').isVisible(), false);
  await assertShows(page, expected(1), 7);
  await screenshot(page, 'scoring-functions-375');
  assert.deepEqual(problems, []);
  await close();
});

test('the no-script summary says what the core measures', () => {
  const html = readFileSync(new URL('../../site/viz/attention-scoring-functions/index.html', import.meta.url), 'utf8');
  const rows = expected(1);
  // "their variance is about d_k" and "a variance of about 1": true of the core's numbers at every d_k.
  assert.match(html, /their variance is\s+about d_k/);
  assert.match(html, /variance of about 1/);
  for (const r of rows) {
    // 1600 scores: the sample variance's standard deviation is ~5 % (tests/core/test_classic_scaling.cpp).
    assert.ok(Math.abs(r.dot.variance / r.dim - 1) < 0.2, `d_k = ${r.dim}: ${r.dot.variance}`);
    assert.ok(Math.abs(r.scaled.variance - 1) < 0.2);
  }
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('attention-scoring-functions')));
