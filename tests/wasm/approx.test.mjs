// Node tests of the approximate-attention API (wasm/classic/bind_approx.cpp, wasm/classic/approx.d.ts):
// each bound method on small inputs against its special case or a property that defines it, the
// LSH bucketing data, and error paths (the module keeps working after a thrown Error).
// Run: node --test tests/wasm/approx.test.mjs   (needs static/wasm/attn_classic.* built)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxAbsDiff, qkvProblem } from './fixtures.mjs';
import { loadModule } from './load.mjs';

const core = await loadModule('classic');

const problem = (shape = {}) => qkvProblem(core, { B: 1, H: 2, L: 16, S: 16, D: 8, Dv: 4, seed: 5, ...shape });

function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.linformer({ ...problem(), projection: 'identity' }).error.relativeFrobenius < 1e-6, true);
}

test('lshAttention: one bucket over the whole sequence is exact; buckets and 2-D points for the figure', () => {
  const p = problem({ L: 24, S: 24 });
  const exact = core.lshAttention({ ...p, numBuckets: 1, chunkLength: 24, numRounds: 2 });
  assert.ok(exact.error.relativeFrobenius < 1e-6);
  assert.equal(exact.cost.scoreEntries, 2 * 2 * 24 * 24);  // heads x rounds x one 24 x 24 block
  const r = core.lshAttention({ ...p, numBuckets: 4, numRounds: 3, chunkLength: 8, seed: 9 });
  assert.ok(r.buckets instanceof Uint32Array);
  assert.equal(r.buckets.length, 2 * 3 * 24);
  assert.ok(r.buckets.every((b) => b < 4));
  assert.equal(r.points2d.length, 2 * 24 * 2);
  for (let j = 0; j < 24; j++) assert.ok(Math.hypot(r.points2d[2 * j], r.points2d[2 * j + 1]) <= 1 + 1e-6);
  assert.equal(r.rotations.length, 3 * 8 * 2);
  assert.equal(r.chunkLength, 8);
  assert.ok(r.error.relativeFrobenius > 0);
  assert.deepEqual(core.lshAttention({ ...p, numBuckets: 4, numRounds: 3, chunkLength: 8, seed: 9 }).buckets, r.buckets);
});

test('lshAttention recordAttended: per pair the rounds that scored it, only ever inside one bucket', () => {
  const p = problem({ L: 24, S: 24 });
  const n = 24, rounds = 3;
  const r = core.lshAttention({ ...p, numBuckets: 4, numRounds: rounds, chunkLength: 24, seed: 9, recordAttended: true });
  assert.equal(core.lshAttention({ ...p, numBuckets: 4 }).attendedRounds, undefined);
  assert.ok(r.attendedRounds instanceof Uint8Array);
  assert.equal(r.attendedRounds.length, 2 * n * n);
  // With one chunk over the whole sequence a pair is scored in exactly the rounds that share its bucket.
  for (let h = 0; h < 2; h++) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let shared = 0;
        for (let t = 0; t < rounds; t++) shared += r.buckets[(h * rounds + t) * n + i] === r.buckets[(h * rounds + t) * n + j] ? 1 : 0;
        assert.equal(r.attendedRounds[(h * n + i) * n + j], shared);
      }
    }
  }
  throwsThenRecovers(() => core.lshAttention({ ...p, recordAttended: 'yes' }), /recordAttended/);
});

test('lshSectors2d: arcs tile the circle per round and hold the tokens of their bucket (d = 2)', () => {
  const n = 40, rounds = 2, numBuckets = 8, seed = 11;
  const p = qkvProblem(core, { B: 1, H: 1, L: n, S: n, D: 2, Dv: 2, seed: 3 });
  const r = core.lshAttention({ ...p, numBuckets, numRounds: rounds, seed });
  const s = core.lshSectors2d({ numBuckets, numRounds: rounds, seed });
  for (let t = 0; t < rounds; t++) {
    const arcs = [...s.round.keys()].filter((a) => s.round[a] === t);
    const total = arcs.reduce((sum, a) => sum + s.end[a] - s.begin[a], 0);
    assert.ok(Math.abs(total - 2 * Math.PI) < 1e-9);
    for (let j = 0; j < n; j++) {
      const angle = Math.atan2(p.q[2 * j + 1], p.q[2 * j]);
      const arc = arcs.find((a) => (((angle - s.begin[a]) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI) <= s.end[a] - s.begin[a]);
      assert.equal(s.bucket[arc], r.buckets[t * n + j]);
    }
  }
  assert.equal(core.lshSectors2d({ numBuckets: 1 }).end[0] - core.lshSectors2d({ numBuckets: 1 }).begin[0], 2 * Math.PI);
  throwsThenRecovers(() => core.lshSectors2d({ numBuckets: 66 }), /num_buckets: must be at most 64 for the 2-D sectors, got 66/);
  throwsThenRecovers(() => core.lshSectors2d({ numBuckets: 6, numRounds: 0 }), /numRounds/);
  throwsThenRecovers(() => core.lshSectors2d(null), /numBuckets: missing/);
});

test('linformer: identity projections are exact, random ones cost L x k scores', () => {
  const p = problem({ L: 10, S: 32 });
  assert.ok(core.linformer({ ...p, projection: 'identity' }).error.maxAbs < 1e-6);
  const r = core.linformer({ ...p, projectedLength: 8, seed: 3 });
  assert.equal(r.cost.scoreEntries, 2 * 10 * 8);
  assert.deepEqual(r.outputShape, [1, 2, 10, 4]);
});

test('performer and linearAttention: linear cost, equal forms', () => {
  const small = core.performer({ ...problem({ L: 32, S: 32 }), numFeatures: 16 });
  const large = core.performer({ ...problem({ L: 64, S: 64 }), numFeatures: 16 });
  assert.equal(large.cost.flops, 2 * small.cost.flops);
  assert.equal(small.cost.scoreEntries, 0);
  const p = problem({ L: 20, S: 20 });
  const rec = core.linearAttention({ ...p, causal: 'top_left' });
  const par = core.linearAttention({ ...p, causal: 'bottom_right', form: 'parallel' });
  assert.ok(maxAbsDiff(rec.output, par.output) < 1e-6);
  assert.equal(par.cost.scoreEntries, 2 * 20 * 21 / 2);
});

test('synthesizer and routingAttention: shapes, clusters, one cluster is exact', () => {
  const p = problem();
  for (const kind of ['dense', 'random']) assert.deepEqual(core.synthesizer({ ...p, kind, seed: 1 }).outputShape, [1, 2, 16, 4]);
  const one = core.routingAttention({ ...p, numClusters: 1 });
  assert.ok(one.error.relativeFrobenius < 1e-6);
  const r = core.routingAttention({ ...p, numClusters: 4, seed: 2 });
  assert.equal(r.queryCluster.length, 32);
  assert.equal(r.keyCluster.length, 32);
  assert.ok([...r.queryCluster, ...r.keyCluster].every((c) => c < 4));
});

test('retrievalInputs: dense-like methods keep the top-1 key', () => {
  // d = 64, sharpness 2 (the default): the target scores ~16 against N(0, 4) competitors.
  const inputs = core.retrievalInputs({ qShape: [1, 1, 32, 64], seed: 4 });
  assert.equal(inputs.targets.length, 32);
  assert.deepEqual(inputs.kShape, [1, 1, 32, 64]);
  const r = core.routingAttention({ ...inputs, numClusters: 1 });
  assert.equal(r.error.top1Preserved, 1);
});

test('bad arguments throw named Errors and the module keeps working', () => {
  throwsThenRecovers(() => core.lshAttention({ ...problem(), numBuckets: 3 }), /num_buckets: must be 1 or an even number/);
  throwsThenRecovers(() => core.lshAttention({ ...problem({ S: 17 }) }), /needs as many keys as queries/);
  throwsThenRecovers(() => core.linformer({ ...problem(), projection: 'learned' }), /projection: must be 'random' or 'identity'/);
  throwsThenRecovers(() => core.performer({ ...problem(), numFeatures: 0 }), /numFeatures/);
  throwsThenRecovers(() => core.linearAttention({ ...problem({ S: 12 }), causal: 'top_left' }), /needs L == S/);
  throwsThenRecovers(() => core.synthesizer({ ...problem(), kind: 'mlp' }), /kind: must be 'dense' or 'random'/);
  throwsThenRecovers(() => core.routingAttention({ ...problem(), numClusters: 0 }), /numClusters/);
  throwsThenRecovers(() => core.retrievalInputs({ qShape: [1, 1, 4, 4], noise: -1 }), /noise/);
  throwsThenRecovers(() => core.performer(null), /q: missing/);
});
