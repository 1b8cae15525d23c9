// Browser tests of the complexity-scaling chart: the dots, the readout and the narration at N are
// the core's complexityPoint values; the curves are drawn through the core's complexityCurves
// points; the A100 line comes from the core's GPU presets and the markers from its time line. The
// N slider, the metric, the marker toggles, the URL hash, a rejected hash, the keyboard (Step walks
// N up by decades), reduced motion and a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/attention-complexity-scaling/';
const METHODS = ['dense', 'sparse', 'lsh', 'linformer', 'performer', 'flash'];
const PARAMS = { headDim: 64, valueDim: 64, bytesPerElement: 2 };
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('classic'); });
after(() => site.close());

const point = (method, seqLen) => core.complexityPoint({ method, seqLen, ...PARAMS });
const metricOf = (p, metric) => (metric === 'memory' ? p.peakBytes : p.flops);
function fmtBytes(b) {
  let v = b, u = 0;
  while (v >= 1024 && u < 4) { v /= 1024; u += 1; }
  return `${u === 0 ? Math.round(v) : v.toFixed(1)} ${['B', 'KiB', 'MiB', 'GiB', 'TiB'][u]}`;
}
function fmtCount(x) {
  if (Math.abs(x) < 10000) return Math.round(x).toLocaleString('en-US');
  let v = Math.abs(x), u = 0;
  while (v >= 999.5 && u < 6) { v /= 1000; u += 1; }
  return `${v.toPrecision(3)} ${['', 'k', 'M', 'G', 'T', 'P', 'E'][u]}`;
}

// The dots' values and heights: each dot carries its value, and the dots' order in height is the
// values' order on the log axis (heights are checked against the axis in the next test).
async function assertDots(page, n, metric) {
  assert.equal(await page.getByTestId('n').textContent(), n.toLocaleString('en-US'));
  const show = metric === 'memory' ? fmtBytes : fmtCount;
  for (const m of METHODS) {
    const want = metricOf(point(m, n), metric);
    assert.equal(Number(await page.getByTestId(`dot-${m}`).getAttribute('data-value')), want, `${m} dot at N = ${n}`);
    assert.equal(await page.getByTestId(`value-${m}`).textContent(), show(want), `${m} readout at N = ${n}`);
  }
}

// The chart's log axes, read from its drawn ticks: y pixel of a value, x pixel of an N.
async function axes(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('.chart');
    const dense = svg.querySelector('path[data-method="dense"]');
    const first = dense.getPointAtLength(0), last = dense.getPointAtLength(dense.getTotalLength());
    const dots = Object.fromEntries([...document.querySelectorAll('.chart-overlay .dot')].map((d) => [d.dataset.testid, { cx: +d.getAttribute('cx'), cy: +d.getAttribute('cy'), v: +d.dataset.value }]));
    const a100 = svg.querySelector('[data-testid="a100-line"]');
    return { x0: first.x, x1: last.x, denseY0: first.y, denseY1: last.y, dots, a100Y: a100 ? +a100.getAttribute('y1') : null };
  });
}

test('opens at N = 256 with memory; dots and readout are the core\'s; Step walks N up by decades', async () => {
  const { page, problems, close } = await site.open(VIZ);
  assert.match(await page.getByTestId('narration').textContent(), /^Look for:/);
  await assertDots(page, 256, 'memory');
  for (const n of [1000, 10000, 100000, 1000000]) {
    await page.getByRole('button', { name: /Step forward/ }).click();
    await assertDots(page, n, 'memory');
  }
  // At a million tokens: dense scores take 2 TB (25 A100s); FlashAttention keeps 2N + one 64 x 64 tile.
  assert.equal(point('dense', 1e6).peakBytes, 2e12);
  assert.equal(point('flash', 1e6).peakBytes, (2e6 + 4096) * 2);
  const text = await page.getByTestId('narration').textContent();
  assert.match(text, /^N = 1,000,000: dense attention stores N² scores, 1\.8 TiB at FP16 for one head of one layer, 25\.0 times one A100's 80 GB\./);
  assert.ok(text.includes(`FlashAttention, exact, keeps ${fmtBytes(point('flash', 1e6).peakBytes)}`), text);
  assert.equal((await settledHash(page)).n, '1000000');
  await screenshot(page, 'complexity-scaling-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the curves and dots sit on the log axes; the A100 line is at the core\'s 80 GB', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#n=31623`);
  const a = await axes(page);
  const curves = core.complexityCurves({ nMin: 256, nMax: 1e6, points: 96, ...PARAMS });
  const dense = curves[0];
  // y is linear in log10(value): the dense curve's ends fix the axis; every dot and the A100 line lie on it.
  const v0 = dense.peakBytes[0], v1 = dense.peakBytes[dense.peakBytes.length - 1];
  const yOf = (v) => a.denseY0 + ((Math.log10(v) - Math.log10(v0)) / (Math.log10(v1) - Math.log10(v0))) * (a.denseY1 - a.denseY0);
  const xOf = (n) => a.x0 + ((Math.log10(n) - Math.log10(256)) / (Math.log10(1e6) - Math.log10(256))) * (a.x1 - a.x0);
  for (const m of METHODS) {
    const d = a.dots[`dot-${m}`];
    assert.ok(Math.abs(d.cy - yOf(point(m, 31623).peakBytes)) < 0.5, `${m}: dot at y ${d.cy}, axis says ${yOf(point(m, 31623).peakBytes)}`);
    assert.ok(Math.abs(d.cx - xOf(31623)) < 0.5);
  }
  const ref = core.memoryReference();
  assert.ok(Math.abs(a.a100Y - yOf(ref.bytes)) < 0.5);
  assert.match(await page.locator('.a100-label').textContent(), /^80 GB: one A100$/);
  // FLOPs: FlashAttention's dot is dense attention's.
  await page.getByRole('radio', { name: 'FLOPs' }).click();
  await assertDots(page, 31623, 'flops');
  const f = await axes(page);
  assert.equal(f.dots['dot-flash'].cy, f.dots['dot-dense'].cy);
  assert.equal(f.a100Y, null);
  assert.match(await page.getByTestId('narration').textContent(), /Reformer's FLOPs grow linearly .* its log N is in the sort by bucket, [\d.]+ [kMG] comparisons here/);
  assert.equal((await settledHash(page)).metric, 'flops');
  assert.deepEqual(problems, []);
  await close();
});

test('marker toggles draw the core\'s models at their context lengths, with sources in the text', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const markers = core.timelineMarkers();
  for (const m of markers) {
    const key = m.model.toLowerCase().replace(/\s+/g, '-');
    await page.getByTestId(`marker-${key}`).waitFor();
  }
  await page.getByRole('checkbox', { name: 'GPT-2' }).uncheck();
  assert.equal(await page.getByTestId('marker-gpt-2').count(), 0);
  assert.deepEqual(await settledHash(page), { metric: 'memory', marks: 'longformer,gemini-1.5-pro', n: '256' });
  const note = await page.getByTestId('sources').textContent();
  for (const m of markers) assert.ok(note.includes(m.source), m.model);
  assert.ok(note.includes(core.memoryReference().source));
  assert.deepEqual(problems, []);
  await close();
});

test('the hash restores N, the metric and the markers; a rejected hash says so and the figure keeps working', async () => {
  let { page, problems, close } = await site.open(`${VIZ}#metric=flops&marks=gemini-1.5-pro&n=4096`);
  await assertDots(page, 4096, 'flops');
  assert.equal(await page.getByTestId('marker-gpt-2').count(), 0);
  await page.getByTestId('marker-gemini-1.5-pro').waitFor();
  assert.deepEqual(problems, []);
  await close();
  ({ page, problems, close } = await site.open(`${VIZ}#n=5000000`));
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /n must be a whole number from 256 to 1,000,000, got 5000000/);
  await page.getByRole('button', { name: /Step forward/ }).click();
  await assertDots(page, 1000, 'memory');
  await close();
  ({ page, problems, close } = await site.open(`${VIZ}#metric=time`));
  assert.match(await page.getByRole('alert').textContent(), /metric must be 'memory' or 'flops', got 'time'/);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard steps and plays; reduced motion still reaches a million', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await assertDots(page, 10000, 'memory');
  await page.keyboard.press('End');
  await assertDots(page, 1000000, 'memory');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="n"]').textContent === '1,000,000', null, { timeout: 30000 });
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows and the chart, narration and controls fit', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#n=100000`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  await screenshot(page, 'complexity-scaling-375');
  assert.deepEqual(problems, []);
  await close();
});

test('the no-script summary states the core\'s numbers', () => {
  const html = readFileSync(new URL('../../site/viz/attention-complexity-scaling/index.html', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  assert.ok(html.includes(`At a million tokens dense attention's scores for one head take ${fmtBytes(point('dense', 1e6).peakBytes)} at FP16, 25 times the 80 GB of one A100`), 'dense');
  assert.ok(html.includes(`FlashAttention, exact, keeps ${fmtBytes(point('flash', 1e6).peakBytes)}`), 'flash');
  const approx = ['sparse', 'lsh', 'linformer', 'performer'].map((m) => point(m, 1e6).peakBytes);
  assert.ok(html.includes(`the approximations keep between ${fmtBytes(Math.min(...approx))} and ${fmtBytes(Math.max(...approx))}`), 'approximations');
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('attention-complexity-scaling')));
