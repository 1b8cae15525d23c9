// The cases issue 33 found by hostile input, each as it was reported: a trap through a wrapped
// 32-bit size product, wrapped results, calls past a second of work, handles and memory kept by
// failing calls, and engine errors in place of the module's own messages; and issue 28's boolean
// mask entries that a uint8_t conversion wrapped.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const flash = await loadModule('flash');
const inference = await loadModule('inference');
const classic = await loadModule('classic');

function throwsNamed(call, message) {
  assert.throws(call, (e) => e.constructor === Error && message.test(e.message), String(message));
}

test('OnlineSoftmax.update: scores.length x valueDim past 2^32 is refused, not wrapped to 0, and the state is unchanged', () => {
  const s = new flash.OnlineSoftmax(4096);
  try {
    s.update([0.5], new Float32Array(4096).fill(1));
    const before = { m: s.m, l: s.l, acc: s.acc() };
    throwsNamed(() => s.update(new Float32Array(2 ** 20), []), /scores.length \* valueDim: 4294967296 exceeds the in-browser limit/);
    throwsNamed(() => s.update([1, 2], new Float32Array(8192).fill(NaN)), /values: entry 0 is not finite/);
    assert.deepEqual({ m: s.m, l: s.l, acc: s.acc() }, before);
  } finally {
    s.delete();
  }
  throwsNamed(() => new flash.OnlineSoftmax(1n), /valueDim: must be a number, got bigint/);
});

test('gpuWorkPartition: an FA1 block past 2^31 - 1 tiles is refused; 2^24 x 2^6 tiles count exactly', () => {
  throwsNamed(() => flash.gpuWorkPartition({ gpu: 'h100-sxm', partition: 'fa1', qLen: 2 ** 24, kvLen: 2 ** 24, blockQ: 1, blockK: 1 }),
    /K\/V tiles per thread block exceed the in-browser limit of 2147483647/);
  const w = flash.gpuWorkPartition({ gpu: 'h100-sxm', partition: 'fa1', qLen: 2 ** 24, kvLen: 2 ** 6, blockQ: 1, blockK: 1 });
  assert.equal(w.totalTiles, 2 ** 30);
  assert.ok(w.smUtilization > 0 && w.smUtilization <= 1, String(w.smUtilization));
});

test('slidingWindowReceptiveField: 2^20 layers x 2^30 window reach 2^50 tokens, not a wrapped 0', () => {
  const r = inference.slidingWindowReceptiveField({ layers: 2 ** 20, window: 2 ** 30 });
  assert.equal(r.paperReachTokens, 2 ** 50);
  assert.equal(r.reachTokens, 2 ** 50 - 2 ** 20);
});

test('calls past about a second of work are refused with the cap in the message', () => {
  const z = new Float32Array(2 ** 20);
  const s = [1, 1, 2048, 512];
  const qkv = { q: z, qShape: s, k: z, kShape: s, v: z, vShape: s };
  for (const call of [() => flash.sdpa(qkv), () => flash.chunkedAttention(qkv), () => inference.chunkedPrefill(qkv),
    () => inference.splitKvAttention(qkv)]) {
    throwsNamed(call, /batch \* heads \* L \* S \* \(D \+ Dv\) = 4294967296 exceeds the in-browser limit of 134217728/);
  }
  for (const call of [() => flash.flashBackward(qkv), () => classic.lshAttention(qkv), () => classic.routingAttention(qkv)]) {
    throwsNamed(call, /batch \* heads \* L \* S \* \(D \+ Dv\) = 4294967296 exceeds the in-browser limit of 67108864/);
  }
  throwsNamed(() => classic.patternStats({ pattern: { kind: 'bigbird', block: 1, global: 1, oneSidedWindow: 1 }, seqLen: 2 ** 24 }),
    /pattern.block: seqLen \/ block = 16777216 block rows exceed the in-browser limit of 262144/);
  throwsNamed(() => inference.simulateSpeculativeDecoding({ alpha: 1, gamma: 1024, runs: 1e6 }),
    /runs\/gamma: runs \* \(gamma \+ 1\) = 1025000000 draws exceed the in-browser limit/);
});

test('a failing call keeps no Embind handle, whatever its arguments', () => {
  const before = flash.count_emval_handles();
  for (const bad of [1n, Symbol('s'), new Proxy({}, {}), Object.create(null)]) {
    for (let i = 0; i < 100; i++) {
      assert.throws(() => flash.randomNormal([1, 1, 1, 1], bad, 1), /seed: must be a number/);
      assert.throws(() => flash.randomNormal([1, 1, 1, 1], 1, bad), /stddev: must be a number/);
    }
  }
  assert.equal(flash.count_emval_handles(), before);
});

test('array entries that are not numbers get the module\'s message naming the argument', () => {
  const input = (q) => ({ q, qShape: [1, 1, 1, 2], k: [1, 2], kShape: [1, 1, 1, 2], v: [1, 2], vShape: [1, 1, 1, 2] });
  throwsNamed(() => flash.sdpa(input([1, 2n])), /q: element 1 is not a number \(its type is bigint\)/);
  throwsNamed(() => flash.sdpa(input([Symbol('s'), 1])), /q: element 0 is not a number \(its type is symbol\)/);
  throwsNamed(() => flash.sdpa(input([1, Object.create(null)])), /q: element 1 is not a number \(its type is object\)/);
  throwsNamed(() => flash.sdpa(input(new Proxy(new Float32Array(2), {}))), /q: must be a Float32Array, Float64Array or array of numbers/);
  throwsNamed(() => flash.sdpa(input(new BigInt64Array(2))), /q: must be a Float32Array/);
});

test('multiHeadAttention refuses a 2^25-entry weight array before copying it (memory does not grow)', () => {
  const base = { mode: 'self', x: classic.randomNormal([1, 1, 4, 6], 1, 1), xShape: [1, 4, 6], numHeads: 3, headDim: 2 };
  const huge = new Float64Array(2 ** 25);
  const memory = classic.HEAP8.length;
  throwsNamed(() => classic.multiHeadAttention({ ...base, wQ: huge, wK: huge, wV: huge, wO: huge }),
    /wQ: has 33554432 entries, expected at most 1048576/);
  // Also when the other projections are drawn from a seed.
  throwsNamed(() => classic.multiHeadAttention({ ...base, weightsSeed: 1, wO: huge }), /wO: has 33554432 entries, expected at most 1048576/);
  assert.equal(classic.HEAP8.length, memory);
});

test('boolean mask: every nonzero entry may attend (0.5, 256, 1e9, ±Infinity), 0 masks, NaN is refused', () => {
  // One query, two keys with distinct values: masking key 1 leaves exactly key 0's value.
  const input = (data) => ({ q: [1, 0], qShape: [1, 1, 1, 2], k: [1, 0, 0, 1], kShape: [1, 1, 2, 2], v: [10, 20, 30, 40],
    vShape: [1, 1, 2, 2], mask: { kind: 'boolean', shape: [1, 1, 1, 2], data } });
  const both = flash.sdpa(input([1, 1])).output;
  const onlyFirst = flash.sdpa(input([1, 0])).output;
  assert.deepEqual([...onlyFirst], [10, 20]);
  for (const allow of [0.5, 256, 1e9, Infinity, -Infinity, 1e-40]) {
    assert.deepEqual(flash.sdpa(input([allow, allow])).output, both, `entry ${allow}`);
    assert.deepEqual(flash.sdpa(input([allow, 0])).output, onlyFirst, `entry ${allow} with a masked key`);
  }
  assert.deepEqual(flash.sdpa(input(new Float32Array([0.5, 0]))).output, onlyFirst);
  throwsNamed(() => flash.sdpa(input([NaN, 1])), /mask.data: entry 0 is NaN; a boolean mask takes 0 \(masked\) or nonzero \(may attend\)/);
});
