// Browser tests of the gpu-memory-hierarchy visualization: the stopwatch, byte counters and preset
// numbers equal the core's (computed here in Node from the same module), the URL hash restores the
// configuration and the clock, a configuration the core rejects shows its message, keyboard,
// reduced motion, 375 px; prints the p95 time of a scripted sweep of the controls.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from '../wasm/load.mjs';
import { assertFoldsBehind, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';
import { fmtBytes, fmtSeconds } from './figure-format.mjs';

const VIZ = '/visualizations/gpu-memory-hierarchy/';
const SWEEP = sweepFor('gpu-memory-hierarchy');
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('flash'); });
after(() => site.close());

const predict = (gpu, n, d, heads, algorithm) =>
  core.predictAttention({ gpu, batch: 1, heads, qLen: n, headDim: d, algorithm, precision: 'fp16' });
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.abs(b), `${what}: ${a} != ${b}`);
const seconds = async (page, id) => Number(await page.getByTestId(id).getAttribute('data-seconds'));
// Vendor units as the figure prints them (fmtDecimal in its model.ts, which the test cannot load):
// three significant digits after an SI prefix, as in "2.04 TB/s" and "80.0 GB".
const decimal = (x, unit) => {
  const e = Math.min(Math.floor(Math.log10(x) / 3), 5);
  return `${(x / 1000 ** e).toPrecision(3)} ${['', 'k', 'M', 'G', 'T', 'P'][e]}${unit}`;
};
// The stopwatch's readouts of the run on screen, against the core's prediction `r` of it.
async function assertRunReadouts(page, r, what) {
  near(await seconds(page, 'total-time'), r.timeS, `${what} time`);
  assert.equal(await page.getByTestId('total-time').textContent(), fmtSeconds(r.timeS));
  near(Number(await page.getByTestId('hbm-total').getAttribute('data-bytes')), r.hbmBytes, `${what} HBM bytes`);
  assert.equal(await page.getByTestId('hbm-total').textContent(), decimal(r.hbmBytes, 'B'));
  assert.equal(await page.getByTestId('bound').textContent(), r.bound === 'memory' ? 'HBM bandwidth' : 'tensor cores');
  assert.equal(await page.getByTestId('intensity').textContent(), r.arithmeticIntensity.toFixed(0));
  assert.equal(await page.getByTestId('busy').textContent(), `${(100 * r.computeTimeS / r.timeS).toFixed(0)}%`);
}
// Bytes an HBM bar holds (its meter's value; the visible counter glides towards it).
const barBytes = async (page, name) => Number(await page.getByRole('meter', { name }).getAttribute('aria-valuenow'));
// The ruler's note: standard attention's S and P of one layer against the whole HBM, and
// FlashAttention's FP16 S tile (its block sizes from the core) against one SM's SRAM.
async function assertRulerNote(page, gpu, n, d, heads) {
  const preset = core.gpuPreset(gpu), fl = predict(gpu, n, d, heads, 'flash');
  const sp = 2 * core.scoreMatrixFootprint({ seqLen: n, heads, elementBytes: 2 }).perLayerBytes;
  const tile = fl.blockQ * fl.blockK * 2;
  assert.equal(await page.getByTestId('sp-bytes').textContent(), fmtBytes(sp));
  const note = await page.locator('.ruler-note').textContent();
  assert.ok(note.includes(sp > preset.hbmBytes.value ? 'more than the whole HBM' : 'far beyond SRAM, so it lives in HBM'), note);
  assert.ok(note.includes(`S tile (${fl.blockQ} × ${fl.blockK}): ${fmtBytes(tile)},${tile <= preset.sramPerSmBytes.value ? ' small enough' : ' larger than'}`), note);
}
// The HBM and L2 rows of the level list, against the preset.
async function assertHbmAndL2(page, preset) {
  assert.equal(await page.getByTestId('bw-hbm').textContent(), decimal(preset.hbmBytesPerS.value, 'B/s'));
  assert.equal(await page.getByTestId('cap-hbm').textContent(), decimal(preset.hbmBytes.value, 'B'));
  assert.equal(await page.getByTestId('cap-l2').textContent(), `${(preset.l2Bytes.value / 2 ** 20).toFixed(0)} MiB`);
}

test('totals, bound and preset numbers are the core\'s; FlashAttention mode switches them', async () => {
  const { page, problems, close } = await site.open(VIZ);
  // Opens at the first step, saying what to look for (shared/Narration.tsx); End shows the run's end.
  assert.match(await page.getByTestId('narration').textContent(), /^Look for: /);
  await page.keyboard.press('End');
  const std = predict('a100-sxm-80gb', 4096, 64, 16, 'standard');
  const fl = predict('a100-sxm-80gb', 4096, 64, 16, 'flash');
  await assertRunReadouts(page, std, 'standard');
  assert.equal(await page.getByTestId('speedup').textContent(),
    `${(std.timeS / fl.timeS).toFixed(1)}× faster, ${(std.hbmBytes / fl.hbmBytes).toFixed(1)}× fewer bytes`);
  // The stopwatch's "ridge N" has no test id; the narration quotes the same ridge once the run is done.
  const ridge = core.ridgePoint({ gpu: 'a100-sxm-80gb', precision: 'fp16' });
  assert.match(await page.getByTestId('narration').textContent(), new RegExp(`the ridge of ${ridge.toFixed(0)},`));
  await assertRulerNote(page, 'a100-sxm-80gb', 4096, 64, 16);
  // The preset's capacities, with the SM count.
  const a100 = core.gpuPreset('a100-sxm-80gb');
  assert.equal(await page.getByTestId('cap-sram').textContent(), `${a100.sramPerSmBytes.value / 1024} KiB × ${a100.smCount.value} SMs`);
  assert.equal(await page.getByTestId('cap-registers').textContent(), `${a100.registerFilePerSmBytes.value / 1024} KiB × ${a100.smCount.value} SMs`);
  // Bandwidths per level: the core's derived SRAM aggregate (128 B/clock/SM x 108 x 1410 MHz =
  // 19.5 TB/s), HBM, the PCIe host link; L2 bandwidth is not published.
  assert.equal(await page.getByTestId('bw-sram').textContent(), `${(a100.sramBytesPerS.value / 1e12).toFixed(1)} TB/s`);
  assert.equal(await page.getByTestId('bw-host').textContent(), `${(a100.hostLinkBytesPerS.value / 1e9).toFixed(1)} GB/s`);
  assert.equal(a100.l2BytesPerS.value, null);
  assert.equal(await page.getByTestId('bw-l2').textContent(), 'not published');
  await assertHbmAndL2(page, a100);
  // The SRAM / HBM gap is the core's ratio, and the lanes' dot speeds grow with log bandwidth.
  const ratio = Number(await page.getByTestId('sram-hbm-ratio').getAttribute('data-ratio'));
  near(ratio, a100.sramBytesPerS.value / a100.hbmBytesPerS.value, 'SRAM/HBM ratio');
  assert.equal(await page.getByTestId('sram-hbm-ratio').textContent(), `${ratio.toFixed(1)}×`);
  near(Number(await page.getByTestId('hbm-host-ratio').getAttribute('data-ratio')), a100.hbmBytesPerS.value / a100.hostLinkBytesPerS.value, 'HBM/host ratio');
  const speed = async (id) => Number(await page.getByTestId(`lane-${id}`).getAttribute('data-speed'));
  const [vs, vh, vp] = [await speed('sram'), await speed('hbm'), await speed('host')];
  assert.ok(vs > vh && vh > vp && vp > 0, `lane speeds ${vs} ${vh} ${vp}`);
  near(vs / vh, Math.log10(a100.sramBytesPerS.value / 1e9) / Math.log10(a100.hbmBytesPerS.value / 1e9), 'log-speed ratio');
  // Focusing a level shows its sources.
  await page.getByTestId('level-l2').focus();
  assert.match(await page.getByTestId('sources').textContent(), new RegExp(a100.l2Bytes.source.slice(0, 40).replace(/[()]/g, '\\$&')));
  assert.ok((await page.getByTestId('sources').textContent()).includes(a100.l2BytesPerS.source));
  await page.getByTestId('level-sram').focus();
  assert.ok((await page.getByTestId('sources').textContent()).includes(a100.sramBytesPerS.source));
  await page.getByRole('radio', { name: 'FlashAttention' }).click();
  await assertRunReadouts(page, fl, 'flash');
  assert.equal((await settledHash(page)).mode, 'flash');
  await screenshot(page, 'gpu-memory-hierarchy-1280');
  // At the longest N, one layer's S and P no longer fit in the A100's HBM.
  await page.getByRole('slider', { name: 'Sequence length N' }).fill('7');
  assert.equal((await settledHash(page)).n, '65536');
  await assertRulerNote(page, 'a100-sxm-80gb', 65536, 64, 16);
  assert.deepEqual(problems, []);
  await close();
});

test('the URL hash restores GPU, N, d, heads, mode and the clock; the elapsed time is the stop\'s', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#gpu=h100-sxm&n=8192&d=128&heads=8&mode=standard&step=5`);
  const std = predict('h100-sxm', 8192, 128, 8, 'standard');
  assert.equal(await page.getByTestId('n').textContent(), '8,192');
  near(await seconds(page, 'total-time'), std.timeS, 'H100 standard time');
  // Stop 5 of the 20 equal slices of the standard run (flash ends later than slice 5 here).
  const fl = predict('h100-sxm', 8192, 128, 8, 'flash');
  const stop5 = (5 * std.timeS) / 20;
  assert.ok(fl.timeS > stop5);
  near(await seconds(page, 'elapsed'), stop5, 'elapsed at step 5');
  // The bars hold the run's HBM bytes times the share of it elapsed.
  near(await barBytes(page, 'HBM read'), std.hbmBytesRead * (stop5 / std.timeS), 'standard read at step 5');
  near(await barBytes(page, 'HBM written'), std.hbmBytesWritten * (stop5 / std.timeS), 'standard written at step 5');
  const h100 = core.gpuPreset('h100-sxm');
  assert.equal(await page.getByTestId('cap-sram').textContent(), `${h100.sramPerSmBytes.value / 1024} KiB × ${h100.smCount.value} SMs`);
  near(Number(await page.getByTestId('sram-hbm-ratio').getAttribute('data-ratio')), h100.sramBytesPerS.value / h100.hbmBytesPerS.value, 'H100 SRAM/HBM ratio');
  assert.equal(await page.getByTestId('bw-host').textContent(), '128 GB/s');
  await assertHbmAndL2(page, h100);
  await assertRulerNote(page, 'h100-sxm', 8192, 128, 8);
  assert.deepEqual(await settledHash(page), { gpu: 'h100-sxm', n: '8192', d: '128', heads: '8', mode: 'standard', step: '5' });
  // Mid-run, the narration quotes the bytes moved so far.
  assert.match(await page.getByTestId('narration').textContent(), /read from HBM and .* written so far/);
  // Switching to FlashAttention keeps the clock: the same instant is a larger share of its
  // shorter run.
  await page.getByRole('radio', { name: 'FlashAttention' }).click();
  near(await barBytes(page, 'HBM read'), fl.hbmBytesRead * (stop5 / fl.timeS), 'flash read at step 5');
  near(await barBytes(page, 'HBM written'), fl.hbmBytesWritten * (stop5 / fl.timeS), 'flash written at step 5');
  assert.deepEqual(problems, []);
  await close();
});

test('a configuration the core rejects shows its message and the figure keeps working', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#gpu=tpu-v9&step=0`);
  await page.getByRole('alert').waitFor();
  // An unknown GPU in a link: a plain sentence, and the default GPU drawn meanwhile.
  assert.match(await page.getByRole('alert').textContent(), /does not know \(“tpu-v9”\), so it shows the NVIDIA A100/);
  assert.doesNotMatch(await page.getByRole('alert').textContent(), /valid ids/);
  near(await seconds(page, 'total-time'), predict('a100-sxm-80gb', 4096, 64, 16, 'standard').timeS, 'the default GPU');
  await page.getByRole('radio', { name: 'H100' }).click();
  assert.equal(await page.getByRole('alert').count(), 0);
  near(await seconds(page, 'total-time'), predict('h100-sxm', 4096, 64, 16, 'standard').timeS, 'after recovery');
  // heads = 0 is rejected by the core's argument check.
  await page.getByRole('spinbutton', { name: 'Attention heads' }).fill('0');
  await page.getByRole('spinbutton', { name: 'Attention heads' }).dispatchEvent('change');
  assert.match(await page.getByRole('alert').textContent(), /heads/);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard: Home, arrows, End and Space drive the clock; focus is visible', async () => {
  const { page, problems, close } = await site.open(VIZ);
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('Home');
  assert.equal((await settledHash(page)).step, '0');
  assert.equal(await seconds(page, 'elapsed'), 0);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('End');
  const last = Number((await settledHash(page)).step);
  assert.ok(last >= 20);
  await page.keyboard.press('Home');
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => Number(new URLSearchParams(location.hash.slice(1)).get('step')) >= 3, null, { timeout: 5000 });
  await page.keyboard.press(' ');
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none');
  assert.deepEqual(problems, []);
  await close();
});

test('reduced motion: no entry animation, Play jumps from stop to stop', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=0`, { reducedMotion: 'reduce' });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.viz')).animationName), 'none');
  await page.getByRole('button', { name: /^Play/ }).click();
  await page.waitForFunction(() => (new URLSearchParams(location.hash.slice(1)).get('step') ?? '0') !== '0', null, { timeout: 4000 });
  await page.getByRole('button', { name: /^Pause/ }).click();
  // Snapped: the elapsed time is exactly a stop (of 20), not in between; 20 jumps would take
  // longer than reduced-motion playback may (stepper.ts), so a jump may pass over a stop.
  const stop = Number((await settledHash(page)).step);
  assert.ok(stop >= 1 && stop <= 2, `first jump to stop ${stop}`);
  const std = predict('a100-sxm-80gb', 4096, 64, 16, 'standard');
  near(await seconds(page, 'elapsed'), (stop * std.timeS) / 20, `elapsed at stop ${stop}`);
  assert.deepEqual(problems, []);
  await close();
});

// The SM grid's canvas keeps the backing store of the tallest chip shown so far and is clipped to
// the chip on screen: a GPU change repaints it in place instead of allocating a new store.
test('a GPU change repaints the SM grid into the same canvas store, clipped to the chip', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#gpu=a100-sxm-80gb`, { reducedMotion: 'reduce' });
  const grid = () => page.evaluate(() => {
    const canvas = document.querySelector('.gpu-sms'), clip = canvas.parentElement.getBoundingClientRect();
    const chip = document.querySelector('.gpu-chip').getBoundingClientRect();
    return { store: [canvas.width, canvas.height], clip: [clip.width, clip.height], chip: [chip.width + 1, chip.height + 1],
      label: document.querySelector('.gpu-chip-label').textContent };
  });
  const shown = [];
  for (const gpu of ['A100', 'H100', 'A100', 'H100']) {
    await page.getByRole('radio', { name: gpu }).click();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    shown.push(await grid());
  }
  const dpr = await page.evaluate(() => Math.min(window.devicePixelRatio || 1, 2));
  assert.match(shown[0].label, /A100.*: 108 SMs/);
  assert.match(shown[1].label, /H100.*: 132 SMs/);
  assert.notEqual(shown[0].chip[1], shown[1].chip[1], 'the two GPUs have chips of different heights');
  for (const g of shown) assert.deepEqual(g.clip, g.chip, `the grid is clipped to the chip (${g.label})`);
  const tallest = Math.max(shown[0].chip[1], shown[1].chip[1]);
  for (const g of shown) assert.deepEqual(g.store, [Math.round(g.chip[0] * dpr), Math.round(tallest * dpr)], `one store for both GPUs (${g.label})`);
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows and secondary controls fold', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=8`, { viewport: { width: 375, height: 812 } });
  await assertFoldsBehind(page, page.getByRole('spinbutton', { name: 'Attention heads' }), 'More controls');
  await screenshot(page, 'gpu-memory-hierarchy-375');
  assert.deepEqual(problems, []);
  await close();
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () => printInteractionTime(site, SWEEP));
