// Node tests of the KV-cache memory API (wasm/inference/bind_paged.cpp, wasm/inference/paged.d.ts): every bound
// function with good and bad arguments, results checked against the core's semantics (memory
// conservation, block tables consistent with reference counts, CoW and preemption events), and
// the module checked to answer correctly after each error.
// Run: node --test tests/wasm/   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const core = await loadModule('inference');
const small = { numRequests: 12, numBlocks: 24, blockSize: 4, meanInterarrivalSteps: 1, parallelFraction: 0.5, maxOutputTokens: 40, meanOutputTokens: 10, maxPromptTokens: 20 };

function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.pagedWorkloadDefaults().blockSize, 16);
  assert.equal(core.pagedReplay({ allocator: 'paged', ...small }).summary.requests, 12);
}

test('pagedWorkloadDefaults: the documented defaults', () => {
  const d = core.pagedWorkloadDefaults();
  assert.deepEqual(d, { seed: 2023, numRequests: 64, meanInterarrivalSteps: 2, minPromptTokens: 8, maxPromptTokens: 96,
    meanOutputTokens: 48, maxOutputTokens: 256, parallelFraction: 0.25, maxSamples: 4, numBlocks: 128, blockSize: 16,
    kvBytesPerToken: 2 * 5120 * 40 * 2 });
});

test('pagedReplay: paged replay conserves memory, forks, copies on write and preempts', () => {
  const r = core.pagedReplay({ allocator: 'paged', ...small });
  assert.equal(r.capacitySlots, 96);
  const s = r.summary;
  assert.equal(s.finished + s.rejected, 12);
  const expected = r.requests.filter((_, i) => !r.events.kind.some((k, j) => k === 'reject' && r.events.request[j] === i))
    .reduce((a, q) => a + q.outputTokens.reduce((x, y) => x + y, 0), 0);
  assert.equal(s.generatedTokens, expected);
  const t = r.timeline;
  assert.equal(t.storedTokens.length, s.steps);
  for (let i = 0; i < s.steps; i++) {
    assert.equal(t.storedTokens[i] + t.internalFragmentationSlots[i] + t.freeSlots[i], 96);
    assert.equal(t.reservedFutureSlots[i], 0);
    assert.equal(t.externalFragmentationSlots[i], 0);
  }
  const kinds = new Set(r.events.kind);
  for (const k of ['arrive', 'admit', 'fork', 'append', 'finish']) assert.ok(kinds.has(k), k);
  assert.ok(r.events.appendKind.includes('copy_on_write'));
  for (let i = 0; i < r.events.kind.length; i++) {
    if (r.events.appendKind[i] === 'copy_on_write') assert.notEqual(r.events.copiedFrom[i], r.events.physicalBlock[i]);
    if (r.events.kind[i] === 'fork') assert.ok(r.events.parent[i] >= 0);
    if (r.events.kind[i] !== 'append') assert.equal(r.events.appendKind[i], null);
  }
  // The same arguments give the same replay (seeded).
  assert.deepEqual(core.pagedReplay({ allocator: 'paged', ...small }).summary, s);
  const tight = core.pagedReplay({ allocator: 'paged', ...small, numBlocks: 14 });
  assert.ok(tight.summary.preemptions > 0);
  assert.ok(tight.events.kind.includes('preempt'));
});

test('pagedReplay: contiguous reservations waste memory the paged pool does not', () => {
  const c = core.pagedReplay({ allocator: 'contiguous', ...small, numBlocks: 64 });
  for (let i = 0; i < c.summary.steps; i++) {
    const t = c.timeline;
    assert.equal(t.storedTokens[i] + t.reservedFutureSlots[i] + t.internalFragmentationSlots[i] + t.freeSlots[i], 256);
    assert.ok(t.externalFragmentationSlots[i] <= t.freeSlots[i]);
  }
  assert.equal(c.summary.preemptions, 0);
  // A max-length reservation is the prompt plus the most any sample may generate; only admits reserve.
  c.events.kind.forEach((k, i) => assert.equal(c.events.reservedSlots[i],
    k === 'admit' ? c.requests[c.events.request[i]].promptTokens + small.maxOutputTokens : -1));
  assert.equal(core.pagedReplay({ allocator: 'contiguous', ...small, numBlocks: 64, reservation: 'oracle' }).summary.meanInternalFragmentationFraction, 0);
  const p = core.pagedReplay({ allocator: 'paged', ...small, numBlocks: 64 });
  assert.ok(p.summary.meanUtilisation > c.summary.meanUtilisation);
});

test('pagedStateAt: block tables agree with reference counts; the arena is tiled by ranges and holes', () => {
  const all = core.pagedReplay({ allocator: 'paged', ...small });
  const n = all.events.kind.length;
  for (const event of [0, 1, Math.floor(n / 3), Math.floor(n / 2), n]) {
    const st = core.pagedStateAt({ allocator: 'paged', ...small, event });
    assert.equal(st.event, event);
    assert.equal(st.eventCount, n);
    const refs = new Array(24).fill(0);
    for (const q of st.sequences) {
      assert.equal(q.blockTable.length, Math.ceil(q.length / 4));
      for (const b of q.blockTable) refs[b]++;
    }
    assert.deepEqual([...st.refcounts], refs);
    assert.equal(st.freeList.length, refs.filter((x) => x === 0).length);
    assert.equal(st.stats.blocksFree, st.freeList.length);
    assert.equal(st.stats.allocatedSlots - st.stats.storedTokens, st.stats.internalFragmentationSlots);
  }
  assert.equal(core.pagedStateAt({ allocator: 'paged', ...small }).stats.blocksUsed, 0);  // default: all events

  const cAll = core.pagedReplay({ allocator: 'contiguous', ...small, numBlocks: 64 });
  const st = core.pagedStateAt({ allocator: 'contiguous', ...small, numBlocks: 64, event: Math.floor(cAll.events.kind.length / 2) });
  const ranges = [...st.reservations.map((r) => [r.offset, r.reservedSlots]), ...st.holes.map((h) => [h.offset, h.slots])]
    .sort((a, b) => a[0] - b[0]);
  let cursor = 0;
  for (const [o, len] of ranges) { assert.equal(o, cursor); cursor += len; }
  assert.equal(cursor, 256);
  for (const r of st.reservations) assert.ok(r.usedSlots <= r.finalSlots && r.finalSlots <= r.reservedSlots);
});

test('pagedSummary: paged against the three reservation policies on the default workload', () => {
  const s = core.pagedSummary({});
  assert.deepEqual(Object.keys(s), ['paged', 'contiguousMaxLen', 'contiguousPow2', 'contiguousOracle']);
  assert.equal(s.paged.generatedTokens, s.contiguousMaxLen.generatedTokens);
  assert.ok(s.paged.meanUtilisation > s.contiguousOracle.meanUtilisation);
  assert.ok(s.contiguousOracle.meanUtilisation > s.contiguousMaxLen.meanUtilisation);
  assert.ok(s.paged.steps < s.contiguousMaxLen.steps);
  assert.equal(s.paged.meanExternalFragmentationFraction, 0);
});

test('paged API rejects bad arguments and keeps answering', () => {
  const ok = { allocator: 'paged', ...small };
  throwsThenRecovers(() => core.pagedReplay({ ...ok, allocator: 'buddy' }), /allocator: must be one of 'paged', 'contiguous'/);
  throwsThenRecovers(() => core.pagedReplay({ numRequests: 3 }), /allocator: must be one of/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, numBlocks: 0 }), /numBlocks: must be an integer in \[1, 1024\]/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, blockSize: 257 }), /blockSize: must be an integer in \[1, 256\]/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, numRequests: 1000 }), /numRequests: must be an integer in \[1, 256\]/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, minPromptTokens: 30 }), /minPromptTokens: must be an integer in \[1, 20\]/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, parallelFraction: 2 }), /parallelFraction: must be a number in \[0, 1\]/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, maxSamples: 9 }), /maxSamples: must be an integer in \[2, 8\]/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, seed: -1 }), /seed: must be an integer/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, reservation: 'buddy' }), /reservation: must be one of 'max_len', 'pow2', 'oracle'/);
  throwsThenRecovers(() => core.pagedReplay({ ...ok, meanOutputTokens: 'long' }), /meanOutputTokens: must be a number/);
  throwsThenRecovers(() => core.pagedStateAt({ ...ok, event: 1e6 }), /event: must be an integer in \[0, \d+\]/);
  throwsThenRecovers(() => core.pagedStateAt({ ...ok, event: 1.5 }), /event: must be an integer/);
  throwsThenRecovers(() => core.pagedSummary({ numBlocks: 2000 }), /numBlocks: must be an integer in \[1, 1024\]/);
  throwsThenRecovers(() => core.pagedSummary(null), /arguments: must be an object/);
  throwsThenRecovers(() => core.pagedReplay('paged'), /arguments: must be an object/);
  // Many long requests with many steps exceed the in-browser event cap instead of hanging the page.
  throwsThenRecovers(() => core.pagedReplay({ allocator: 'paged', numRequests: 256, maxOutputTokens: 4096, meanOutputTokens: 1e6,
    maxSamples: 8, parallelFraction: 1, numBlocks: 1024, blockSize: 256 }), /config.max_(events|steps)/);
});

// The state at the end of `step`: events of steps 0..step applied, read from the replay itself.
const eventsThrough = (replay, step) => replay.events.step.findLastIndex((s) => s <= step) + 1;

test('ServingStepper: states at steps scrubbed in a seeded random order equal pagedStateAt at the same event', () => {
  const input = { ...small, numBlocks: 40, reservation: 'pow2' };
  const stepper = new core.ServingStepper(input);
  try {
    const paged = core.pagedReplay({ allocator: 'paged', ...input });
    const contiguous = core.pagedReplay({ allocator: 'contiguous', ...input });
    assert.deepEqual(stepper.replay('paged'), paged);
    assert.deepEqual(stepper.replay('contiguous'), contiguous);
    assert.equal(stepper.steps, Math.max(paged.summary.steps, contiguous.summary.steps));
    let x = 12345;
    const order = [0, stepper.steps - 1, ...Array.from({ length: 30 }, () => (x = (x * 1103515245 + 12345) % 2 ** 31) % stepper.steps)];
    for (const step of order) {
      for (const [allocator, replay] of [['paged', paged], ['contiguous', contiguous]]) {
        const got = stepper.stateAtStep(allocator, step);
        const event = eventsThrough(replay, step);
        const want = core.pagedStateAt({ allocator, ...input, event });
        assert.deepEqual(got, { ...want, step }, `${allocator} at step ${step}`);
        // Between steps the pool is what the replay's timeline recorded for that step.
        if (step < replay.summary.steps) {
          const stored = allocator === 'paged' ? got.stats.storedTokens : got.stats.usedSlots;
          assert.equal(stored, replay.timeline.storedTokens[step]);
        }
      }
    }
  } finally {
    stepper.delete();
  }
});

test('ServingStepper: bad arguments are named, the instance keeps answering, and delete() releases it', () => {
  const handles = core.count_emval_handles();
  // Figure-sized workloads only (the stepper's own caps, tighter than pagedReplay's).
  assert.throws(() => new core.ServingStepper({ ...small, numBlocks: 0 }), /numBlocks: must be an integer in \[1, 256\]/);
  assert.throws(() => new core.ServingStepper({ ...small, numRequests: 65 }), /numRequests: must be an integer in \[1, 64\]/);
  assert.throws(() => new core.ServingStepper({ ...small, maxOutputTokens: 1025 }), /maxOutputTokens: must be an integer in \[1, 1024\]/);
  assert.throws(() => new core.ServingStepper(null), /arguments: must be an object/);
  assert.throws(() => new core.ServingStepper({ ...small, reservation: 'buddy' }), /reservation: must be one of/);
  const stepper = new core.ServingStepper(small);
  const first = stepper.stateAtStep('paged', 3);
  assert.throws(() => stepper.stateAtStep('paged', stepper.steps), new RegExp(`step: must be an integer in \\[0, ${stepper.steps - 1}\\]`));
  assert.throws(() => stepper.stateAtStep('paged', 1.5), /step: must be an integer/);
  assert.throws(() => stepper.stateAtStep('paged', undefined), /step: missing/);
  assert.throws(() => stepper.stateAtStep('buddy', 0), /allocator: must be one of 'paged', 'contiguous'/);
  assert.throws(() => stepper.replay(7), /allocator: must be one of/);
  assert.deepEqual(stepper.stateAtStep('paged', 3), first);
  stepper.delete();
  assert.throws(() => stepper.stateAtStep('paged', 3), (e) => e.name === 'BindingError');
  assert.equal(core.count_emval_handles(), handles);
});

test('ServingStepper: construction at the input caps stays within its documented second', () => {
  const start = process.cpuUsage();
  try {
    // Near its event cap: every request with 8 long samples on the largest pool it accepts.
    const s = new core.ServingStepper({ numRequests: 64, maxOutputTokens: 1024, meanOutputTokens: 150, maxPromptTokens: 1024,
      maxSamples: 8, parallelFraction: 1, numBlocks: 256, blockSize: 64, meanInterarrivalSteps: 0.001 });
    s.stateAtStep('paged', s.steps - 1);
    s.delete();
  } catch (e) {
    assert.match(e.message, /config.max_(events|steps)/);
  }
  const { user, system } = process.cpuUsage(start);
  assert.ok((user + system) / 1000 < 1000, `${(user + system) / 1000} ms`);
});
