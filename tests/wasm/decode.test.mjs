// Node tests of the decode-time attention API (wasm/inference/bind_decode.cpp, wasm/inference/decode.d.ts): every bound
// function with good and bad arguments, results checked against the core's semantics (sdpa as the
// dense reference), and the module checked to answer correctly after each error.
// Run: node --test tests/wasm/   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxAbsDiff as maxAbsDiffOf, qkvProblem } from './fixtures.mjs';
import { loadModule } from './load.mjs';

const core = await loadModule('inference');
// The dense reference and the GPU presets come from the flash module.
const flash = await loadModule('flash');
const SEED = Math.floor(Math.random() * 1e9);  // fresh per run; printed in every failure message

// float32 kernels against float32 sdpa over <= 129 keys: observed < 1e-6.
const TOL = 2e-5;

const maxAbsDiff = (a, b) => maxAbsDiffOf(a, b, `seed ${SEED}`);
const problem = (shape = {}) => qkvProblem(core, { B: 1, H: 4, Hkv: 2, L: 9, S: 13, D: 8, Dv: 5, seed: SEED, ...shape });

function close(a, b, what) { assert.ok(maxAbsDiff(a, b) < TOL, `${what}: seed ${SEED}`); }

// Throws an Error whose message matches, then the module still answers a known query exactly.
function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.speculativeDecoding({ alpha: 1, gamma: 4 }).expectedTokens, 5);
}

test('pagedDecode equals sdpa over the gathered sequence; trace walks the block table', () => {
  const blocks = 7, bs = 3, Hkv = 2, Hq = 4, D = 8, Dv = 5, ctx = 11;  // 4 blocks, the last holds 2
  const keyPool = core.randomNormal([blocks, Hkv, bs, D], SEED, 1);
  const valuePool = core.randomNormal([blocks, Hkv, bs, Dv], SEED + 1, 1);
  const q = core.randomNormal([1, Hq, 1, D], SEED + 2, 1);
  const blockTable = [5, 0, 3, 6];
  // Gather the dense K/V in JS (a copy, not an algorithm) for the reference.
  const k = new Float32Array(Hkv * ctx * D), v = new Float32Array(Hkv * ctx * Dv);
  for (let h = 0; h < Hkv; h++) {
    for (let t = 0; t < ctx; t++) {
      const blk = blockTable[Math.floor(t / bs)], slot = t % bs;
      k.set(keyPool.subarray(((blk * Hkv + h) * bs + slot) * D, ((blk * Hkv + h) * bs + slot + 1) * D), (h * ctx + t) * D);
      v.set(valuePool.subarray(((blk * Hkv + h) * bs + slot) * Dv, ((blk * Hkv + h) * bs + slot + 1) * Dv), (h * ctx + t) * Dv);
    }
  }
  const args = { q, qShape: [1, Hq, 1, D], keyPool, keyPoolShape: [blocks, Hkv, bs, D], valuePool,
    valuePoolShape: [blocks, Hkv, bs, Dv], sequences: [{ blockTable, contextLen: ctx }], traceHead: 3 };
  const r = core.pagedDecode(args);
  const ref = flash.sdpa({ q, qShape: [1, Hq, 1, D], k, kShape: [1, Hkv, ctx, D], v, vShape: [1, Hkv, ctx, Dv] });
  close(r.output, ref.output, 'paged output');
  close(r.lse, ref.lse, 'paged lse');
  assert.deepEqual(r.outputShape, [1, Hq, 1, Dv]);
  assert.deepEqual(r.steps.map((s) => s.physicalBlock), blockTable);
  assert.deepEqual(r.steps.map((s) => s.tokenEnd - s.tokenBegin), [3, 3, 3, 2]);
  // Leading keys masked: the first block leaves m = -inf, without NaN.
  const keyAllowed = Array.from({ length: ctx }, (_, t) => (t >= 4 ? 1 : 0));
  const masked = core.pagedDecode({ ...args, sequences: [{ blockTable, contextLen: ctx, keyAllowed }] });
  assert.equal(masked.steps[0].m, -Infinity);
  assert.equal(masked.steps[0].l, 0);
  assert.ok(Number.isFinite(masked.steps[1].m));
  assert.ok(masked.output.every(Number.isFinite));

  throwsThenRecovers(() => core.pagedDecode({ ...args, sequences: [{ blockTable: [5, 0], contextLen: ctx }] }), /block_table/);
  throwsThenRecovers(() => core.pagedDecode({ ...args, sequences: [{ blockTable: [5, 0, 3, 9], contextLen: ctx }] }), /num_blocks/);
  throwsThenRecovers(() => core.pagedDecode({ ...args, sequences: [] }), /sequences/);
  throwsThenRecovers(() => core.pagedDecode({ ...args, sequences: [{ blockTable }] }), /contextLen: missing/);
  throwsThenRecovers(() => core.pagedDecode({ ...args, qShape: [1, Hq, 2, D / 2] }), /query/);
  throwsThenRecovers(() => core.pagedDecode({ ...args, traceHead: 4 }), /traceHead/);
  throwsThenRecovers(() => core.pagedDecode({ ...args, sequences: [{ blockTable, contextLen: ctx, keyAllowed: [1] }] }),
    /key_allowed/);
});

test('splitKvAttention: partitions merged in any order equal sdpa; empty partitions are harmless', () => {
  for (const causal of ['none', 'top_left', 'bottom_right']) {
    const p = problem({ L: 3, S: 17 });
    const ref = flash.sdpa({ ...p, causal });
    const r = core.splitKvAttention({ ...p, causal, numPartitions: 5, mergeOrder: [3, 0, 4, 1, 2] });
    close(r.output, ref.output, `split-KV ${causal}`);
    close(r.lse, ref.lse, `split-KV lse ${causal}`);
    assert.deepEqual(r.partitions.map((x) => [x.keyBegin, x.keyEnd]), [[0, 4], [4, 8], [8, 11], [11, 14], [14, 17]]);
    assert.deepEqual(r.merges.map((m) => m.merged), [0, 4, 1, 2]);
    // Each partition alone is attention over its keys.
    const firstKeys = (t, dim) => Float32Array.from([...t.subarray(0, 4 * dim), ...t.subarray(17 * dim, 21 * dim)]);
    const only = flash.sdpa({ ...p, k: firstKeys(p.k, 8), kShape: [1, 2, 4, 8], v: firstKeys(p.v, 5),
      vShape: [1, 2, 4, 5], causal: causal === 'bottom_right' ? 'none' : causal });
    if (causal !== 'bottom_right') close(r.partitions[0].output, only.output, 'partition 0');
  }
  const p = problem({ L: 1, S: 3 });
  const r = core.splitKvAttention({ ...p, numPartitions: 6 });
  assert.equal(r.partitions[5].keyBegin, r.partitions[5].keyEnd);
  assert.ok(r.partitions[5].m.every((m) => m === -Infinity));
  assert.ok(r.partitions[5].lse.every((x) => x === -Infinity));
  close(r.output, flash.sdpa(p).output, 'split-KV with empty partitions');
  throwsThenRecovers(() => core.splitKvAttention({ ...p, numPartitions: 0 }), /numPartitions/);
  throwsThenRecovers(() => core.splitKvAttention({ ...p, numPartitions: 2, mergeOrder: [1, 1] }), /mergeOrder/);
  throwsThenRecovers(() => core.splitKvAttention({ ...p, numPartitions: 2, mergeOrder: [1] }), /mergeOrder/);
  throwsThenRecovers(() => core.splitKvAttention({ ...p, causal: 'upper' }), /causal/);
});

test('chunkedPrefill: any chunking equals one shot and causal sdpa', () => {
  const p = problem({ L: 29, S: 29 });
  const ref = flash.sdpa({ ...p, causal: 'top_left' });
  const one = core.chunkedPrefill(p);
  close(one.output, ref.output, 'prefill one shot');
  close(one.lse, ref.lse, 'prefill lse');
  const chunked = core.chunkedPrefill({ ...p, chunkLengths: [1, 10, 3, 15], blockK: 4 });
  close(chunked.output, one.output, 'chunked == one shot');
  assert.equal(chunked.keyRowsRead, 4 * (29 * 30) / 2);
  throwsThenRecovers(() => core.chunkedPrefill({ ...p, chunkLengths: [10, 10] }), /chunk_lengths/);
  throwsThenRecovers(() => core.chunkedPrefill({ ...p, chunkLengths: [0, 29] }), /chunkLengths/);
  throwsThenRecovers(() => core.chunkedPrefill({ ...p, blockK: 0 }), /blockK/);
  throwsThenRecovers(() => core.chunkedPrefill(problem({ L: 5, S: 6 })), /key/);
});

test('sliding window: mask, receptive field, influence map', () => {
  const m = core.slidingWindowMask({ seqLen: 5, window: 2 });
  for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) assert.equal(m[i * 5 + j], j <= i && i - j < 2 ? 1 : 0);
  const f = core.slidingWindowReceptiveField({ layers: 32, window: 4096 });
  assert.equal(f.paperReachTokens, 131072);  // Mistral 7B Sec. 2: "approximately 131K tokens"
  assert.equal(f.reachTokens, 32 * 4095);
  const inf = core.slidingWindowInfluence({ layers: 3, window: 4, seqLen: 16, source: 1 });
  assert.equal(inf.length, 3);
  inf.forEach((row, l) => {
    for (let i = 0; i < 16; i++) assert.equal(row[i], i >= 1 && i - 1 <= (l + 1) * 3 ? 1 : 0);
  });
  throwsThenRecovers(() => core.slidingWindowMask({ seqLen: 0, window: 2 }), /seqLen/);
  throwsThenRecovers(() => core.slidingWindowMask({ seqLen: 4 }), /window: missing/);
  throwsThenRecovers(() => core.slidingWindowReceptiveField({ layers: 0, window: 2 }), /layers/);
  throwsThenRecovers(() => core.slidingWindowInfluence({ layers: 2, window: 2, seqLen: 4, source: 4 }), /source/);
  throwsThenRecovers(() => core.slidingWindowInfluence({ layers: 256, window: 2, seqLen: 1024 }), /layers\/seqLen/);
});

test('ringAttentionSchedule and ringAttentionTiming', () => {
  const s = core.ringAttentionSchedule({ devices: 4, qLen: 10 });
  assert.deepEqual(s.qShards, [[0, 3], [3, 6], [6, 8], [8, 10]]);
  assert.equal(s.steps.length, 16);
  for (const st of s.steps) {
    assert.equal(st.kvShard, (st.device - st.step + 4) % 4);
    assert.equal(st.sends, st.step < 3);
    assert.equal(st.computed, true);
  }
  const c = core.ringAttentionSchedule({ devices: 4, qLen: 8, causal: 'top_left' });
  assert.equal(c.steps.filter((x) => x.computed).length, 10);
  assert.equal(c.steps.reduce((a, x) => a + x.attendedPairs, 0), 36);

  const base = { devices: 4, qHeads: 8, kvHeads: 8, headDim: 128, linkBytesPerS: 450e9, gpu: 'h100-sxm' };
  const peak = flash.peakFlops({ gpu: 'h100-sxm', precision: 'fp16' });
  const small = core.ringAttentionTiming({ ...base, seqLen: 4 * 512 });
  const big = core.ringAttentionTiming({ ...base, seqLen: 4 * 16384 });
  assert.equal(small.peakFlops, peak);
  assert.ok(Math.abs(small.minShardTokensToHide - peak / 450e9) < 1e-9 * peak / 450e9);
  assert.equal(small.commHidden, false);  // 512 < F/B ~ 2199 tokens: communication shows
  assert.equal(big.commHidden, true);
  for (const t of [small, big]) {
    assert.equal(t.steps.length, 4);
    assert.ok(t.ringTimeS <= t.allgatherTimeS);
    assert.equal(t.allgatherKvBytesPerDevice, 2 * t.ringKvBytesPerDevice);
    const sum = t.steps.reduce((a, x) => a + Math.max(x.computeTimeS, x.sendTimeS), 0);
    assert.ok(Math.abs(sum - t.ringTimeS) <= 1e-12 * t.ringTimeS);
  }
  throwsThenRecovers(() => core.ringAttentionSchedule({ devices: 65, qLen: 100 }), /devices/);
  throwsThenRecovers(() => core.ringAttentionSchedule({ devices: 4, qLen: 3 }), /devices/);
  throwsThenRecovers(() => core.ringAttentionTiming({ ...base, seqLen: 4096, linkBytesPerS: 0 }), /linkBytesPerS/);
  throwsThenRecovers(() => core.ringAttentionTiming({ ...base, seqLen: 4096, gpu: 'tpu' }), /gpu/);
  throwsThenRecovers(() => core.ringAttentionTiming({ ...base, seqLen: 4096, kvHeads: 3 }), /kv_heads/);
  // The largest ring: 64 devices over 2^24 causal tokens; every visible pair of the triangle counted.
  const N = 2 ** 24, whole = core.ringAttentionTiming({ ...base, seqLen: N, devices: 64, causal: 'top_left' });
  const pairFlops = 2 * base.qHeads * 2 * base.headDim;
  assert.ok(Math.abs(whole.flopsTotal - (N * (N + 1) / 2) * pairFlops) <= 1e-12 * whole.flopsTotal);
  throwsThenRecovers(() => core.ringAttentionTiming({ ...base, seqLen: N + 1, devices: 64 }), /seqLen/);
});

test('ringAttentionTrace: the traced ring equals sdpa, each step merges the resident shard, errors against double are reported', () => {
  for (const [P, L, S, causal] of [[3, 17, 29, 'none'], [4, 17, 17, 'top_left'], [5, 13, 31, 'bottom_right'], [1, 7, 7, 'none']]) {
    const D = 16, Dv = 5, what = `P=${P} L=${L} S=${S} ${causal}`;
    const r = core.ringAttentionTrace({ devices: P, qLen: L, kvLen: S, valueDim: Dv, causal, seed: SEED });
    const q = core.randomNormal([1, 1, L, D], SEED, 1), k = core.randomNormal([1, 1, S, D], SEED + 1, 1);
    const v = core.randomNormal([1, 1, S, Dv], SEED + 2, 1);
    const ref = flash.sdpa({ q, qShape: [1, 1, L, D], k, kShape: [1, 1, S, D], v, vShape: [1, 1, S, Dv], causal });
    close(r.output, ref.output, `ring trace output ${what}`);
    assert.deepEqual(r.outputShape, [1, 1, L, Dv]);
    // Against double: within float rounding, and consistent with the float reference by the
    // triangle inequality (|ring - double| and |ring - float sdpa| differ by at most |float sdpa - double|).
    assert.ok(r.maxAbsError < TOL && r.denseFloatMaxAbsError < TOL, what);
    assert.ok(Math.abs(r.maxAbsError - maxAbsDiff(r.output, ref.output)) <= r.denseFloatMaxAbsError + 1e-7, what);
    assert.equal(r.steps.length, P * P);
    for (let d = 0; d < P; d++) {
      let m = null, l = null;
      for (let t = 0; t < P; t++) {
        const e = r.steps[t * P + d], rows = e.qEnd - e.qBegin;
        assert.equal(e.step, t);
        assert.equal(e.device, d);
        assert.equal(e.kvShard, (d - t + P) % P);
        assert.equal(e.blockM.length, rows);
        assert.equal(e.output.length, rows * Dv);
        if (!e.computed) assert.ok(e.blockL.every((x) => x === 0), `skipped shard ${what}`);
        if (t === 0) { m = new Array(rows).fill(-Infinity); l = new Array(rows).fill(0); }
        for (let i = 0; i < rows; i++) {  // the (m, l) merge done here from the blocks alone
          const mNew = Math.max(m[i], e.blockM[i]);
          if (mNew !== -Infinity) {
            l[i] = l[i] * Math.exp(m[i] - mNew) + e.blockL[i] * Math.exp(e.blockM[i] - mNew);
            m[i] = mNew;
          }
          assert.equal(e.m[i], Math.fround(m[i]), `running m ${what}`);
          assert.ok(Math.abs(e.l[i] - l[i]) <= 1e-5 * Math.max(1, l[i]), `running l ${what}`);
        }
        if (t === P - 1) assert.deepEqual(e.output, r.output.subarray(e.qBegin * Dv, e.qEnd * Dv));
      }
    }
  }
  const ok = { devices: 4, qLen: 16 };
  throwsThenRecovers(() => core.ringAttentionTrace({ ...ok, devices: 0 }), /devices/);
  throwsThenRecovers(() => core.ringAttentionTrace({ ...ok, devices: 17, qLen: 100 }), /devices: must be an integer in \[1, 16\]/);
  throwsThenRecovers(() => core.ringAttentionTrace({ ...ok, qLen: 3 }), /devices/);
  throwsThenRecovers(() => core.ringAttentionTrace({ ...ok, qLen: 1025 }), /qLen/);
  throwsThenRecovers(() => core.ringAttentionTrace({ ...ok, seed: -1 }), /seed/);
  throwsThenRecovers(() => core.ringAttentionTrace({ ...ok, causal: true }), /causal/);
  throwsThenRecovers(() => core.ringAttentionTrace({ ...ok, qLen: 1024, headDim: 9, valueDim: 8 }), /qLen\/kvLen\/headDim/);
  throwsThenRecovers(() => core.ringAttentionTrace({ devices: 16, qLen: 1024, kvLen: 16, headDim: 16 }), /devices\/qLen\/valueDim/);
});

test('speculativeDecoding and simulateSpeculativeDecoding', () => {
  const r = core.speculativeDecoding({ alpha: 0.8, gamma: 4, costRatio: 0.1 });
  const expected = (1 - 0.8 ** 5) / 0.2;
  assert.ok(Math.abs(r.expectedTokens - expected) < 1e-12);
  assert.ok(Math.abs(r.walltimeImprovement - expected / 1.4) < 1e-12);
  assert.equal(core.speculativeDecoding({ alpha: 0, gamma: 7 }).expectedTokens, 1);
  assert.equal(core.speculativeDecoding({ alpha: 0.5, gamma: 3, costRatio: 1 }).bestGamma, 0);
  const sim = core.simulateSpeculativeDecoding({ alpha: 0.8, gamma: 4, runs: 100000, seed: SEED % 4294967295 });
  assert.ok(Math.abs(sim.meanTokens - expected) < 5 * sim.stderrTokens, `seed ${SEED}`);
  assert.equal(sim.histogram.length, 5);
  assert.equal(sim.histogram.reduce((a, x) => a + x, 0), 100000);
  throwsThenRecovers(() => core.speculativeDecoding({ alpha: 1.5, gamma: 3 }), /alpha/);
  throwsThenRecovers(() => core.speculativeDecoding({ alpha: 0.5 }), /gamma: missing/);
  throwsThenRecovers(() => core.speculativeDecoding({ alpha: 0.5, gamma: 3, costRatio: -1 }), /costRatio/);
  throwsThenRecovers(() => core.simulateSpeculativeDecoding({ alpha: 0.5, gamma: 3, runs: 0 }), /runs/);
});
