// Browser tests of the KV-cache evolution figure: every row's blocks, bytes and fit, and the chart's
// memory line and crossings, are the core's decodeRoofline for each scheme variant of the preset;
// model, context and weights controls, the URL hash, a rejected hash, the keyboard, reduced motion and
// a 375 px screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { fmtBytes } from './figure-format.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/kv-cache-evolution/';
const SCHEMES = ['mha', 'mqa', 'gqa', 'mla'];
let site;
let core;
before(async () => { site = await startSite(); core = await loadModule('inference'); });
after(() => site.close());

const expected = (model, context, weights) =>
  SCHEMES.map((scheme) => core.decodeRoofline({ model, scheme, contextTokens: context, weights, gpu: 'h100-sxm' }));

async function assertFigure(page, model, context, weights, step) {
  const rows = expected(model, context, weights);
  assert.equal(await page.getByTestId('context').textContent(), context.toLocaleString('en-US'));
  for (const [i, scheme] of SCHEMES.entries()) {
    const r = rows[i];
    assert.equal(await page.getByTestId(`per-token-${scheme}`).textContent(), fmtBytes(r.kv.bytesPerToken), `${scheme} per token`);
    assert.equal(await page.getByTestId(`per-request-${scheme}`).textContent(), fmtBytes(r.kv.bytesPerRequest), `${scheme} per request`);
    assert.equal(await page.getByTestId(`fit-${scheme}`).textContent(),
      r.maxContextFitting === null ? 'any context' : `${r.maxContextFitting.toLocaleString('en-US')} tokens`);
    assert.equal(await page.getByTestId(`row-bytes-${scheme}`).textContent(), `${fmtBytes(r.kv.bytesPerToken)} / token`);
    // The blocks: one per cached K and V head (MLA: the latent and the RoPE key), as wide as their elements.
    // (The canvas lists the blocks it paints in data-blocks.)
    const { elements, kinds } = JSON.parse(await page.getByTestId('token-blocks').getAttribute('data-blocks'))[scheme];
    assert.equal(elements, r.kv.elementsPerTokenPerLayer);
    if (scheme === 'mla') assert.deepEqual(kinds, ['latent', 'rope']);
    else assert.deepEqual(kinds, [...Array(r.kv.kvHeads).fill('k'), ...Array(r.kv.kvHeads).fill('v')]);
    const state = i < step ? 'done' : i === step ? 'current' : 'pending';
    assert.equal(await page.getByTestId(`row-${scheme}`).getAttribute('data-state'), state);
    // Curves for the schemes stepped through so far, with their point at the context and their crossing.
    const curve = page.getByTestId(`curve-${scheme}`);
    assert.equal(await curve.count(), i <= step ? 1 : 0);
    if (i <= step) {
      assert.equal(Number(await curve.locator('circle').getAttribute('data-bytes')), r.kv.bytesPerRequest);
      const stops = page.getByTestId(`stops-${scheme}`);
      const inRange = r.maxContextFitting !== null && r.maxContextFitting >= 1024 && r.maxContextFitting <= 131072 && r.hbmCapacityBytes > r.weightBytesRead;
      assert.equal(await stops.count(), inRange ? 1 : 0, `${scheme} crossing`);
      if (inRange) assert.equal(Number(await stops.getAttribute('data-tokens')), r.maxContextFitting);
    }
  }
  assert.equal(Number(await page.getByTestId('memory-line').getAttribute('data-bytes')), rows[0].hbmCapacityBytes - rows[0].weightBytesRead);
  // The query heads' brackets: none for MHA, one for MQA and MLA, G for GQA.
  const groups = [0, 1, rows[2].kv.kvHeads, 1][step];
  assert.equal(Number(await page.getByTestId('query-strip').getAttribute('data-groups')), groups);
  return rows;
}

test('opens at MHA for Llama 3.1 70B at 8k; Step forward reveals each scheme with the core\'s bytes', async () => {
  const { page, problems, close } = await site.open(VIZ);
  assert.match(await page.getByTestId('narration').textContent(), /^Look for:/);
  for (let step = 0; step < 4; step++) {
    const rows = await assertFigure(page, 'llama3-70b', 8192, false, step);
    if (step > 0) {
      const narration = await page.getByTestId('narration').textContent();
      const kv = rows[step].kv;
      assert.ok(narration.includes(`${kv.terms.map((t) => t.value.toLocaleString('en-US')).join(' × ')} B = ${fmtBytes(kv.bytesPerToken)} per token`), narration);
      assert.ok(narration.includes(`one request's cache is ${fmtBytes(kv.bytesPerRequest)}`), narration);
    }
    if (step < 3) await page.getByRole('button', { name: /Step forward/ }).click();
  }
  // The corrected Part 4 table at 8k: MHA 20 GiB, MQA 320 MiB, GQA 2.5 GiB, MLA 720 MiB.
  assert.deepEqual(await Promise.all(SCHEMES.map((s) => page.getByTestId(`per-request-${s}`).textContent())),
    ['20.0 GiB', '320.0 MiB', '2.5 GiB', '720.0 MiB']);
  // MHA's cache stops fitting in an H100's 80 GB after 30,517 tokens.
  assert.equal(await page.getByTestId('fit-mha').textContent(), '30,517 tokens');
  assert.deepEqual(await settledHash(page), { model: 'llama3-70b', ctx: '8192', weights: '0', step: '3' });
  await screenshot(page, 'kv-cache-evolution-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('model, context and weights rebuild the rows from the core; the hash restores them', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#model=deepseek-v2&ctx=65536&weights=0&step=3`);
  await assertFigure(page, 'deepseek-v2', 65536, false, 3);
  await page.getByLabel('Model').selectOption('llama3-8b');
  await assertFigure(page, 'llama3-8b', 65536, false, 3);
  await page.getByRole('radio', { name: 'Cache + weights' }).click();
  await assertFigure(page, 'llama3-8b', 65536, true, 3);
  const slider = page.getByLabel('Context tokens');
  await slider.fill('0');
  await assertFigure(page, 'llama3-8b', 1024, true, 3);
  await slider.fill('56');
  await assertFigure(page, 'llama3-8b', 131072, true, 3);
  // Llama 3.1 70B's weights alone overfill the H100: nothing fits, and the chart says so.
  await page.getByLabel('Model').selectOption('llama3-70b');
  await assertFigure(page, 'llama3-70b', 131072, true, 3);
  assert.match(await page.getByTestId('memory-line').textContent(), /[Ww]eights (alone )?\(131\.4 GiB\) exceed .*74\.5 GiB/);
  assert.deepEqual(await settledHash(page), { model: 'llama3-70b', ctx: '131072', weights: '1', step: '3' });
  assert.deepEqual(problems, []);
  await close();
});

test('a hash the figure does not offer says so and the figure keeps working', async () => {
  for (const [hash, message] of [
    ['model=gpt2&ctx=8192', /model must be one of llama3-8b, llama3-70b, deepseek-v2, mistral-7b, llama3-405b, got gpt2/],
    ['ctx=500', /context must be a whole number of tokens from 1,024 to 131,072, got 500/],
    ['weights=yes', /weights must be 0 or 1, got yes/],
    ['step=9', /step must be a whole number from 0 to 3, got 9/],
  ]) {
    const { page, problems, close } = await site.open(`${VIZ}#${hash}`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), message);
    await page.getByRole('button', { name: /Step forward/ }).click();
    await assertFigure(page, 'llama3-70b', 8192, false, 1);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('keyboard steps and plays; under reduced motion playback reaches MLA', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('End');
  assert.equal((await settledHash(page)).step, '3');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="row-mla"]').dataset.state === 'current', null, { timeout: 15000 });
  // Every scheme's curve is on the chart once playback has reached MLA.
  for (const scheme of SCHEMES) assert.equal(await page.getByTestId(`curve-${scheme}`).count(), 1, scheme);
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#model=deepseek-v2&ctx=131072&weights=1&step=2`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  await assertFigure(page, 'deepseek-v2', 131072, true, 2);
  await screenshot(page, 'kv-cache-evolution-375');
  assert.deepEqual(problems, []);
  await close();
});

test('the no-script summary states the core\'s Llama 3.1 70B numbers', () => {
  const html = readFileSync(new URL('../../site/viz/kv-cache-evolution/index.html', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const rows = expected('llama3-70b', 8192, false);
  assert.ok(html.includes(`${fmtBytes(rows[0].kv.bytesPerToken, 1).replace('.0 ', ' ')} per token`), 'MHA per token');
  for (const r of rows) assert.ok(html.includes(fmtBytes(r.kv.bytesPerRequest).replace('.0 ', ' ')), fmtBytes(r.kv.bytesPerRequest));
  assert.ok(html.includes(`after ${rows[0].maxContextFitting.toLocaleString('en-US')} tokens`));
});

test('interaction time over a scripted sweep of the controls (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('kv-cache-evolution')));
