// Browser tests of the fa3-warp-specialization figure: it shows the core's FA3 pipeline model
// (timings, speed-ups, unit utilisation), switches schedules, restores its state from the URL hash,
// survives a configuration the core rejects, works with the keyboard, reduced motion and at 375 px.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { assertFoldsBehind, printInteractionTime, screenshot, settled, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/fa3-warp-specialization/';
const SWEEP = sweepFor('fa3-warp-specialization');
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('flash'); });
after(() => site.close());

const pipeline = (cfg = {}) => core.fa3Pipeline({ gpu: 'h100-sxm', precision: 'fp16', headDim: 128, consumerWarpgroups: 2, iterations: 4, ...cfg });
const schedule = (p, name) => p.schedules.find((s) => s.name === name);
// The bars the timeline's canvas draws (it lists them in data-bars): op, lane, key block, height,
// and whether the bar is split (it shares part of its time with another op of its warpgroup).
const barsOf = async (page) => JSON.parse(await page.getByTestId('timeline-bars').getAttribute('data-bars'));
const valueOf = async (page, id) => Number(await page.getByTestId(id).locator('[data-value]').getAttribute('data-value'));
// The schedule toggle's labels, which also open the closing narration.
const LABELS = { sequential: 'Synchronous (FA2-style)', intra_overlap: 'Intra-warpgroup overlap', pingpong: 'Ping-pong', pingpong_intra_overlap: 'Ping-pong + overlap (FA3)' };
// The figure's time formats (micros and nanos in site/viz/fa3-warp-specialization/model.ts),
// restated here so a change to the figure's formatting is caught rather than shared.
const micros = (seconds) => `${(seconds * 1e6).toFixed(seconds < 1e-6 ? 3 : 2)} µs`;
const nanos = (seconds) => `${(seconds * 1e9).toFixed(1)} ns`;
// How busy a unit is over the schedule's total, as the stats print it: each segment on the unit
// counts its length times its share of the unit (consumers in lockstep split the tensor cores).
const busyText = (sched, unit) => {
  const busy = sched.segments.filter((s) => s.unit === unit).reduce((a, s) => a + (s.endS - s.startS) * s.unitShare, 0) / sched.totalS;
  return `${(busy * 100).toFixed(0)}%`;
};
const UNITS = ['tensor_cores', 'special_functions', 'tma'];
// What the narration says once the clock reaches the end: the total and, against the synchronous
// schedule, the speed-up and the steady-state time per key block.
const closingNarration = (p, name, iterations) => {
  const shown = schedule(p, name), seq = schedule(p, 'sequential');
  const verdict = name === 'sequential' ? 'Switch the schedule to see the same work overlap.'
    : `${shown.speedup >= 1 ? `${shown.speedup.toFixed(2)}× faster than` : 'slower than'} the synchronous ${micros(seq.totalS)}; in the steady state one key block takes ${micros(shown.steadyIterationS)} instead of ${micros(seq.steadyIterationS)} (${shown.steadySpeedup.toFixed(2)}×).`;
  return `${LABELS[name]}: ${iterations} key blocks finish after ${micros(shown.totalS)} — ${verdict}`;
};
// The op-times table (one key block, one consumer) and the per-SM rates line. The table's rows are
// found by their headers; the rates line has no test id or name of its own, so it is looked for as
// a whole sentence in the stats panel.
async function assertOpTimesAndRates(page, p) {
  const cell = (header) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: header, exact: true }) }).getByRole('cell');
  const { opTimes, rates } = p;
  assert.equal(await cell('load K, load V').textContent(), `${nanos(opTimes.loadKS)}, ${nanos(opTimes.loadVS)}`);
  assert.equal(await cell('GEMM0 S = QKᵀ').textContent(), nanos(opTimes.gemm0S));
  assert.equal(await cell('softmax (exp)').textContent(), nanos(opTimes.softmaxS));
  assert.equal(await cell('GEMM1 O += PV').textContent(), nanos(opTimes.gemm1S));
  const ratesLine = `One SM: ${(rates.tensorFlopsPerS / 1e12).toFixed(2)} TFLOP/s on tensor cores, ${(rates.expPerS / 1e9).toFixed(1)} G exp/s; K/V tiles shared by ${rates.kvReaders} blocks through L2.`;
  const panel = await page.getByRole('complementary', { name: 'Predicted timings' }).textContent();
  assert.ok(panel.includes(ratesLine), `no "${ratesLine}" in the stats panel`);
}

test('the default view is FA3 on an H100 SXM, with the core\'s total and speed-up', async () => {
  const { page, problems, close } = await site.open(VIZ);
  // Opens at the first step, saying what to look for (shared/Narration.tsx); End shows the run's end.
  assert.match(await page.getByTestId('narration').textContent(), /^Look for: /);
  await page.keyboard.press('End');
  const fa3 = schedule(pipeline(), 'pingpong_intra_overlap');
  assert.ok(Math.abs(await valueOf(page, 'total') - fa3.totalS * 1e6) < 1e-9);
  assert.equal(await settled(page.getByTestId('total')), `${(fa3.totalS * 1e6).toFixed(2)} µs`);  // the text, not only the data
  assert.ok(Math.abs(await valueOf(page, 'speedup') - fa3.speedup) < 1e-12);
  assert.equal(await page.getByTestId('baseline').textContent(), `${(schedule(pipeline(), 'sequential').totalS * 1e6).toFixed(2)} µs`);
  // One bar per segment of the schedule, in its warpgroup's lane.
  const bars = await barsOf(page);
  assert.equal(bars.length, fa3.segments.length);
  assert.deepEqual(bars.map((b) => [b.op, b.lane, b.iteration]), fa3.segments.map((s) => [s.op, s.warpgroup + 1, s.iteration]));
  // Ops of one warpgroup that run at once (a PV GEMM under the next block's exponentials) are
  // drawn split, so neither hides the other; every other bar is whole.
  const overlaps = (s) => fa3.segments.some((o) => o !== s && o.warpgroup === s.warpgroup && o.startS < s.endS && s.startS < o.endS);
  assert.deepEqual(bars.map((b) => b.split), fa3.segments.map(overlaps));
  assert.ok(bars.some((b) => b.split) && bars.some((b) => !b.split));
  assert.equal(await page.getByTestId('narration').textContent(), closingNarration(pipeline(), 'pingpong_intra_overlap', 4));
  await assertOpTimesAndRates(page, pipeline());
  await screenshot(page, 'fa3-warp-specialization-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('switching to the synchronous schedule shows its total and a speed-up of 1', async () => {
  const { page, problems, close } = await site.open(VIZ);
  await page.getByRole('radio', { name: 'Synchronous (FA2-style)' }).click();
  const seq = schedule(pipeline(), 'sequential');
  assert.ok(Math.abs(await valueOf(page, 'total') - seq.totalS * 1e6) < 1e-9);
  assert.equal(await valueOf(page, 'speedup'), 1);
  assert.equal((await settledHash(page)).schedule, 'sequential');
  // Consumers in lockstep share the tensor cores: their GEMM bars are half height.
  const heights = (await barsOf(page)).filter((b) => b.op === 'gemm0').map((b) => b.height);
  assert.ok(heights.length === 8 && heights.every((h) => h === 15), `GEMM0 bar heights ${heights}`);
  for (const unit of UNITS) assert.equal(await page.getByTestId(`busy-${unit}`).textContent(), busyText(seq, unit), unit);
  assert.deepEqual(problems, []);
  await close();
});

test('every schedule at both precisions shows the core\'s steady state, busy shares, total and closing narration', async () => {
  const { page, problems, close } = await site.open(VIZ);
  for (const precision of ['fp16', 'fp8']) {
    await page.getByLabel('Precision').selectOption(precision);
    const p = pipeline({ precision });
    for (const name of Object.keys(LABELS)) {
      await page.getByRole('radio', { name: LABELS[name], exact: true }).click();
      const shown = schedule(p, name), where = `${precision} ${name}`;
      assert.equal(await settled(page.getByTestId('total')), `${(shown.totalS * 1e6).toFixed(2)} µs`, where);
      assert.equal(await settled(page.getByTestId('speedup')), `${shown.speedup.toFixed(2)}×`, where);
      assert.equal(await page.getByTestId('steady').textContent(), `${(shown.steadyIterationS * 1e9).toFixed(0)} ns (${shown.steadySpeedup.toFixed(2)}×)`, where);
      for (const unit of UNITS) assert.equal(await page.getByTestId(`busy-${unit}`).textContent(), busyText(shown, unit), `${where} ${unit}`);
      // A change moves the clock to the end, where the narration sums up.
      assert.equal(await page.getByTestId('narration').textContent(), closingNarration(p, name, 4), where);
    }
  }
  assert.deepEqual(problems, []);
  await close();
});

test('over two ops of one warpgroup that run at once, the hover text names the half under the pointer', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const p = pipeline(), fa3 = schedule(p, 'pingpong_intra_overlap');
  const maxS = Math.max(...p.schedules.map((s) => s.totalS));  // the time axis every schedule shares
  const pv = fa3.segments.find((s) => s.warpgroup === 0 && s.op === 'gemm1' && s.iteration === 0);
  const exp = fa3.segments.find((s) => s.warpgroup === 0 && s.op === 'softmax' && s.iteration === 1);
  const from = Math.max(pv.startS, exp.startS), to = Math.min(pv.endS, exp.endS);
  assert.ok(to > from, 'PV of block 0 and the exponentials of block 1 overlap');
  // The earlier op keeps the top half (listed first when both start together).
  const [top, bottom] = pv.startS < exp.startS || (pv.startS === exp.startS && fa3.segments.indexOf(pv) < fa3.segments.indexOf(exp)) ? [pv, exp] : [exp, pv];
  const lane = await page.locator('.timeline .lane').nth(1).boundingBox();  // consumer 1
  const x = lane.x + ((from + to) / 2 / maxS) * lane.width;
  const titleAt = async (y) => { await page.mouse.move(x, y); return page.getByTestId('timeline-bars').getAttribute('title'); };
  const named = (s) => new RegExp(`^consumer 1: ${{ gemm1: 'GEMM1 O \\+= PV', softmax: 'softmax' }[s.op]}, key block ${s.iteration},`);
  assert.match(await titleAt(lane.y + lane.height * 0.25), named(top));
  assert.match(await titleAt(lane.y + lane.height * 0.75), named(bottom));
  assert.deepEqual(problems, []);
  await close();
});

test('the URL hash restores the configuration and the step', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#gpu=h100-pcie&prec=fp8&d=64&wg=3&blocks=6&schedule=pingpong&step=5`);
  const p = pipeline({ gpu: 'h100-pcie', precision: 'fp8', headDim: 64, consumerWarpgroups: 3, iterations: 6 });
  const pingpong = schedule(p, 'pingpong');
  assert.ok(Math.abs(await valueOf(page, 'total') - pingpong.totalS * 1e6) < 1e-9);
  assert.equal(await page.getByLabel('GPU').inputValue(), 'h100-pcie');
  assert.equal(await page.getByLabel('Head dim').inputValue(), '64');
  assert.equal(await page.locator('.timeline .lane').count(), 4);  // producer + 3 consumers
  // Step 5 is the sixth distinct moment at which a segment starts or ends (0 counts as one).
  const moments = [...new Set([0, ...pingpong.segments.flatMap((s) => [s.startS, s.endS])])].sort((a, b) => a - b);
  assert.ok((await page.getByTestId('narration').textContent()).startsWith(`At ${micros(moments[5])}: producer `));
  await assertOpTimesAndRates(page, p);
  assert.equal((await settledHash(page)).step, '5');
  assert.deepEqual(problems, []);
  await close();
});

test('a configuration the core rejects shows its message and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#d=7`);
  assert.match(await page.getByRole('alert').textContent(), /headDim/);
  await page.getByRole('radio', { name: 'Ping-pong', exact: true }).click();
  assert.ok(Math.abs(await valueOf(page, 'total') - schedule(pipeline(), 'pingpong').totalS * 1e6) < 1e-9);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard: Home rewinds, arrows step, Space plays to the end', async () => {
  const { page, problems, close } = await site.open(VIZ);
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('Home');
  assert.equal((await settledHash(page)).step, '0');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '1');
  for (const key of ['+', '+', ' ']) await page.keyboard.press(key);
  const last = await page.locator('.scrubber input').getAttribute('max');
  await page.waitForFunction((m) => location.hash.includes(`step=${m}`), last, { timeout: 30000 });
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none');
  assert.deepEqual(problems, []);
  await close();
});

test('reduced motion and 375 px: no animation, no horizontal overflow, secondary controls fold', async () => {
  const { page, problems, close } = await site.open(VIZ, { viewport: { width: 375, height: 812 }, reducedMotion: 'reduce' });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.viz')).animationName), 'none');
  await assertFoldsBehind(page, page.getByLabel('Consumers'), 'More controls');
  await screenshot(page, 'fa3-warp-specialization-375');
  assert.deepEqual(problems, []);
  await close();
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () => printInteractionTime(site, SWEEP));
