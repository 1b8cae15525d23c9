// Browser tests of the LSH-bucketing figure: every token's bucket, every sector, every connection,
// every mask cell and the readouts are the core's (lshAttention with recordAttended, lshSectors2d)
// on the same seeded vectors; controls, the URL hash, a rejected hash, the keyboard, reduced motion
// and a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/lsh-attention-bucketing/';
const N = 32;
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('classic'); });
after(() => site.close());

// The core's answer for a configuration, computed here as the figure computes it (model.ts).
function expected({ buckets = 4, rounds = 1, chunk = 16, seed = 1 } = {}) {
  const qShape = [1, 1, N, 2], vShape = [1, 1, N, 8];
  const input = core.retrievalInputs({ qShape, kvLen: 4, noise: 0.1, sharpness: 12, seed });
  const v = core.randomNormal(vShape, seed, 1);
  const lsh = core.lshAttention({ q: input.q, qShape, k: input.q, kShape: qShape, v, vShape,
    numBuckets: buckets, numRounds: rounds, chunkLength: chunk, seed, recordAttended: true });
  const sectors = core.lshSectors2d({ numBuckets: buckets, numRounds: rounds, seed });
  const pairs = new Map();
  let scored = 0;
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      const a = lsh.attendedRounds[i * N + j];
      if (i !== j && a > 0) scored++;
      if (j > i && Math.max(a, lsh.attendedRounds[j * N + i]) > 0) pairs.set(`${i}-${j}`, Math.max(a, lsh.attendedRounds[j * N + i]));
    }
  }
  return { lsh, sectors, pairs, scored, buckets, rounds };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

async function assertDrawn(page, e, step) {
  // The marks' canvas lists the tokens it draws (token, round-0 bucket, x, y) and glides to them.
  const tokens = JSON.parse(await page.getByTestId('tokens').getAttribute('data-tokens'));
  assert.deepEqual(tokens.map((t) => t.bucket), Array.from(e.lsh.buckets.slice(0, N)), 'round-0 bucket of every token');
  if (step >= 1) {  // on the unit circle, at the angle of the core's unit key
    const size = Number(await page.getByTestId('scatter').getAttribute('width'));
    for (const t of tokens) {
      const angle = Math.atan2(-(t.y - size / 2), t.x - size / 2);
      const want = Math.atan2(e.lsh.points2d[2 * t.token + 1], e.lsh.points2d[2 * t.token]);
      assert.ok(Math.abs(Math.atan2(Math.sin(angle - want), Math.cos(angle - want))) < 0.02, `token ${t.token} angle`);
    }
  }
  // Sectors: round 0 in the disk plus one ring per round, each arc the core's.
  const arcs = await page.getByTestId('sectors').locator('.ring path').evaluateAll((ps) => ps.map((p) =>
    [Number(p.dataset.round), Number(p.dataset.bucket), Number(p.dataset.begin)]));
  assert.deepEqual(arcs, Array.from(e.sectors.round, (r, a) => [r, e.sectors.bucket[a], Number(e.sectors.begin[a].toFixed(6))]));
  // The mask's axes: from step 2, one strip per bucket over the tokens of that bucket in the
  // round-0 order, in its colour; before, one grey strip.
  const order = Array.from({ length: N }, (_, j) => j).sort((a, b) => e.lsh.buckets[a] - e.lsh.buckets[b] || a - b);
  const strips = await page.getByTestId('mask').locator('.mask-axis').evaluateAll((ps) => ps.map((p) =>
    [Number(p.dataset.bucket), Number(p.dataset.from), Number(p.dataset.to), p.getAttribute('fill')]));
  const stripOf = (k) => strips.find(([, from, to]) => from <= k && k < to);
  order.forEach((j, k) => assert.equal(stripOf(k)?.[0], step >= 2 ? e.lsh.buckets[j] : -1, `axis strip at position ${k}`));
  assert.equal(new Set(strips.map(([, , , fill]) => fill)).size, strips.length, 'one colour per strip');
  const lines = page.getByTestId('connections').locator('path');
  if (step >= 3) {
    // Each path holds the segments of the pairs scored in its number of rounds, in the order its
    // data-pairs lists them; every segment joins the two tokens as drawn.
    const at = new Map(tokens.map((t) => [t.token, [t.x, t.y]]));
    const drawn = new Map();
    for (const { pairs, rounds, d } of await lines.evaluateAll((ps) => ps.map((p) => ({ pairs: p.dataset.pairs.split(' '), rounds: Number(p.dataset.rounds), d: p.getAttribute('d') })))) {
      const segments = [...d.matchAll(/M([-\d.]+) ([-\d.]+)L([-\d.]+) ([-\d.]+)/g)].map((m) => m.slice(1).map(Number));
      assert.equal(segments.length, pairs.length);
      pairs.forEach((pair, k) => {
        const [i, j] = pair.split('-').map(Number);
        const [x1, y1, x2, y2] = segments[k];
        assert.ok(Math.hypot(x1 - at.get(i)[0], y1 - at.get(i)[1]) < 0.02 && Math.hypot(x2 - at.get(j)[0], y2 - at.get(j)[1]) < 0.02, `segment ${pair}`);
        drawn.set(pair, rounds);
      });
    }
    assert.deepEqual(drawn, e.pairs, 'a line for every pair some round scored, and no other');
    // The mask: runs of cells at (row, column) of the round-0 sorted order, one path per shade.
    const size = Number(await page.getByTestId('mask').getAttribute('width'));
    const cell = (size - 8) / N;
    const cells = new Map();
    for (const { rounds, d } of await page.getByTestId('mask').locator('.mask-cell').evaluateAll((ps) => ps.map((p) => ({ rounds: Number(p.dataset.rounds), d: p.getAttribute('d') })))) {
      for (const m of d.matchAll(/M([\d.]+) ([\d.]+)h([\d.]+)/g)) {  // a run of cells in one row
        const row = Math.round((Number(m[2]) - 8) / cell), col0 = Math.round((Number(m[1]) - 8) / cell);
        for (let col = col0; col < col0 + Math.round(Number(m[3]) / cell); col++) {
          const i = order[row], j = order[col];
          cells.set(i * N + j, rounds === 0 ? e.lsh.attendedRounds[i * N + j] : rounds);
          if (rounds === 0) assert.equal(i, j, 'the self shade is the diagonal');
        }
      }
    }
    const want = [...e.lsh.attendedRounds.entries()].filter(([, a]) => a > 0);
    assert.deepEqual([...cells].sort((a, b) => a[0] - b[0]), want);
  } else {
    assert.equal(await lines.count(), 0);
  }
  assert.equal(await page.getByTestId('pairs').textContent(), `${e.scored} / ${N * (N - 1)} (${pct(e.scored / (N * (N - 1)))})`);
  assert.equal(await page.getByTestId('error').textContent(), `${pct(e.lsh.error.relativeFrobenius)} · ${e.lsh.error.maxAbs.toFixed(3)}`);
  assert.equal(await page.getByTestId('entries').textContent(), `${e.lsh.cost.scoreEntries.toLocaleString('en-US')} vs dense ${(N * N).toLocaleString('en-US')}`);
}

test('opens at the raw vectors; each step draws the core\'s buckets, sectors, pairs and mask', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const e = expected();
  assert.equal((await settledHash(page)).step, '0');
  assert.match(await page.getByTestId('narration').textContent(), /^Look for:/);
  for (let step = 0; step <= 4; step++) {
    await assertDrawn(page, e, step);
    if (step < 4) await page.getByRole('button', { name: /Step forward/ }).click();
    // The rotation step glides the tokens onto the circle and turns the directions into place.
    if (step === 0) {
      assert.equal(await page.getByTestId('tokens').getAttribute('data-settled'), 'false', 'the rotation step animates');
      await page.waitForSelector('[data-testid="tokens"][data-settled="true"]', { timeout: 5000 });
    }
  }
  assert.match(await page.getByTestId('narration').textContent(), new RegExp(`off by ${pct(e.lsh.error.relativeFrobenius).replace('.', '\\.')}`));
  assert.equal((await settledHash(page)).step, '4');
  await screenshot(page, 'lsh-bucketing-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('buckets, rounds, chunk and seed rebuild from the core; the hash restores them', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#buckets=8&rounds=2&chunk=16&seed=3&step=4`);
  await assertDrawn(page, expected({ buckets: 8, rounds: 2, chunk: 16, seed: 3 }), 4);
  await page.locator('[role="radiogroup"][aria-label="Buckets"] [data-value="16"]').click();
  // New settings are another hash: its directions appear in place, nothing glides.
  assert.equal(await page.getByTestId('tokens').getAttribute('data-settled'), 'true', 'no glide after a settings change');
  await page.locator('[role="radiogroup"][aria-label="Hash rounds"] [data-value="4"]').click();
  await page.locator('select[aria-label="Chunk length"]').selectOption('32');
  await assertDrawn(page, expected({ buckets: 16, rounds: 4, chunk: 32, seed: 3 }), 4);
  assert.deepEqual(await settledHash(page), { buckets: '16', rounds: '4', chunk: '32', seed: '3', step: '4' });
  assert.deepEqual(problems, []);
  await close();
});

test('a rejected hash says why in plain words and the figure keeps working', async () => {
  for (const [hash, message] of [['buckets=3', /buckets must be one of 2, 4, 8, 16, got 3/], ['seed=-1', /seed/], ['step=9', /step must be a whole number from 0 to 4, got 9/]]) {
    const { page, problems, close } = await site.open(`${VIZ}#${hash}`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), message);
    await page.getByRole('button', { name: /Step forward/ }).click();
    await assertDrawn(page, expected(), 1);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('keyboard steps and plays; reduced motion snaps and still reaches the mask', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('End');
  assert.equal((await settledHash(page)).step, '4');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="connections"] path').length > 0
    && document.querySelector('.mask.shown') !== null, null, { timeout: 30000 });
  // A step back to the raw vectors places the tokens at once, each painted where its data says.
  await page.keyboard.press('k');
  await page.keyboard.press('Home');
  assert.equal((await settledHash(page)).step, '0');
  assert.equal(await page.getByTestId('tokens').getAttribute('data-settled'), 'true', 'no glide under reduced motion');
  const unpainted = await page.getByTestId('tokens').evaluate((c) => {
    const dpr = c.width / c.getBoundingClientRect().width, px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const alpha = (x, y) => px[4 * (Math.round(y * dpr) * c.width + Math.round(x * dpr)) + 3];
    return JSON.parse(c.dataset.tokens).filter((t) => alpha(t.x, t.y) < 255).map((t) => t.token);
  });
  assert.deepEqual(unpainted, [], 'tokens not painted at their positions');
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows and scatter and mask share a row', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#buckets=8&rounds=4&step=4`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  const [a, b] = await Promise.all([page.getByTestId('scatter').boundingBox(), page.getByTestId('mask').boundingBox()]);
  assert.equal(Math.round(a.y), Math.round(b.y));
  assert.ok(a.width >= 150, `scatter ${a.width} px wide`);
  await assertDrawn(page, expected({ buckets: 8, rounds: 4 }), 4);
  await screenshot(page, 'lsh-bucketing-375');
  assert.deepEqual(problems, []);
  await close();
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('lsh-attention-bucketing')));
