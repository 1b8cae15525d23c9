// Browser tests of the decode-roofline figure: every point drawn, the ridge and the readouts are the
// core's decodeRoofline for each K/V sharing of the preset; the batch slider moves the point toward
// the ridge; model, GPU, context and weights controls, the URL hash, a rejected hash, the keyboard,
// reduced motion and a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { fmtBytes, fmtSeconds } from './figure-format.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/decode-roofline/';
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('inference'); });
after(() => site.close());

// The variants the figure must place: group sizes 1, 2, 4, ... H_q (MHA, GQA, MQA), then MLA.
function expected({ model, gpu, context, batch, weights }) {
  const qHeads = core.modelPreset(model).qHeads.value;
  const common = { model, gpu, contextTokens: context, batch, weights };
  const out = [];
  for (let g = 1; g <= qHeads; g *= 2) {
    if (qHeads % g) continue;
    if (g === 1) out.push(core.decodeRoofline({ ...common, scheme: 'mha' }));
    else if (g === qHeads) out.push(core.decodeRoofline({ ...common, scheme: 'mqa' }));
    else out.push(core.decodeRoofline({ ...common, scheme: 'gqa', gqaGroups: qHeads / g }));
  }
  out.push(core.decodeRoofline({ ...common, scheme: 'mla' }));
  return out;
}

const DEFAULT = { model: 'llama3-70b', gpu: 'h100-sxm', context: 8192, batch: 16, weights: true };

async function assertStep(page, config, step) {
  const rows = expected(config);
  for (let i = 0; i < rows.length; i++) {
    const point = page.getByTestId(`point-${i}`);
    assert.equal(await point.count(), i <= step ? 1 : 0, `point ${i} at step ${step}`);
    if (i <= step) {
      assert.equal(Number(await point.getAttribute('data-intensity')), rows[i].arithmeticIntensity);
      assert.equal(Number(await point.getAttribute('data-attainable')), rows[i].attainableFlopsPerS);
    }
  }
  const s = rows[step];
  assert.equal(Number(await page.getByTestId('roof').getAttribute('data-ridge')), s.ridgePoint);
  assert.equal(await page.getByTestId('bytes').textContent(), fmtBytes(s.bytesRead));
  assert.equal(await page.getByTestId('tpot').textContent(), fmtSeconds(s.memoryTimeS));
  assert.equal(await page.getByTestId('batch').textContent(), String(config.batch));
  return rows;
}

test('opens at MHA; each step places the next group size on the H100 roof, all memory-bound', async () => {
  const { page, problems, close } = await site.open(VIZ);
  assert.match(await page.getByTestId('narration').textContent(), /^Look for:/);
  const rows = expected(DEFAULT);
  assert.equal(rows.length, 8);  // MHA, G = 2 ... 32, MQA, MLA
  for (let step = 0; step < rows.length; step++) {
    await assertStep(page, DEFAULT, step);
    assert.equal(rows[step].bound, 'memory');
    if (step > 0) {
      const n = await page.getByTestId('narration').textContent();
      assert.ok(n.includes(`Reading them takes at least ${fmtSeconds(rows[step].memoryTimeS)} per output token`), n);
      assert.ok(n.includes(`${fmtBytes(rows[step].kvBytesRead)} of cache and ${fmtBytes(rows[step].weightBytesRead)} of weights`), n);
    }
    if (step < rows.length - 1) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  // More sharing, fewer bytes: the intensity rises from MHA to MQA.
  for (let i = 1; i < 7; i++) assert.ok(rows[i].arithmeticIntensity > rows[i - 1].arithmeticIntensity);
  assert.deepEqual(await settledHash(page), { model: 'llama3-70b', gpu: 'h100-sxm', ctx: '8192', batch: '16', weights: '1', step: '7' });
  await screenshot(page, 'decode-roofline-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the batch slider moves the step toward the ridge; KV only, it cannot', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#model=llama3-8b&gpu=h100-sxm&ctx=2048&batch=1&weights=1&step=5`);
  let config = { model: 'llama3-8b', gpu: 'h100-sxm', context: 2048, batch: 1, weights: true };
  let previous = 0;
  const slider = page.locator('input[aria-label="Batch"]');
  for (const [index, batch] of [[0, 1], [7, 16], [13, 128], [19, 1024]]) {
    await slider.fill(String(index));
    config = { ...config, batch };
    const rows = await assertStep(page, config, 5);
    assert.ok(rows[5].arithmeticIntensity > previous);
    previous = rows[5].arithmeticIntensity;
  }
  await page.getByRole('radio', { name: 'KV only' }).click();
  config = { ...config, weights: false };
  const kvOnly = await assertStep(page, config, 5);
  assert.equal(kvOnly[5].arithmeticIntensity, 32);  // MQA on 32 heads: the group size
  assert.deepEqual(problems, []);
  await close();
});

test('model, GPU and context rebuild the figure; MLA crosses the A100\'s ridge', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#model=deepseek-v2&gpu=a100-sxm-80gb&ctx=4096&batch=64&weights=0&step=8`);
  const config = { model: 'deepseek-v2', gpu: 'a100-sxm-80gb', context: 4096, batch: 64, weights: false };
  const rows = await assertStep(page, config, 8);
  assert.equal(rows[8].bound, 'compute');
  assert.match(await page.getByTestId('narration').textContent(), /compute-bound/);
  await page.getByLabel('GPU').selectOption('h100-sxm');
  await assertStep(page, { ...config, gpu: 'h100-sxm' }, 8);
  await page.getByLabel('Context tokens').fill('28');
  await assertStep(page, { ...config, gpu: 'h100-sxm', context: 131072 }, 8);
  await page.getByLabel('Model').selectOption('llama3-8b');  // a new model opens at MHA
  await assertStep(page, { ...config, model: 'llama3-8b', gpu: 'h100-sxm', context: 131072 }, 0);
  assert.deepEqual(problems, []);
  await close();
});

test('a mixture of experts\' weights are named a lower bound, with the preset\'s total; a dense model\'s are not', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#model=deepseek-v2&gpu=h100-sxm&ctx=4096&batch=8&weights=1&step=0`);
  const total = core.modelPreset('deepseek-v2').totalParameters.value.toLocaleString('en-US');
  const note = page.getByTestId('note');
  assert.ok((await note.textContent()).includes(`a mixture of experts: one token’s active weights of ${total}, a lower bound`));
  await page.getByLabel('Model').selectOption('llama3-8b');
  await page.waitForFunction(() => !document.querySelector('[data-testid="note"]').textContent.includes('mixture'));
  assert.match(await note.textContent(), /weights × 2 B/);
  assert.deepEqual(problems, []);
  await close();
});

test('a hash outside the controls\' range says so and the figure keeps working', async () => {
  for (const [hash, message] of [
    ['batch=5000', /batch must be a whole number from 1 to 1,024, got 5000/],
    ['gpu=tpu', /gpu must be one of v100-sxm2-32gb, .*, got tpu/],
    ['ctx=1e9', /context must be a whole number of tokens from 1,024 to 131,072/],
    ['weights=2', /weights must be 0 or 1, got 2/],
  ]) {
    const { page, problems, close } = await site.open(`${VIZ}#${hash}`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), message);
    await page.getByRole('button', { name: /Step forward/ }).click();
    await assertStep(page, DEFAULT, 1);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('keyboard steps and plays; reduced motion reaches MLA', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('Home');
  await page.keyboard.press('k');
  await page.waitForFunction(() => document.querySelector('[data-testid="point-7"]') !== null, null, { timeout: 20000 });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.roofline .point circle')).transitionDuration), '0s');
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#model=llama3-70b&gpu=h100-sxm&ctx=32768&batch=256&weights=1&step=6`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  await assertStep(page, { ...DEFAULT, context: 32768, batch: 256 }, 6);
  await screenshot(page, 'decode-roofline-375');
  assert.deepEqual(problems, []);
  await close();
});

test('the no-script summary states the core\'s Llama 3.1 8B step', () => {
  const html = readFileSync(new URL('../../site/viz/decode-roofline/index.html', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const r = core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1024 });
  assert.ok(html.includes(`reads ${fmtBytes(r.bytesRead)} for ${(r.flops / 1e9).toFixed(1)} GFLOP`));
  assert.ok(html.includes(`${r.arithmeticIntensity.toFixed(2)} FLOP per byte`));
  assert.ok(html.includes(`ridge at ${Math.round(r.ridgePoint)}`));
  assert.ok(html.includes(`at least ${fmtSeconds(r.memoryTimeS)}`));
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('decode-roofline')));
