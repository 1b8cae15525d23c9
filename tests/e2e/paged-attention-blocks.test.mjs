// Browser tests of the PagedAttention blocks figure: at several steps the drawn contiguous ranges,
// physical blocks, block tables, copy-on-write arrows and counters are the inference module's
// (a ServingStepper over the same workload, and its two replays); the narration names the step's
// real events; the jump to a turned-away request, the settings and the hash, rejected hashes, the
// keyboard, reduced motion, a 375 px screen; and the interaction time of a sweep that scrubs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from '../wasm/load.mjs';
import { horizontalOverflow, printInteractionTime, screenshot, settledHash, startSite } from './browser.mjs';
import { sweepFor } from '../../scripts/interaction-sweeps.mjs';

const VIZ = '/visualizations/paged-attention-blocks/';
// The figure's fixed workload shape (site/viz/paged-attention-blocks/model.ts) and its defaults.
const WORKLOAD = { blockSize: 16, meanInterarrivalSteps: 3, minPromptTokens: 8, maxPromptTokens: 64, meanOutputTokens: 32,
  maxOutputTokens: 128, parallelFraction: 0.3, maxSamples: 3 };
const DEFAULT = { seed: 3, requests: 12, blocks: 32 };

let site;
let core;
const steppers = new Map();
before(async () => { site = await startSite(); core = await loadModule('inference'); });
after(() => { for (const s of steppers.values()) s.stepper.delete(); site.close(); });

// The module's view of a workload: its stepper and both replays, built once per configuration.
function model(config = DEFAULT) {
  const key = JSON.stringify(config);
  if (!steppers.has(key)) {
    const stepper = new core.ServingStepper({ ...WORKLOAD, seed: config.seed, numRequests: config.requests, numBlocks: config.blocks });
    steppers.set(key, { stepper, paged: stepper.replay('paged'), contiguous: stepper.replay('contiguous') });
  }
  return steppers.get(key);
}
const at = (replay, step) => Math.min(step, replay.summary.steps - 1);
const pct = (x) => `${(100 * x).toFixed(1)} %`;

// Steps where a request arrives that the paged pool admits in the same step and the contiguous pool does not.
function turnedAway(m) {
  const admitted = (r, replay, step) => replay.events.kind.some((k, i) => k === 'admit' && replay.events.request[i] === r && replay.events.step[i] === step);
  const steps = [];
  m.paged.events.kind.forEach((k, i) => {
    const r = m.paged.events.request[i], s = m.paged.events.step[i];
    if (k === 'arrive' && admitted(r, m.paged, s) && !admitted(r, m.contiguous, s) && steps.at(-1) !== s) steps.push(s);
  });
  return steps;
}

// What the page draws, read from the drawing's data attributes and the counters.
const drawn = (page) => page.evaluate(() => {
  const data = (el) => ({ ...el.dataset });
  const q = (sel) => [...document.querySelectorAll(sel)];
  const text = (id) => document.querySelector(`[data-testid="${id}"]`).textContent;
  return {
    reservations: q('[data-testid="arena"] .reservation').map(data),
    external: q('[data-testid="arena"] .hole.external').map(data),
    // The pool's canvas lists the blocks it paints: number, references, tokens held, owner, just arrived.
    blocks: JSON.parse(document.querySelector('[data-testid="pool-blocks"]').dataset.blocks),
    cow: q('[data-testid="pool"] .cow-arrow').map(data),
    // The tables' canvas lists the tables it paints: request, sample, length, physical blocks, focused.
    tables: JSON.parse(document.querySelector('[data-testid="tables"]').dataset.tables),
    focusArrows: q('[data-testid="arrows"] .table-arrows.focus').map((g) => ({ ...g.dataset, to: [...g.querySelectorAll('path')].map((p) => p.dataset.to).join(',') })),
    counters: Object.fromEntries(['contiguous-waste', 'contiguous-utilisation', 'paged-utilisation', 'served', 'waiting', 'preemptions'].map((id) => [id, text(id)])),
    narration: text('narration'),
  };
});

// Every drawn value against the module at `step`.
async function assertStep(page, step, config = DEFAULT) {
  const m = model(config);
  const p = m.stepper.stateAtStep('paged', step), c = m.stepper.stateAtStep('contiguous', step);
  const d = await drawn(page);
  assert.deepEqual(d.reservations.map((r) => [r.request, r.sample, r.offset, r.reserved, r.used, r.final].map(Number)),
    c.reservations.map((r) => [r.request, r.sample, r.offset, r.reservedSlots, r.usedSlots, r.finalSlots]), `ranges at step ${step}`);
  const ct = at(m.contiguous, step), pt = at(m.paged, step), cl = m.contiguous.timeline, pl = m.paged.timeline;
  // The hatched holes add up to the replay's external fragmentation for the step.
  // (A hole that wraps a row is drawn as two rectangles with the same offset.)
  const holes = new Map(d.external.map((h) => [h.offset, Number(h.slots)]));
  assert.equal([...holes.values()].reduce((a, b) => a + b, 0), cl.externalFragmentationSlots[ct], `external fragmentation at step ${step}`);
  assert.deepEqual(d.blocks.map((b) => b.refs), [...p.refcounts], `reference counts at step ${step}`);
  const seqs = [...p.sequences].sort((a, b) => a.request - b.request || a.sample - b.sample);
  const shown = d.tables.map((t) => [t.request, t.sample, t.length].map(Number).concat([t.blocks.join(',')]));
  const expected = seqs.map((s) => [s.request, s.sample, s.length, [...s.blockTable].join(',')]);
  if (d.tables.length === seqs.length) assert.deepEqual(shown, expected, `block tables at step ${step}`);
  else assert.deepEqual(shown, expected.filter((s) => s[0] === shown[0][0]), `the focused request's tables at step ${step}`);
  // The focused request's arrows end at the physical blocks of its tables.
  for (const a of d.focusArrows) assert.equal(a.to, expected.find((s) => s[0] === Number(a.request) && s[1] === Number(a.sample))[3]);
  // Copy-on-write in this step: an arrow from the shared block to its copy.
  const cow = [];
  m.paged.events.appendKind.forEach((k, i) => { if (k === 'copy_on_write' && m.paged.events.step[i] === step) cow.push([m.paged.events.copiedFrom[i], m.paged.events.physicalBlock[i]]); });
  assert.deepEqual(d.cow.map((x) => [Number(x.from), Number(x.to)]), cow, `copy-on-write arrows at step ${step}`);
  const cap = m.paged.capacitySlots;
  assert.equal(d.counters['contiguous-waste'], pct((cl.reservedFutureSlots[ct] + cl.internalFragmentationSlots[ct] + cl.externalFragmentationSlots[ct]) / cap));
  const util = (s, a) => (a > 0 ? pct(s / a) : '—');
  assert.equal(d.counters['contiguous-utilisation'], util(cl.storedTokens[ct], cl.allocatedSlots[ct]));
  assert.equal(d.counters['paged-utilisation'], util(pl.storedTokens[pt], pl.allocatedSlots[pt]));
  // The state's own stats agree with the replay's timeline for the step.
  if (step < m.paged.summary.steps) assert.equal(p.stats.storedTokens, pl.storedTokens[step]);
  if (step < m.contiguous.summary.steps) assert.equal(c.stats.usedSlots, cl.storedTokens[step]);
  assert.equal(d.counters.served, `${cl.finishedTotal[ct]} / ${pl.finishedTotal[pt]} of ${config.requests}`);
  assert.equal(d.counters.waiting, `${cl.queuedRequests[ct]} / ${pl.queuedRequests[pt]}`);
  assert.equal(d.counters.preemptions, String(pl.preemptedTotal[pt]));
  return { m, p, c, d };
}

test('opens at step 0 with what to look for; ranges, blocks, tables and counters are the module\'s at several steps', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const m = model();
  assert.equal((await settledHash(page)).step, '0');
  const { d } = await assertStep(page, 0);
  assert.match(d.narration, /^Look for: the same requests in the same memory/);
  // Request 0 asks for 3 samples: its tables share the prompt's full blocks (dashed, x3) and have
  // already diverged by copy-on-write in its first decoding step.
  assert.ok(d.blocks.some((b) => b.refs === 3));
  assert.ok(d.cow.length >= 1);
  const scrubber = page.locator('.scrubber input[type="range"]');
  assert.equal(await scrubber.getAttribute('max'), String(m.stepper.steps - 1));
  for (const step of [40, 3, 111, m.stepper.steps - 1, 25]) {
    await scrubber.fill(String(step));
    await assertStep(page, step);
  }
  assert.equal((await settledHash(page)).step, '25');
  await screenshot(page, 'paged-attention-blocks-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the narration tells the step\'s real events: a request the contiguous pool turns away and paging admits, preemption', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const m = model();
  const refused = turnedAway(m);
  assert.ok(refused.length >= 2, 'the default workload turns requests away');
  // From the opening step, the jump button goes to each later turned-away arrival in turn.
  for (const step of refused.filter((s) => s > 0).slice(0, 3)) {
    await page.getByTestId('jump-refusal').click();
    const { p, d } = await assertStep(page, step);
    const arriving = m.paged.events.request.filter((r, i) => m.paged.events.kind[i] === 'arrive' && m.paged.events.step[i] === step);
    const r = arriving.find((x) => m.paged.events.kind.some((k, j) => k === 'admit' && m.paged.events.request[j] === x && m.paged.events.step[j] === step));
    const blocks = new Set(p.sequences.filter((s) => s.request === r).flatMap((s) => [...s.blockTable])).size;
    const paging = blocks > 0 ? `paging gives it ${blocks} blocks?` : 'paging admits it at once \\(and it finishes within the step\\)';
    assert.match(d.narration, new RegExp(`^Step ${step}: request ${r} arrives .*contiguous (pool|queue).* — (it must wait|rejected); ${paging}`));
    // The drawing marks it: turned away above the contiguous pool, admitted above the paged one, its blocks outlined.
    assert.equal(await page.getByTestId('refused').getAttribute('data-request'), String(r));
    assert.match(await page.getByTestId('admitted').textContent(), new RegExp(`${r} admitted`));
    assert.deepEqual(d.blocks.filter((b) => b.request === r).map((b) => b.block), d.blocks.filter((b) => b.arrived).map((b) => b.block));
  }
  // Step 3: request 3's two samples need two ranges of prompt + 128 slots; too few are free.
  await page.locator('.scrubber input[type="range"]').fill('3');
  const { c } = await assertStep(page, 3);
  const need = m.contiguous.requests[3].promptTokens + WORKLOAD.maxOutputTokens;
  assert.match((await drawn(page)).narration, new RegExp(`has ${c.stats.freeSlots} free slots, too few for 2 ranges of ${need}`));
  // A preemption, with the tokens the core says will be recomputed.
  const i = m.paged.events.kind.indexOf('preempt');
  const step = m.paged.events.step[i];
  const tokens = m.paged.events.tokens.filter((_, j) => m.paged.events.kind[j] === 'preempt' && m.paged.events.step[j] === step && m.paged.events.request[j] === m.paged.events.request[i]).reduce((a, b) => a + b, 0);
  await page.locator('.scrubber input[type="range"]').fill(String(step));
  await assertStep(page, step);
  assert.match((await drawn(page)).narration, new RegExp(`request ${m.paged.events.request[i]}, the latest admitted, is preempted \\(${tokens} tokens to recompute\\)`));
  assert.deepEqual(problems, []);
  await close();
});

test('settings rebuild both replays from the module and the hash restores them; the table select picks a request', async () => {
  const config = { seed: 5, requests: 16, blocks: 48 };
  const { page, problems, close } = await site.open(`${VIZ}#seed=5&requests=16&blocks=48&step=30`);
  await assertStep(page, 30, config);
  await page.locator('select[aria-label="Pool size in blocks"]').selectOption('24');
  const small = { ...config, blocks: 24 };
  await assertStep(page, 0, small);
  assert.deepEqual(await settledHash(page), { seed: '5', requests: '16', blocks: '24', step: '0' });
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('End');
  await assertStep(page, model(small).stepper.steps - 1, small);
  // The tables of a chosen request are the strong ones.
  await page.locator('.scrubber input[type="range"]').fill('20');
  const p = model(small).stepper.stateAtStep('paged', 20);
  const requests = [...new Set(p.sequences.map((s) => s.request))].sort((a, b) => a - b);
  await page.locator('select[aria-label="Request whose block tables are drawn"]').selectOption(String(requests[0]));
  const d = await drawn(page);
  assert.ok(d.focusArrows.length > 0 && d.focusArrows.every((a) => a.request === String(requests[0])));
  assert.ok(d.tables.some((t) => t.focus) && d.tables.every((t) => t.focus === (t.request === requests[0])));
  assert.equal((await settledHash(page)).request, String(requests[0]));
  assert.deepEqual(problems, []);
  await close();
});

test('a hash the figure does not offer says so and the figure keeps working', async () => {
  for (const [hash, message] of [['blocks=33', /blocks must be one of 24, 32, 48, 64, got 33/], ['seed=0', /seed must be a whole number from 1 to 999, got 0/],
    ['step=9999', /step must be a whole number from 0 to \d+, got 9999/], ['step=abc', /step must be a whole number from 0 to \d+, got abc/]]) {
    const { page, problems, close } = await site.open(`${VIZ}#${hash}`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), message);
    await page.getByRole('button', { name: /Step forward/ }).click();
    await assertStep(page, 1);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('keyboard steps, plays and jumps; reduced motion plays in jumps without transitions', async () => {
  const { page, problems, close } = await site.open(VIZ, { reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await settledHash(page)).step, '2');
  await page.keyboard.press('End');
  const last = model().stepper.steps - 1;
  assert.equal((await settledHash(page)).step, String(last));
  await assertStep(page, last);
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForTimeout(2500);
  await page.keyboard.press('k');
  const step = Number((await settledHash(page)).step);
  assert.ok(step > 2, `reduced-motion playback jumps several steps at a time (at ${step} after 2.5 s)`);
  await assertStep(page, step);
  assert.deepEqual(problems, []);
  await close();
});

test('at 375 px nothing overflows and only the focused request\'s tables and arrows are drawn', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=6`, { viewport: { width: 375, height: 812 } });
  assert.equal(await horizontalOverflow(page), 0);
  const { d } = await assertStep(page, 6);
  const requests = new Set(d.tables.map((t) => t.request));
  assert.equal(requests.size, 1);
  assert.equal(await page.locator('[data-testid="arrows"] .table-arrows:not(.focus)').count(), 0);
  // After a repaint, the first table's label ("R3 s0", about 30 px) still starts at the canvas's
  // left edge, so it reaches past x = 18: the context keeps the last paint's text alignment
  // unless the paint sets its own, and a label centred on x = 0 would end near x = 15.
  await page.getByRole('button', { name: /Step forward/ }).click();
  await assertStep(page, 7);
  const inked = await page.getByTestId('tables').evaluate((c) => {
    const dpr = c.width / c.getBoundingClientRect().width;
    const px = c.getContext('2d').getImageData(18 * dpr, 0, 30 * dpr, 18 * dpr).data;
    return px.filter((v, i) => i % 4 === 3 && v > 0).length;
  });
  assert.ok(inked > 10, `the first table's label runs from the left edge past x = 18 (${inked} pixels there)`);
  await screenshot(page, 'paged-attention-blocks-375');
  assert.deepEqual(problems, []);
  await close();
});

test('a frame only a few pixels wide (a lazily loaded one, growing) draws without errors', async () => {
  const { page, problems, close } = await site.open(`${VIZ}#step=6`, { viewport: { width: 60, height: 800 } });
  await page.getByTestId('tables').waitFor({ state: 'attached' });
  assert.deepEqual(problems, []);
  await close();
});

test('the no-script summary states the default workload as the module replays it', () => {
  const html = readFileSync(new URL('../../site/viz/paged-attention-blocks/index.html', import.meta.url), 'utf8');
  const m = model();
  assert.match(html, new RegExp(`${DEFAULT.requests} requests`));
  assert.match(html, new RegExp(`same ${m.paged.capacitySlots}-slot KV-cache pool`));
  assert.match(html, new RegExp(`the pool is ${DEFAULT.blocks} blocks of ${WORKLOAD.blockSize} tokens`));
  assert.match(html, new RegExp(`plus the ${WORKLOAD.maxOutputTokens} tokens it might generate`));
  // One three-sample request is turned away altogether, and the paged pool preempts.
  assert.equal(m.contiguous.summary.rejected, 1);
  assert.equal(m.contiguous.requests[m.contiguous.events.request[m.contiguous.events.kind.indexOf('reject')]].outputTokens.length, 3);
  assert.ok(m.paged.summary.preemptions > 0);
});

test('interaction time over a scripted sweep that scrubs (printed, not asserted)', () =>
  printInteractionTime(site, sweepFor('paged-attention-blocks')));
