// Browser tests of the online-softmax visualization, standalone and embedded: it renders the
// core's trace, steps, restores state from the URL hash, survives a bad seed, works with the
// keyboard, at 375 px and with reduced motion.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, screenshot, settled, settledHash, slotValues, startSite } from './browser.mjs';
import { fmt } from './figure-format.mjs';

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
const expectedTrace = (seed) => core.flashForwardTrace({ ...example(seed), blockQ: 1, blockK: 4 });
const expectedSteps = (seed) => expectedTrace(seed).steps;
// Formats local to the figure: vectors as in App.tsx (vec), differences as in Comparison.tsx (sci).
const vec = (a) => `(${Array.from(a, (x) => fmt(x)).join(', ')})`;
const sci = (x) => (x === 0 ? '0' : x.toExponential(1).replace('-', '−'));

const stateM = (page) => page.locator('[data-testid="state-m"] [data-value]').first();
const stateL = (page) => page.locator('[data-testid="state-ℓ"] [data-value]').first();
const stateRescale = (page) => page.locator('[data-testid="state-e^(m_old − m_new)"] [data-value]');
const stateO = (page) => page.locator('[data-testid="state-O"] dd');
// The "was …" note under a state value: the value before this tile.
const stateBefore = (page, sym) => page.locator(`[data-testid="state-${sym}"] .before`);
// Key j's scores as the reader sees them after `step`: '?' until a tile of the trace has scored it.
function expectedScores(steps, step) {
  const shownScores = Array(8).fill('?');
  for (const s of steps.slice(1, step + 1).filter((t) => t.kind === 'tile')) {
    s.scores.forEach((x, i) => { shownScores[s.colBegin + i] = fmt(x, 2); });
  }
  return shownScores;
}
// Key j's bar is named by its weight (or, at the finish, its dense probability) to 3 digits and
// labelled on screen to 2.
async function assertBar(page, j, name, x) {
  const bar = page.getByTestId(`key-${j}`).getByRole('img');
  assert.equal(await bar.getAttribute('aria-label'), `${name} ${fmt(x)}`, `bar name of key ${j}`);
  assert.equal(await settled(bar), fmt(x, 2), `bar label of key ${j}`);
}

test('each step shows the state, equations, scores and weights of the core trace; Step forward advances', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seed=19`);
  const steps = expectedSteps(19);
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const prev = steps[Math.max(i - 1, 0)];
    assert.equal(await settled(stateM(page)), fmt(s.m[0]), `m at step ${i}`);
    assert.equal(await settled(stateL(page)), fmt(s.l[0]), `ℓ at step ${i}`);
    assert.equal(await settled(stateRescale(page)), fmt(s.rescale[0]), `rescale at step ${i}`);
    assert.equal(await settled(stateO(page)), vec(s.output), `O at step ${i}`);
    assert.deepEqual(await page.locator('[data-testid^="score-"]').allTextContents(), expectedScores(steps, i), `scores at step ${i}`);
    if (s.kind === 'tile') {
      assert.equal(await stateBefore(page, 'm').textContent(), `was ${fmt(prev.m[0])}`, `m before step ${i}`);
      assert.equal(await stateBefore(page, 'ℓ').textContent(), `was ${fmt(prev.l[0])}`, `ℓ before step ${i}`);
      for (let c = s.colBegin; c < s.colEnd; c++) await assertBar(page, c + 1, 'weight', s.weights[c - s.colBegin]);
      // An earlier tile's bars are the weights ℓ holds for it: its own weights times this step's
      // rescale factor, drawn that much shorter, so every bar on screen sums to the core's ℓ.
      const held = [];
      for (const t of steps.slice(1, i).filter((x) => x.kind === 'tile')) {
        for (let c = t.colBegin; c < t.colEnd; c++) {
          const w = t.weights[c - t.colBegin] * s.rescale[0];
          held.push(w);
          await assertBar(page, c + 1, 'weight', w);
        }
        const chip = page.getByTestId(`rescaled-${t.kBlock + 1}`);
        if (s.rescale[0] !== 1) assert.equal(await chip.textContent(), `× ${fmt(s.rescale[0])} rescaled`);
        else assert.equal(await chip.count(), 0);
      }
      const sum = [...held, ...s.weights].reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - s.l[0]) <= 1e-5 * s.l[0], `bars sum to ℓ at step ${i}: ${sum} vs ${s.l[0]}`);
      if (i === 2) {
        // The rescale is drawn, not only printed: tile 1's bars are shorter by the factor α.
        const heights = await page.locator('[data-testid^="key-"] .fill').evaluateAll((fills) => fills.map((f) => f.style.height));
        assert.equal(heights.length, 8);
        steps[1].weights.forEach((w, c) => assert.ok(Math.abs(parseFloat(heights[c]) - 100 * w * s.rescale[0]) < 1e-3, `tile 1 bar ${c + 1} height`));
      }
    }
    const tileMax = Math.max(...s.scores);
    assert.deepEqual(await slotValues(page.locator('.viz')), s.kind !== 'tile' ? {} : {
      mold: fmt(prev.m[0]), tilemax: fmt(tileMax), mnew: fmt(s.m[0]),
      alpha: fmt(s.rescale[0]), lold: fmt(prev.l[0]), lnew: fmt(s.l[0]), onew: vec(s.output),
    }, `equations at step ${i}`);
    // Seed 19's first tile starts from nothing and its second raises the max: the narration quotes both.
    const narration = await page.getByTestId('narration').textContent();
    if (i === 1) {
      assert.match(narration, new RegExp(`^Tile 1: its largest score is ${fmt(tileMax)}, so m = ${fmt(s.m[0])}\\. .* ℓ = ${fmt(s.l[0])} is the sum`));
    }
    if (i === 2) {
      assert.ok(s.m[0] > prev.m[0], 'seed 19 raises the max in tile 2');
      assert.match(narration, new RegExp(`^Tile 2 holds a larger score \\(${fmt(tileMax)} > ${fmt(prev.m[0])}\\)\\. .* multiplied by e\\^\\(${fmt(prev.m[0])} − ${fmt(s.m[0])}\\) = ${fmt(s.rescale[0])} before`));
      await screenshot(page, 'online-softmax-desktop');
    }
    if (i < steps.length - 1) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  assert.equal((await settledHash(page)).step, '3');
  // The last step compares the tiled result (output and log-sum-exp of flash_forward) with the
  // dense softmax computed by sdpa, and shows the dense probabilities on the keys' bars.
  const tiled = expectedTrace(19);
  const dense = core.sdpa({ ...example(19), returnProbs: true });
  const cells = await page.getByTestId('comparison').locator('tbody tr').evaluateAll((rows) =>
    rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => td.textContent)));
  const row = (online, exact) => [fmt(online, 5), fmt(exact, 5), sci(Math.abs(online - exact))];
  assert.deepEqual(cells, [
    row(tiled.output[0], dense.output[0]),
    row(tiled.output[1], dense.output[1]),
    row(tiled.lse[0], dense.lse[0]),
  ]);
  for (let j = 1; j <= 8; j++) await assertBar(page, j, 'probability', dense.probs[j - 1]);
  assert.deepEqual(problems, []);
  await close();
});

test('the URL hash restores the step and the seed', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=2&seed=7`);
  const steps = expectedSteps(7);
  assert.equal(await page.getByTestId('seed').textContent(), '7');
  assert.equal(await settled(stateM(page)), fmt(steps[2].m[0]));
  assert.equal(await page.locator('.scrubber-stops [aria-current="step"]').textContent(), 'Tile 2');
  // Scores of both tiles are visible at step 2, and each key's value vector is seed 7's.
  const { v } = example(7);
  for (let j = 1; j <= 8; j++) {
    assert.equal(await page.getByTestId(`score-${j}`).textContent(), expectedScores(steps, 2)[j - 1], `score of key ${j}`);
    assert.equal(await page.getByTitle(`value vector v${j}`).textContent(), `v${j}${fmt(v[2 * j - 2], 2)} ${fmt(v[2 * j - 1], 2)}`, `v${j}`);
  }
  // Seed 7's second tile does not raise the max: the narration says ℓ simply grows.
  assert.equal(steps[2].m[0], steps[1].m[0], 'seed 7 keeps the max in tile 2');
  assert.match(await page.getByTestId('narration').textContent(), new RegExp(
    `^Tile 2's largest score \\(${fmt(Math.max(...steps[2].scores))}\\) does not beat m = ${fmt(steps[1].m[0])}, .* ℓ grows from ${fmt(steps[1].l[0])} to ${fmt(steps[2].l[0])}\\.$`));
  assert.deepEqual(problems, []);
  await close();
});

test('a seed the core rejects shows its message and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seed=banana`);
  await assert.doesNotReject(page.getByRole('alert').waitFor());
  assert.match(await page.getByRole('alert').textContent(), /seed: must be an integer in \[0, 4294967295\]/);
  await page.getByRole('button', { name: /Step forward/ }).click();
  assert.equal(await settled(stateM(page)), fmt(expectedSteps(19)[1].m[0]));  // default example
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
  assert.equal(await settled(stateM(page)), fmt(expectedSteps(19)[1].m[0]));
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
