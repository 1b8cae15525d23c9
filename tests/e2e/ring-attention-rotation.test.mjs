// Browser tests of the ring-attention rotation figure: every drawn bar's times and pixel extent,
// the K/V shard on every bar and device, the merge table, the counters and the narration are the
// core's ringAttentionTiming and ringAttentionTrace; the controls, the URL hash, a rejected hash,
// the keyboard, reduced motion and a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { fmt, fmtSeconds } from './figure-format.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/ring-attention-rotation/';
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('inference'); });
after(() => site.close());

// What the figure must show for (seqLen, devices, link GB/s): Llama 3.1 70B's heads from its preset,
// on the H100 SXM at BF16, and the merge of a 6-tokens-per-device stand-in (head dim 16, seed 1).
function expected(seqLen, devices, linkGBs) {
  const kv = core.kvCacheBytes({ model: 'llama3-70b', contextTokens: 1 });
  const timing = core.ringAttentionTiming({ devices, seqLen, linkBytesPerS: linkGBs * 1e9, qHeads: kv.qHeads, kvHeads: kv.kvHeads,
    headDim: kv.headDim, gpu: 'h100-sxm', precision: 'bf16', elementBytes: 2 });
  const trace = core.ringAttentionTrace({ devices, qLen: 6 * devices, headDim: 16, seed: 1 });
  return { timing, trace, devices };
}

// Every bar of the timeline as its canvas draws it (listed in data-bars): kind, lane, times, x extent, label.
const drawnBars = async (page) => JSON.parse(await page.getByTestId('timeline-bars').getAttribute('data-bars'));

async function assertTimeline(page, e) {
  const { timing, trace, devices: P } = e;
  const bars = await drawnBars(page);
  let start = 0;
  for (let t = 0; t < P; t++) {
    const s = timing.steps[t];
    for (let d = 0; d < P; d++) {
      const lane = bars.filter((b) => b.lane === `lane-${d}`);
      const compute = lane.filter((b) => b.kind === 'compute')[t];
      assert.ok(Math.abs(compute.t0 - start) <= 1e-12 * timing.ringTimeS, `compute bar ${d}, ${t} starts with its step`);
      assert.ok(Math.abs(compute.t1 - compute.t0 - s.computeTimeS) <= 1e-12 * s.computeTimeS, `compute bar ${d}, ${t} lasts its compute`);
      if (compute.label !== null) assert.equal(compute.label, `KV ${trace.steps[t * P + d].kvShard}`);
      assert.equal(trace.steps[t * P + d].kvShard, (d - t + P) % P);
      const send = lane.filter((b) => b.kind === 'send')[t];
      if (s.sendTimeS > 0) assert.ok(Math.abs(send.t1 - send.t0 - s.sendTimeS) <= 1e-12 * s.sendTimeS, `send bar ${d}, ${t}`);
      else assert.equal(send, undefined, 'the last step sends nothing');
    }
    start += s.stepTimeS;
  }
  assert.ok(Math.abs(start - timing.ringTimeS) <= 1e-12 * timing.ringTimeS);
  const gather = bars.filter((b) => b.lane === 'lane-allgather');
  assert.equal(gather[0].t1, timing.allgatherCommTimeS);
  assert.equal(gather[1].t1, timing.allgatherTimeS);
  // Pixels are proportional to time on one axis: x = a + b t for every bar.
  const b = gather[1].w / (gather[1].t1 - gather[1].t0), a = gather[0].x0;
  for (const bar of bars) {
    assert.ok(Math.abs(bar.x0 - (a + b * bar.t0)) < 0.5 && Math.abs(bar.w - b * (bar.t1 - bar.t0)) < 0.5, `${bar.kind} bar at ${bar.t0} s is where its time is`);
  }
  assert.equal(await page.getByTestId('ring-end').textContent(), `ring ${fmtSeconds(timing.ringTimeS)}`);
  assert.equal(await page.getByTestId('gather-end').textContent(), `all-gather ${fmtSeconds(timing.allgatherTimeS)}`);
  const total = await page.getByTestId('total').textContent();
  assert.ok(total.startsWith(`${fmtSeconds(timing.ringTimeS)} vs ${fmtSeconds(timing.allgatherTimeS)}`), total);
  const s0 = timing.steps[0], hidden = s0.computeTimeS >= s0.sendTimeS;
  const overlap = await page.getByTestId('overlap').textContent();
  assert.ok(overlap.startsWith(`${fmtSeconds(s0.computeTimeS)} ${hidden ? '≥' : '<'} ${fmtSeconds(s0.sendTimeS)}: ${hidden ? 'hidden' : 'exposed'}`), overlap);
  assert.match(overlap, new RegExp(`= ${Math.round(timing.minShardTokensToHide).toLocaleString('en-US')} tokens`));
}

// The merge table and the devices' resident shards at clock stop `step`.
async function assertMerge(page, e, step) {
  const { trace, devices: P } = e;
  for (let t = 0; t < P; t++) {
    const row = page.getByTestId(`merge-row-${t}`), s = trace.steps[t * P];
    const cells = await Promise.all(['block-m', 'block-l', 'run-m', 'run-l'].map((id) => row.getByTestId(id).textContent()));
    assert.deepEqual(cells, t < step ? [fmt(s.blockM[0]), fmt(s.blockL[0]), fmt(s.m[0]), fmt(s.l[0])] : ['·', '·', '·', '·'], `merge row ${t} at stop ${step}`);
  }
  const shown = Math.min(step, P - 1);
  const held = (await page.getByTestId('ring').getAttribute('data-kv')).split(' ').map(Number);
  assert.deepEqual(held, Array.from({ length: P }, (_, d) => trace.steps[shown * P + d].kvShard), `shards held at stop ${step}`);
  const error = await page.getByTestId('error').textContent();
  if (step === P) {
    assert.equal(error, `max error ${trace.maxAbsError.toExponential(1).replace('-', '−')}`);
    assert.ok(trace.maxAbsError < 1e-5);
    const narration = await page.getByTestId('narration').textContent();
    assert.match(narration, /^Rotation done in /);
    assert.ok(narration.includes(`m = ${fmt(trace.steps[(P - 1) * P].m[0])}, ℓ = ${fmt(trace.steps[(P - 1) * P].l[0])}`));
  } else {
    assert.equal(error, `after step ${P}`);
  }
}

test('opens at the start; every bar, shard and merge state is the core\'s; Step forward walks the rotation', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const e = expected(131072, 4, 50);  // Part 4's worked example
  assert.equal((await settledHash(page)).step, '0');
  await assertTimeline(page, e);
  const labels = (await drawnBars(page)).filter((b) => b.kind === 'compute' && b.label !== null);
  assert.equal(labels.length, 16, 'at 1280 px every compute bar of the default ring names its shard');
  for (let step = 0; step <= 4; step++) {
    await assertMerge(page, e, step);
    // The playhead stands at the start of the step about to run (at the ring's end after the last).
    const playhead = Number(await page.getByTestId('playhead').getAttribute('x1'));
    const bars = (await drawnBars(page)).filter((b) => b.lane === 'lane-0' && b.kind === 'compute');
    const at = step < 4 ? bars[step].x0 : bars[3].x0 + bars[3].w;
    assert.ok(Math.abs(playhead - at) < 0.5, `playhead at stop ${step}: ${playhead} vs ${at}`);
    if (step > 0 && step < 4) {
      const s = e.timing.steps[step - 1];
      assert.match(await page.getByTestId('narration').textContent(), new RegExp(`^Step ${step} took ${fmtSeconds(s.stepTimeS)}`));
    }
    if (step < 4) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  assert.equal((await settledHash(page)).step, '4');
  await screenshot(page, 'ring-attention-rotation-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the controls rebuild the ring from the core and the hash restores it', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seq=16384&devices=8&link=25&step=8`);
  let e = expected(16384, 8, 25);
  await assertTimeline(page, e);
  await assertMerge(page, e, 8);
  assert.equal(await page.getByTestId('overlap').getAttribute('class'), e.timing.steps[0].computeTimeS >= e.timing.steps[0].sendTimeS ? 'ok' : 'bad');
  // A new setting opens the new ring at its start.
  await page.locator('select[aria-label^="Link bandwidth"]').selectOption('450');
  e = expected(16384, 8, 450);
  await assertTimeline(page, e);
  await assertMerge(page, e, 0);
  await page.locator('[role="radiogroup"][aria-label="Devices"] [data-value="3"]').click();
  // The choice shows at once: a button transitions only its hover lift (a transform, which the
  // compositor runs), not its colours, which would repaint the controls frame by frame after a click.
  assert.deepEqual(await page.locator('[role="radiogroup"][aria-label="Devices"] button, select').evaluateAll((els) =>
    [...new Set(els.map((e) => getComputedStyle(e).transitionProperty))]), ['transform']);
  await page.locator('select[aria-label="Sequence length N"]').selectOption('1048576');
  e = expected(1048576, 3, 450);
  await assertTimeline(page, e);
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('End');
  await assertMerge(page, e, 3);
  assert.deepEqual(await settledHash(page), { seq: '1048576', devices: '3', link: '450', step: '3' });
  assert.deepEqual(problems, []);
  await close();
});

test('a hash outside the controls\' choices says so and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seq=65536&devices=9&link=100`);
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /devices must be a whole number from 2 to 8, got 9/);
  await page.getByRole('button', { name: /Step forward/ }).click();
  await assertMerge(page, expected(131072, 4, 50), 1);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard steps and plays; reduced motion still reaches the end of the rotation', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  // The hash follows the figure 150 ms after it settles: waited for, since a loaded machine lags.
  const hashStep = (step) => page.waitForFunction((s) => new URLSearchParams(location.hash.slice(1)).get('step') === s, String(step), { timeout: 10000 });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await hashStep(2);
  await page.keyboard.press('Home');
  await hashStep(0);
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="error"]').textContent.startsWith('max error'), null, { timeout: 30000 });
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows; the ring and the merge fold behind toggles', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#seq=65536&devices=8&link=25&step=3`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  assert.equal(await page.getByTestId('ring').isVisible(), false);
  await page.getByRole('button', { name: 'Merge of one query' }).click();
  await assertMerge(page, expected(65536, 8, 25), 3);
  await screenshot(page, 'ring-attention-rotation-375');
  assert.deepEqual(problems, []);
  await close();
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('ring-attention-rotation')));
