// Node tests of the Part 1 API (wasm/classic/bind_classic.cpp, bind_classic_multihead.cpp,
// wasm/classic/classic.d.ts): each bound function against expectations computed here from its
// definition, and bad arguments turning into JavaScript Errors that carry the core's message.
// Run: node --test tests/wasm/classic.test.mjs   (needs static/wasm/attn_classic.* built)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const core = await loadModule('classic');

function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.scoreFlops({ kind: 'dot', queryDim: 3 }).perPair, 5);  // the module still works
}

const close = (a, b, tol) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b} (tol ${tol})`);

test('scoreAttention: dot scores, softmax weights, entropies and context on a hand example', () => {
  // q = [1, 0], keys [1, 0] and [0, 1]: scores [1, 0], weights [e, 1] / (e + 1).
  const r = core.scoreAttention({ kind: 'dot', queries: [1, 0], queryShape: [1, 2], keys: [1, 0, 0, 1],
    keyShape: [2, 2], values: [10, 20, 30, 40], valueShape: [2, 2] });
  assert.deepEqual(Array.from(r.scores), [1, 0]);
  assert.deepEqual(r.shape, [1, 2]);
  const a = Math.E / (Math.E + 1);
  close(r.weights[0], a, 1e-15);
  close(r.entropies[0], -(a * Math.log(a) + (1 - a) * Math.log(1 - a)), 1e-15);
  assert.deepEqual(r.context.shape, [1, 2]);
  close(r.context.data[0], a * 10 + (1 - a) * 30, 1e-12);
  const s = core.scoreAttention({ kind: 'scaled_dot', queries: [1, 1, 1, 1], queryShape: [1, 4],
    keys: [1, 1, 1, 1, 2, 0, 0, 0], keyShape: [2, 4] });
  assert.deepEqual(Array.from(s.scores), [2, 1]);  // 4 / sqrt 4, 2 / sqrt 4
});

test('scoreAttention: general and additive scores equal their definitions', () => {
  const queries = core.randomNormal([1, 1, 3, 4], 1, 1), keys = core.randomNormal([1, 1, 5, 6], 2, 1);
  const w = core.randomNormal([1, 1, 4, 6], 3, 0.5);
  const g = core.scoreAttention({ kind: 'general', queries, queryShape: [3, 4], keys, keyShape: [5, 6], w, wShape: [4, 6] });
  for (let i = 0; i < 3; i++) for (let j = 0; j < 5; j++) {
    let e = 0;
    for (let a = 0; a < 4; a++) for (let b = 0; b < 6; b++) e += queries[i * 4 + a] * w[a * 6 + b] * keys[j * 6 + b];
    close(g.scores[i * 5 + j], e, 1e-12);
  }
  const W = core.randomNormal([1, 1, 7, 4], 4, 0.5), U = core.randomNormal([1, 1, 7, 6], 5, 0.5);
  const v = core.randomNormal([1, 1, 1, 7], 6, 1);
  const add = core.scoreAttention({ kind: 'additive', queries, queryShape: [3, 4], keys, keyShape: [5, 6],
    w: W, wShape: [7, 4], u: U, uShape: [7, 6], v });
  for (let i = 0; i < 3; i++) for (let j = 0; j < 5; j++) {
    let e = 0;
    for (let a = 0; a < 7; a++) {
      let pre = 0;
      for (let x = 0; x < 4; x++) pre += W[a * 4 + x] * queries[i * 4 + x];
      for (let x = 0; x < 6; x++) pre += U[a * 6 + x] * keys[j * 6 + x];
      e += v[a] * Math.tanh(pre);
    }
    close(add.scores[i * 5 + j], e, 1e-12);
  }
});

test('scoreAttention and scoreFlops: bad arguments become Errors with the core message', () => {
  const q = { queries: [1, 2, 3, 4, 5, 6], queryShape: [2, 3], keys: [1, 2, 3], keyShape: [1, 3] };
  throwsThenRecovers(() => core.scoreAttention({ ...q, kind: 'cosine' }), /kind: must be 'additive', 'dot', 'general' or 'scaled_dot'/);
  throwsThenRecovers(() => core.scoreAttention({ ...q, kind: 'dot', queryShape: [3, 3] }), /queries: expected 9 values/);
  throwsThenRecovers(() => core.scoreAttention({ ...q, kind: 'dot', keys: [1, 2, 3, 4], keyShape: [1, 4] }), /same width/);
  throwsThenRecovers(() => core.scoreAttention({ ...q, kind: 'general', w: [1, 2], wShape: [1, 2] }), /w: must be \[query_dim, key_dim\] = \[3, 3\]/);
  throwsThenRecovers(() => core.scoreAttention({ ...q, kind: 'dot', queries: [1, 2, 3, 4, 5, NaN] }), /queries: every value must be finite/);
  throwsThenRecovers(() => core.scoreAttention(undefined), /missing/);
  throwsThenRecovers(() => core.scoreFlops({ kind: 'dot', queryDim: 3, keyDim: 4 }), /query_dim == key_dim/);
});

test('scoreFlops: Bahdanau-sized additive scoring with and without hoisting', () => {
  const naive = core.scoreFlops({ kind: 'additive', queryDim: 1000, keyDim: 2000, attentionDim: 1000, reuse: false });
  assert.equal(naive.perPair, 6001999);
  const hoisted = core.scoreFlops({ kind: 'additive', queryDim: 1000, keyDim: 2000, attentionDim: 1000, numQueries: 2, numKeys: 3 });
  assert.deepEqual([hoisted.perPair, hoisted.perQuery, hoisted.perKey], [3999, 1000 * 1999, 1000 * 3999]);
  assert.equal(hoisted.total, 6 * 3999 + 2 * 1000 * 1999 + 3 * 1000 * 3999);
});

test('scalingExperiment: raw variance ~ d, scaled ~ 1, unscaled entropy falls, reproducible', () => {
  const input = { dims: [4, 64, 512], numKeys: 16, trials: 400, seed: 5 };
  const rows = core.scalingExperiment(input);
  assert.equal(rows.length, 3);
  for (const r of rows) {
    // 5 standard deviations of the sample variance (derivation in tests/core/test_classic_scaling.cpp).
    const tol = 5 * Math.sqrt((2 * r.dim * r.dim + 36 * r.dim) / (400 * 16));
    close(r.raw.variance, r.dim, tol);
    close(r.scaled.variance, 1, tol / r.dim);
    assert.equal(r.additive, undefined);
  }
  assert.ok(rows[0].raw.entropy > rows[1].raw.entropy && rows[1].raw.entropy > rows[2].raw.entropy);
  assert.ok(rows[2].raw.entropyNormalized < 0.15 && rows[2].scaled.entropyNormalized > 0.8);
  assert.deepEqual(core.scalingExperiment(input), rows);
  const withAdditive = core.scalingExperiment({ dims: [32], trials: 20, includeAdditive: true });
  assert.ok(withAdditive[0].additive.variance > 0);
  throwsThenRecovers(() => core.scalingExperiment({ numKeys: 1 }), /numKeys: must be an integer in \[2, 4096\]/);
  throwsThenRecovers(() => core.scalingExperiment({ dims: [] }), /dims.length: must be in \[1, 64\]/);
  throwsThenRecovers(() => core.scalingExperiment({ dims: [4096], trials: 1000, numKeys: 16 }), /in-browser limit/);
});

test('scalingExperiment: the softmax Jacobian norm and the first trial\'s scores and weights', () => {
  const rows = core.scalingExperiment({ dims: [4, 64, 512], numKeys: 16, trials: 200, seed: 9 });
  // The additive score costs (n + 1) d^2 per trial: fewer trials, the same first draw.
  const additive = core.scalingExperiment({ dims: [4, 64, 512], numKeys: 16, trials: 10, seed: 9, includeAdditive: true });
  rows.forEach((r, i) => { r.additive = additive[i].additive; });
  for (const r of rows) {
    for (const s of [r.raw, r.scaled, r.additive]) {
      // diag(a) - a a^T is positive semi-definite: its Frobenius norm is at most its trace, below 1.
      assert.ok(s.jacobianNorm > 0 && s.jacobianNorm < 1, `${r.dim}: ${s.jacobianNorm}`);
      assert.ok(s.firstScores instanceof Float64Array && s.firstScores.length === 16);
      // The reported weights are the softmax of the reported scores.
      const max = Math.max(...s.firstScores);
      const e = Array.from(s.firstScores, (x) => Math.exp(x - max));
      const z = e.reduce((a, b) => a + b, 0);
      e.forEach((x, j) => close(s.firstWeights[j], x / z, 1e-14));
    }
    r.raw.firstScores.forEach((x, j) => close(x, r.scaled.firstScores[j] * Math.sqrt(r.dim), 1e-12 * Math.max(1, Math.abs(x))));
  }
  // Unscaled, the gradient through the softmax collapses with d; scaled, it holds.
  assert.ok(rows[2].raw.jacobianNorm < 0.35 * rows[2].scaled.jacobianNorm);
  assert.ok(Math.abs(rows[0].scaled.jacobianNorm - rows[2].scaled.jacobianNorm) < 0.05);
  // The first trial is the seed's (for the same dims), whatever the number of trials.
  const one = core.scalingExperiment({ dims: [4, 64, 512], numKeys: 16, trials: 1, seed: 9, includeAdditive: true });
  assert.deepEqual(one[1].additive.firstScores, rows[1].additive.firstScores);
  assert.deepEqual(additive[1].raw.firstScores, rows[1].raw.firstScores);
  assert.deepEqual(one[1].raw.firstWeights, rows[1].raw.firstWeights);
});

test('positionalEncoding: sin and cos of pos / 10000^(2i/d)', () => {
  const pe = core.positionalEncoding({ numPositions: 7, dModel: 8 });
  assert.deepEqual(pe.shape, [7, 8]);
  for (let pos = 0; pos < 7; pos++) for (let i = 0; i < 4; i++) {
    const angle = pos / Math.pow(10000, (2 * i) / 8);
    close(pe.data[pos * 8 + 2 * i], Math.sin(angle), 1e-14);
    close(pe.data[pos * 8 + 2 * i + 1], Math.cos(angle), 1e-14);
  }
  throwsThenRecovers(() => core.positionalEncoding({ numPositions: 4, dModel: 7 }), /d_model: sinusoids come in \(sin, cos\) pairs/);
});

test('patternHead: every row puts its largest weight, at least minWeight, on its target', () => {
  // [CLS] the animal didn't cross the street because it was too tired [SEP]
  const inputs = [
    { pattern: 'previous_token', numTokens: 13 },
    { pattern: 'head_word', heads: [0, 2, 4, 4, 4, 6, 4, 11, 11, 11, 11, 4, 12] },
    { pattern: 'coreference', numTokens: 13, links: [[8, 2]], fallback: 12 },
    { pattern: 'broadcast', numTokens: 13, separator: 12 },
  ];
  for (const input of inputs) {
    for (const features of ['one_hot', 'sinusoidal']) {
      const h = core.patternHead({ ...input, features, minWeight: 0.85 });
      assert.deepEqual(h.weights.shape, [13, 13]);
      for (let i = 0; i < 13; i++) {
        const row = h.weights.data.subarray(i * 13, i * 13 + 13);
        const argmax = row.indexOf(Math.max(...row));
        assert.equal(argmax, h.targets[i], `${input.pattern} row ${i}`);
        assert.ok(row[argmax] >= 0.85 * (1 - 1e-12));
      }
    }
  }
  assert.equal(core.patternHead(inputs[2]).targets[8], 2);
  throwsThenRecovers(() => core.patternHead({ pattern: 'diagonal', numTokens: 4 }), /pattern: must be/);
  throwsThenRecovers(() => core.patternHead({ pattern: 'coreference', numTokens: 4, links: [[2, 2]] }), /cannot be its own antecedent/);
  throwsThenRecovers(() => core.patternHead({ pattern: 'broadcast', numTokens: 4, minWeight: 0.5 }), /min_weight: must be in \(0.5, 1\)/);
});

test('multiHeadAttention: cross-attention with L_dec != L_enc, encoder padding, and per-head weights', () => {
  const B = 2, Ldec = 3, Lenc = 5, d = 8, H = 2, dk = 4;
  const x = core.randomNormal([B, 1, Ldec, d], 7, 1), encoder = core.randomNormal([B, 1, Lenc, d], 8, 1);
  const r = core.multiHeadAttention({ mode: 'cross', x, xShape: [B, Ldec, d], encoder, encoderShape: [B, Lenc, d],
    numHeads: H, headDim: dk, weightsSeed: 9, keyLengths: [5, 2] });
  assert.deepEqual(r.weights.shape, [B, H, Ldec, Lenc]);
  assert.deepEqual(r.output.shape, [B, 1, Ldec, d]);
  assert.deepEqual(r.mask.shape, [B, 1, Ldec, Lenc]);
  // Weights are softmax(q k^T / sqrt(dk)) over the unpadded keys, from the returned projections.
  for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let i = 0; i < Ldec; i++) {
    const valid = b === 0 ? 5 : 2;
    const s = [];
    for (let j = 0; j < valid; j++) {
      let dot = 0;
      for (let c = 0; c < dk; c++) dot += r.q.data[((b * H + h) * Ldec + i) * dk + c] * r.k.data[((b * H + h) * Lenc + j) * dk + c];
      s.push(dot / Math.sqrt(dk));
    }
    const m = Math.max(...s), z = s.reduce((acc, e) => acc + Math.exp(e - m), 0);
    for (let j = 0; j < Lenc; j++) {
      const got = r.weights.data[((b * H + h) * Ldec + i) * Lenc + j];
      close(got, j < valid ? Math.exp(s[j] - m) / z : 0, 1e-12);
      assert.equal(r.mask.data[(b * Ldec + i) * Lenc + j], j < valid ? 1 : 0);
    }
  }
  throwsThenRecovers(() => core.multiHeadAttention({ mode: 'cross', x, xShape: [B, Ldec, d], encoder,
    encoderShape: [B, Lenc, d], numHeads: H, headDim: dk, weightsSeed: 9, causal: 'top_left' }), /cross-attention is never causal/);
});

test('multiHeadAttention: causal self-attention and its argument checks', () => {
  const x = core.randomNormal([1, 1, 4, 6], 3, 1);
  const r = core.multiHeadAttention({ mode: 'self', x, xShape: [1, 4, 6], numHeads: 3, headDim: 2, weightsSeed: 1, causal: 'top_left' });
  for (let h = 0; h < 3; h++) for (let i = 0; i < 4; i++) {
    let sum = 0;
    for (let j = 0; j < 4; j++) {
      const w = r.weights.data[(h * 4 + i) * 4 + j];
      if (j > i) assert.equal(w, 0);
      sum += w;
    }
    close(sum, 1, 1e-14);
  }
  const base = { mode: 'self', x, xShape: [1, 4, 6], numHeads: 3, headDim: 2, weightsSeed: 1 };
  throwsThenRecovers(() => core.multiHeadAttention({ ...base, mode: 'both' }), /mode: must be 'self' or 'cross'/);
  throwsThenRecovers(() => core.multiHeadAttention({ ...base, keyLengths: [5] }), /key_lengths: must be in \[1, 4\], got 5/);
  throwsThenRecovers(() => core.multiHeadAttention({ ...base, weightsSeed: undefined }), /weightsSeed: give either/);
  throwsThenRecovers(() => core.multiHeadAttention({ ...base, weightsSeed: undefined, wQ: [1], wK: [1], wV: [1], wO: [1] }), /w_q: must hold/);
  throwsThenRecovers(() => core.multiHeadAttention({ ...base, mode: 'cross' }), /encoder: missing/);
});

test('multiHeadAttention: with weightsSeed, a projection given replaces the drawn one and the rest stay drawn', () => {
  const x = core.randomNormal([1, 1, 4, 6], 4, 1);
  const base = { mode: 'self', x, xShape: [1, 4, 6], numHeads: 3, headDim: 2, weightsSeed: 1 };
  const drawn = core.multiHeadAttention(base);
  const wQ = core.randomNormal([1, 3, 6, 2], 5, 1);  // [numHeads, dModel, headDim]
  const mixed = core.multiHeadAttention({ ...base, wQ });
  // Q = x W_i^Q for each head, from the given matrix.
  for (let h = 0; h < 3; h++) for (let i = 0; i < 4; i++) for (let c = 0; c < 2; c++) {
    let want = 0;
    for (let m = 0; m < 6; m++) want += x[i * 6 + m] * wQ[(h * 6 + m) * 2 + c];
    close(mixed.q.data[(h * 4 + i) * 2 + c], want, 1e-12);
  }
  // K, V (drawn from the same seed) are unchanged; the weights move with Q.
  assert.deepEqual(mixed.k.data, drawn.k.data);
  assert.deepEqual(mixed.v.data, drawn.v.data);
  assert.notDeepEqual(mixed.weights.data, drawn.weights.data);
  throwsThenRecovers(() => core.multiHeadAttention({ ...base, weightsSeed: undefined, wQ }), /weightsSeed: give either/);
  throwsThenRecovers(() => core.multiHeadAttention({ ...base, wO: [1, 2] }), /w_o: must hold/);
});

test('causal takes the same strings in every module; a boolean is refused with the shared message', () => {
  const x = core.randomNormal([1, 1, 4, 6], 3, 1);
  const self = { mode: 'self', x, xShape: [1, 4, 6], numHeads: 3, headDim: 2, weightsSeed: 1 };
  const topLeft = core.multiHeadAttention({ ...self, causal: 'top_left' });
  const bottomRight = core.multiHeadAttention({ ...self, causal: 'bottom_right' });
  assert.deepEqual(topLeft.output, bottomRight.output);  // L = S: the two alignments are one mask
  assert.notDeepEqual(core.multiHeadAttention({ ...self, causal: 'none' }).output, topLeft.output);
  for (const causal of [true, false, 1, 'causal']) {
    assert.throws(() => core.multiHeadAttention({ ...self, causal }), /^Error: causal: must be 'none', 'top_left' or 'bottom_right'/);
  }
});
