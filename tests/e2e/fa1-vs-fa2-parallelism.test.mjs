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
import { fmt, fmtSeconds } from './figure-format.mjs';

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
    return {
      blocks: w.blocks.sm.length, waves: w.waves.length, util: w.smUtilization, timeS: roofline.timeS / w.smUtilization, smCount: w.smCount,
      startTiles: w.blocks.startTiles, endTiles: w.blocks.endTiles,
      waveStartTiles: w.waves.map((v) => v.startTiles), waveEndTiles: w.waves.map((v) => v.endTiles),
    };
  };
  const fa1 = side('fa1'), fa2 = side('fa2');
  // The clock's stops, in tiles: 0 and every wave's end, of both partitions (as model.ts defines them).
  const stops = [...new Set([0, ...fa1.waveEndTiles, ...fa2.waveEndTiles])].sort((a, b) => a - b);
  return { fa1, fa2, stops };
}
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.abs(b), `${what}: ${a} != ${b}`);

// Thread blocks of one side running at time t (tiles) in the core's schedule. An SM runs one block
// at a time (blocksPerSm is 1 here), so this is also the number of busy SMs.
const runningAt = (s, t) => s.startTiles.filter((start, i) => start <= t && t < s.endTiles[i]).length;

const percent = (u) => `${fmt(100 * u, 1)}%`;
const gain = (exp) => exp.fa1.timeS / exp.fa2.timeS;

async function checkSides(page, exp) {
  for (const key of ['fa1', 'fa2']) {
    assert.equal(await page.getByTestId(`${key}-blocks`).textContent(), exp[key].blocks.toLocaleString('en-US'), `${key} blocks`);
    assert.equal(await page.getByTestId(`${key}-waves`).textContent(), exp[key].waves.toLocaleString('en-US'), `${key} waves`);
    near(Number(await page.locator(`.${key}-util`).getAttribute('data-value')), 100 * exp[key].util, `${key} utilisation`);
    near(Number(await page.getByTestId(`${key}-time`).getAttribute('data-seconds')), exp[key].timeS, `${key} time`);
    // The text a reader sees, with FA2's "(N× faster)" badge when it beats FA1 by more than rounding (Panel.tsx).
    const badge = key === 'fa2' && gain(exp) > 1.0005 ? ` (${fmt(gain(exp), 1)}× faster)` : '';
    assert.equal(await page.getByTestId(`${key}-time`).textContent(), fmtSeconds(exp[key].timeS) + badge, `${key} time as shown`);
  }
}

// "SMs busy now" with the clock at stop `step`: the blocks the core's schedule has running then.
async function checkBusy(page, exp, step) {
  for (const key of ['fa1', 'fa2']) {
    const busy = runningAt(exp[key], exp.stops[step]);
    assert.equal(await page.getByTestId(`${key}-busy`).textContent(), `${busy} of ${exp[key].smCount}`, `${key} busy at step ${step}`);
  }
}

// The sentence the clock ends on: each side's utilisation and predicted time, and FA2's gain when
// it is worth a verdict (over 5 %, narration.tsx).
async function checkDoneNarration(page, exp) {
  const text = await page.getByTestId('narration').textContent();
  const m = text.match(/^Done\. FA1: .+ SMs, (?<util1>.+) of SM time busy, (?<time1>.+) predicted\. FA2: .+ blocks, (?<util2>.+) busy, (?<time2>.+?)\. (?:FA2 is (?<gain>.+)× faster\.|With this many)/);
  assert.ok(m, `done narration: ${text}`);
  assert.deepEqual({ ...m.groups }, {
    util1: percent(exp.fa1.util), time1: fmtSeconds(exp.fa1.timeS), util2: percent(exp.fa2.util), time2: fmtSeconds(exp.fa2.timeS),
    gain: gain(exp) > 1.05 ? fmt(gain(exp), 1) : undefined,
  }, 'done narration');
}

test('batch 1: FA1 starves the SMs, FA2 fills them; the batch slider converges them (numbers from the core)', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const one = expected();
  await checkSides(page, one);
  assert.ok(one.fa1.util < 0.2 && one.fa2.util > 0.9, 'the default launch shows the gap');
  // Opens at the first step, saying what to look for (shared/Narration.tsx); stepped on to where
  // FA2 has every SM busy and FA1 only one per (batch, head).
  assert.match(await page.getByTestId('narration').textContent(), /^Look for: /);
  assert.equal((await settledHash(page)).step ?? '0', '0');
  let opened = 0;
  do { await page.keyboard.press('ArrowRight'); opened++; } while (runningAt(one.fa2, one.stops[opened]) !== one.fa2.smCount);
  assert.equal(Number((await settledHash(page)).step), opened);
  const fa1Busy = runningAt(one.fa1, one.stops[opened]);
  assert.equal(runningAt(one.fa2, one.stops[opened]), one.fa2.smCount, 'opens while FA2 fills every SM');
  await checkBusy(page, one, opened);
  assert.match(await page.getByTestId('narration').textContent(), new RegExp(`FA1 has ${fa1Busy} SMs busy and ${one.fa1.smCount - fa1Busy} idle`));
  await screenshot(page, 'fa1-vs-fa2-parallelism-1280');
  await page.getByRole('slider', { name: 'Batch size' }).fill('64');
  const many = expected({ batch: 64 });
  await checkSides(page, many);
  assert.ok(Math.abs(many.fa1.util - many.fa2.util) < 0.06, 'large batch converges');
  assert.equal((await settledHash(page)).batch, '64');
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('End');
  assert.match(await page.getByTestId('narration').textContent(), /Done\. FA1: 1,024 blocks/);
  await checkDoneNarration(page, many);
  await screenshot(page, 'fa1-vs-fa2-parallelism-batch64-1280');
  assert.deepEqual(problems, []);
  await close();
});

test('the URL hash restores GPU, batch, heads, N, d, causal and the step', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#gpu=h100-sxm&batch=4&heads=8&n=4096&d=64&causal=1&step=2`);
  const exp = expected({ gpu: 'h100-sxm', batch: 4, heads: 8, n: 4096, d: 64, causal: true });
  await checkSides(page, exp);
  assert.equal(exp.fa1.smCount, 132);
  await checkBusy(page, exp, 2);  // the step the hash asked for
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

test('every control offers only launches the core accepts with the other settings', async () => {
  // The core's limit: 8 × 64 heads × 128 query blocks = 65,536 thread blocks pass, one batch more does not.
  const launch = { gpu: 'a100-sxm-80gb', heads: 64, qLen: 16384, blockQ: 128, blockK: 128, partition: 'fa2' };
  core.gpuWorkPartition({ ...launch, batch: 8 });
  assert.throws(() => core.gpuWorkPartition({ ...launch, batch: 9 }), /thread blocks exceed/);
  const { page, problems, close } = await site.open(`${VIZ}#heads=64&n=16384`);
  const batch = page.getByRole('slider', { name: 'Batch size' });
  assert.equal(await batch.getAttribute('max'), '8');
  await batch.fill('64');  // the range stops at its max
  assert.equal(await page.getByTestId('batch').textContent(), '8');
  assert.equal(await page.getByRole('alert').count(), 0);
  // At batch 8 the larger settings are not offered: heads up to 64 at N = 16,384, and no more.
  await page.getByRole('button', { name: 'More controls' }).click().catch(() => {});
  const offered = (name) => page.getByRole('combobox', { name }).locator('option').allTextContents();
  assert.deepEqual(await offered('Heads'), ['8', '12', '16', '32', '64']);
  await page.getByRole('combobox', { name: 'Sequence length N' }).selectOption('8192');
  await batch.fill('16');
  assert.deepEqual(await offered('Sequence length N'), ['1,024', '2,048', '4,096', '8,192']);
  assert.deepEqual(await offered('Heads'), ['8', '12', '16', '32', '64']);
  await page.getByRole('combobox', { name: 'Heads' }).selectOption('16');
  await batch.fill('64');
  assert.equal(await page.getByTestId('batch').textContent(), '64');
  assert.deepEqual(await offered('Heads'), ['8', '12', '16']);
  assert.equal(await page.getByRole('alert').count(), 0);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard: Home, arrows, End and Space step through the waves; focus is visible', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const exp = expected();
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('Home');
  assert.equal((await settledHash(page)).step, '0');
  await checkBusy(page, exp, 0);
  assert.match(await page.getByTestId('narration').textContent(), /Press Play/);
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '1');
  // After FA2's first wave (64 tiles of 128 x 128 at N = 8192) the second wave has taken over.
  assert.match(await page.getByTestId('narration').textContent(), /^Tile 64 of 4,096: FA2 has 108 SMs busy/);
  await page.keyboard.press('End');
  assert.equal((await settledHash(page)).step, '11');  // 10 FA2 waves and 1 FA1 wave: 11 ends after 0
  await checkBusy(page, exp, exp.stops.length - 1);  // the end: every block has finished
  await checkDoneNarration(page, exp);
  // Two stops back: FA2's last wave, which fills only part of the SMs.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  const lastWave = exp.stops.indexOf(exp.fa2.waveStartTiles[exp.fa2.waves - 1]);
  assert.equal((await settledHash(page)).step, String(lastWave));
  await checkBusy(page, exp, lastWave);
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
  await page.waitForFunction(() => (new URLSearchParams(location.hash.slice(1)).get('step') ?? '0') !== '0', null, { timeout: 4000 });
  // A jump lands on a wave's end (a whole number of 64-tile waves), never in between.
  assert.match(await page.getByTestId('narration').textContent(), /^Tile (\d+) of/);
  const tile = Number((await page.getByTestId('narration').textContent()).match(/^Tile ([\d,]+)/)[1].replace(/,/g, ''));
  assert.equal(tile % 64, 0, `tile ${tile}`);
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
