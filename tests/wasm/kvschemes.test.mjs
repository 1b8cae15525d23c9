// Node tests of the KV-cache-scheme API (wasm/inference/bind_kvschemes.cpp, wasm/inference/kvschemes.d.ts): every bound
// function with good and bad arguments, results checked against the core's semantics, and the
// module checked to answer correctly after each error.
// Run: node --test tests/wasm/   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const core = await loadModule('inference');

const KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// Throws an Error whose message matches, then the module still answers a known query exactly.
function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.kvCacheBytes({ model: 'opt-13b', contextTokens: 1 }).bytesPerToken, 800 * KiB);
}

const product = (terms) => terms.reduce((p, t) => p * t.value, 1);

test('kvCacheBytes: presets, explicit configurations, terms, sliding window', () => {
  // PagedAttention (Kwon et al. 2023), Sec. 3: OPT-13B, 800 KB per token at FP16.
  const opt = core.kvCacheBytes({ model: 'opt-13b', contextTokens: 2048, batch: 3 });
  assert.equal(opt.scheme, 'mha');
  assert.equal(opt.dtype, 'fp16');
  assert.equal(opt.bytesPerToken, 800 * KiB);
  assert.equal(opt.bytesPerRequest, 2048 * 800 * KiB);
  assert.equal(opt.totalBytes, 3 * 2048 * 800 * KiB);
  assert.equal(opt.formula, '2 x L x H_kv x d_h x bytes');
  assert.deepEqual(opt.terms.map((t) => t.symbol), ['2', 'L', 'H_kv', 'd_h', 'bytes']);
  assert.equal(product(opt.terms), opt.bytesPerToken);

  const v2 = core.kvCacheBytes({ model: 'deepseek-v2', contextTokens: 1, dtype: 'bf16' });
  assert.equal(v2.scheme, 'mla');
  assert.equal(v2.formula, 'L x (d_c + d_R) x bytes');
  assert.equal(v2.elementsPerTokenPerLayer, 512 + 64);
  assert.equal(v2.bytesPerToken, 60 * 576 * 2);
  assert.equal(product(v2.terms), v2.bytesPerToken);
  assert.equal(v2.kvHeads, 0);

  // Mistral 7B: 32 x 8 x 128, window 4096: the cache stops growing at 4096 tokens.
  const m4k = core.kvCacheBytes({ model: 'mistral-7b', contextTokens: 4096 });
  const m8k = core.kvCacheBytes({ model: 'mistral-7b', contextTokens: 8192 });
  assert.equal(m8k.slidingWindow, 4096);
  assert.equal(m8k.cachedTokens, 4096);
  assert.equal(m8k.bytesPerRequest, m4k.bytesPerRequest);
  assert.equal(m8k.bytesPerRequest, 512 * MiB);

  const gqa = core.kvCacheBytes({ scheme: 'gqa', layers: 3, qHeads: 12, kvHeads: 4, headDim: 17, contextTokens: 129,
    dtype: 'fp8', slidingWindow: 113 });
  assert.equal(gqa.bytesPerToken, 2 * 3 * 4 * 17);
  assert.equal(gqa.cachedTokens, 113);
  assert.equal(gqa.bytesPerRequest, 113 * gqa.bytesPerToken);
  for (const [dtype, bytes] of [['fp32', 4], ['fp16', 2], ['bf16', 2], ['fp8', 1]]) {
    const r = core.kvCacheBytes({ scheme: 'mqa', layers: 5, qHeads: 7, headDim: 3, contextTokens: 1, dtype });
    assert.equal(r.bytesPerToken, 2 * 5 * 3 * bytes);
    assert.equal(r.kvHeads, 1);
  }
  const mla = core.kvCacheBytes({ scheme: 'mla', layers: 2, qHeads: 4, latentDim: 9, ropeDim: 4, contextTokens: 5 });
  assert.equal(mla.bytesPerRequest, 5 * 2 * 13 * 2);

  throwsThenRecovers(() => core.kvCacheBytes({ model: 'llama', contextTokens: 1 }), /model: unknown preset 'llama'/);
  throwsThenRecovers(() => core.kvCacheBytes({ model: 'gpt2' }), /contextTokens: missing/);
  throwsThenRecovers(() => core.kvCacheBytes({ model: 'gpt2', contextTokens: 0 }), /contextTokens: must be an integer in \[1, 16777216\]/);
  throwsThenRecovers(() => core.kvCacheBytes({ model: 'gpt2', contextTokens: 1, dtype: 'int4' }), /dtype: unknown name 'int4'/);
  throwsThenRecovers(() => core.kvCacheBytes({ model: 'gpt2', contextTokens: 1, batch: 0.5 }), /batch: must be an integer/);
  throwsThenRecovers(() => core.kvCacheBytes({ scheme: 'gqa', layers: 2, qHeads: 12, kvHeads: 5, headDim: 8, contextTokens: 1 }),
    /kv_heads: must divide q_heads \(12\)/);
  throwsThenRecovers(() => core.kvCacheBytes({ scheme: 'mha', layers: 2, qHeads: 12, contextTokens: 1 }), /headDim: missing/);
  throwsThenRecovers(() => core.kvCacheBytes({ scheme: 'mla', layers: 2, qHeads: 12, latentDim: 8, contextTokens: 1 }), /ropeDim: missing/);
  throwsThenRecovers(() => core.kvCacheBytes({ scheme: 'xyz', layers: 2, qHeads: 12, headDim: 8, contextTokens: 1 }),
    /scheme: must be 'mha', 'mqa', 'gqa' or 'mla'/);
  throwsThenRecovers(() => core.kvCacheBytes(undefined), /model: missing/);
  // 2^16 layers x 2 x 2^16 heads x 2^16 x 4 B x 2^24 tokens is far beyond 2^53 bytes.
  throwsThenRecovers(() => core.kvCacheBytes({ scheme: 'mha', layers: 65536, qHeads: 65536, headDim: 65536,
    contextTokens: 16777216, dtype: 'fp32' }), /exceeds 2\^53|does not fit in 64 bits/);
});

test('kvSchemeComparison: the Part 4 Llama-3-70B-like table at FP16, corrected MLA row', () => {
  const want = {
    mha: [2.5 * MiB, 20 * GiB, 80 * GiB, 320 * GiB],
    mqa: [40 * KiB, 320 * MiB, 1.25 * GiB, 5 * GiB],
    gqa: [320 * KiB, 2.5 * GiB, 10 * GiB, 40 * GiB],
    // 80 x (512 + 64) x 2 B; the plan printed ~21 KB / 168 MB / 670 MB / 2.7 GB.
    mla: [90 * KiB, 720 * MiB, 2.8125 * GiB, 11.25 * GiB],
  };
  [8192, 32768, 131072].forEach((contextTokens, c) => {
    const rows = core.kvSchemeComparison({ contextTokens });
    assert.deepEqual(rows.map((r) => r.scheme), ['mha', 'mqa', 'gqa', 'mla']);
    for (const r of rows) {
      assert.equal(r.bytesPerToken, want[r.scheme][0]);
      assert.equal(r.bytesPerRequest, want[r.scheme][c + 1]);
      assert.equal(product(r.terms), r.bytesPerToken);
      assert.equal(r.layers, 80);
      assert.equal(r.qHeads, 64);
    }
    assert.deepEqual(rows.map((r) => r.kvHeads), [64, 1, 8, 0]);
  });
  const small = core.kvSchemeComparison({ contextTokens: 3, batch: 2, dtype: 'fp32', layers: 1, qHeads: 6, headDim: 5,
    gqaGroups: 3, latentDim: 7, ropeDim: 2 });
  assert.deepEqual(small.map((r) => r.totalBytes), [2 * 3 * 2 * 6 * 5 * 4, 2 * 3 * 2 * 5 * 4, 2 * 3 * 2 * 3 * 5 * 4, 2 * 3 * 9 * 4]);
  throwsThenRecovers(() => core.kvSchemeComparison({ contextTokens: 1, gqaGroups: 7 }), /kv_heads: must divide q_heads \(64\)/);
  throwsThenRecovers(() => core.kvSchemeComparison({}), /contextTokens: missing/);
  throwsThenRecovers(() => core.kvSchemeComparison({ contextTokens: 1, layers: 0 }), /layers: must be an integer in \[1, 65536\]/);
  throwsThenRecovers(() => core.kvSchemeComparison(null), /contextTokens: missing/);
});

test('ropeVector: eq. 34 rotation, both layouts, relative positions', () => {
  const x = [0.3, -1.2, 0.7, 2.0, -0.4, 1.1];
  const d = x.length;
  for (const layout of ['half_split', 'interleaved']) {
    const m = 37;
    const r = core.ropeVector({ x, position: m, layout });
    assert.equal(r.rotated.length, d);
    for (let i = 0; i < d / 2; i++) {
      const theta = Math.pow(10000, (-2 * i) / d);
      assert.ok(Math.abs(r.thetas[i] - theta) < 1e-15);
      assert.ok(Math.abs(r.anglesRad[i] - m * theta) < 1e-12);
      const [a, b] = layout === 'half_split' ? [i, i + d / 2] : [2 * i, 2 * i + 1];
      const c = Math.cos(m * theta), s = Math.sin(m * theta);
      assert.ok(Math.abs(r.rotated[a] - (x[a] * c - x[b] * s)) < 1e-12);
      assert.ok(Math.abs(r.rotated[b] - (x[a] * s + x[b] * c)) < 1e-12);
    }
    // <RoPE(q, m), RoPE(k, n)> depends only on m - n.
    const q = x, k = [1.5, 0.2, -0.9, 0.4, 0.8, -0.3];
    const dot = (u, v) => u.reduce((acc, ui, j) => acc + ui * v[j], 0);
    const at = (mq, nk) => dot(core.ropeVector({ x: q, position: mq, layout }).rotated,
      core.ropeVector({ x: k, position: nk, layout }).rotated);
    assert.ok(Math.abs(at(10, 3) - at(110, 103)) < 1e-12);
  }
  const def = core.ropeVector({ x: new Float32Array([1, 0, 0, 0]), position: 1 });
  assert.ok(Math.abs(def.rotated[0] - Math.cos(1)) < 1e-15 && Math.abs(def.rotated[2] - Math.sin(1)) < 1e-15);  // half_split default
  const base = core.ropeVector({ x: [1, 0, 1, 0], position: 2, base: 100 });
  assert.ok(Math.abs(base.thetas[1] - 0.1) < 1e-15);
  assert.deepEqual(core.ropeVector({ x, position: 0 }).rotated, x);

  throwsThenRecovers(() => core.ropeVector({ x: [1, 2, 3], position: 1 }), /dim: RoPE rotates pairs/);
  throwsThenRecovers(() => core.ropeVector({ x: [1, 2], position: -1 }), /position: must be an integer in \[0, 16777216\]/);
  throwsThenRecovers(() => core.ropeVector({ x: [1, 2], position: 1, base: 1 }), /base: must be finite and > 1/);
  throwsThenRecovers(() => core.ropeVector({ x: [1, 2], position: 1, layout: 'neox' }), /layout: must be 'half_split' or 'interleaved'/);
  throwsThenRecovers(() => core.ropeVector({ x: [1, 'a'], position: 1 }), /x: element 1 is not a number/);
  throwsThenRecovers(() => core.ropeVector({ x: [1, NaN], position: 1 }), /x: element 1 is not finite/);
  throwsThenRecovers(() => core.ropeVector({ x: 'ab', position: 1 }), /x: must be a Float32Array, Float64Array or array of numbers/);
  throwsThenRecovers(() => core.ropeVector({ position: 1 }), /x: missing/);
  throwsThenRecovers(() => core.ropeVector({ x: new Float32Array(16386), position: 1 }), /x: has 16386 entries, expected at most 16384/);
});

test('mlaCompare: explicit and absorbed agree, the absorbed cache holds d_c + d_R per token', () => {
  const args = { modelDim: 13, heads: 3, latentDim: 9, nopeDim: 5, ropeDim: 6, valueDim: 7, seqLen: 17, seed: 5 };
  for (const causal of ['none', 'top_left', 'bottom_right']) {
    for (const queryLen of [0, 1, 17]) {
      const r = core.mlaCompare({ ...args, causal, queryLen, batch: 2 });
      const rows = queryLen === 0 ? 17 : queryLen;
      assert.deepEqual(r.outputShape, [2, 1, rows, 13]);
      assert.equal(r.explicitOutput.length, 2 * rows * 13);
      assert.ok(r.maxAbsDiff < 1e-10, `maxAbsDiff ${r.maxAbsDiff}`);
      for (let i = 0; i < r.explicitOutput.length; i++) {
        assert.ok(Math.abs(r.explicitOutput[i] - r.absorbedOutput[i]) <= 1e-6 * Math.max(1, Math.abs(r.explicitOutput[i])));
      }
      assert.equal(r.absorbedCacheElementsPerToken, 9 + 6);
      assert.equal(r.explicitCacheElementsPerToken, 3 * (5 + 6 + 7));
      assert.equal(r.cacheTokens, 17);
    }
  }
  // Same seed, same numbers; another seed, other numbers.
  assert.deepEqual(core.mlaCompare(args).explicitOutput, core.mlaCompare(args).explicitOutput);
  assert.notDeepEqual(core.mlaCompare(args).explicitOutput, core.mlaCompare({ ...args, seed: 6 }).explicitOutput);

  throwsThenRecovers(() => core.mlaCompare({ ...args, ropeDim: 5 }), /rope_dim: RoPE rotates pairs/);
  throwsThenRecovers(() => core.mlaCompare({ ...args, heads: 65 }), /heads: must be an integer in \[1, 64\]/);
  throwsThenRecovers(() => core.mlaCompare({ ...args, queryLen: 18 }), /queryLen: must be an integer in \[0, 17\]/);
  throwsThenRecovers(() => core.mlaCompare({ ...args, causal: 'yes' }), /causal: must be 'none', 'top_left' or 'bottom_right'/);
  throwsThenRecovers(() => core.mlaCompare({ ...args, seqLen: 129 }), /seqLen: must be an integer in \[1, 128\]/);
  throwsThenRecovers(() => core.mlaCompare({ ...args, heads: 64, latentDim: 64, ropeDim: 64, seqLen: 128 }),
    /exceeds the in-browser limit of 4194304/);
  throwsThenRecovers(() => core.mlaCompare({ ...args, valueDim: undefined }), /valueDim: missing/);
  throwsThenRecovers(() => core.mlaCompare(undefined), /modelDim: missing/);
});

test('gqaConversion: mean-pooling changes nothing at G = H or for identical heads, and more as heads differ and groups shrink', () => {
  const args = { modelDim: 24, heads: 6, headDim: 5, seqLen: 17, seed: 3 };
  const independent = core.gqaConversion(args);
  assert.deepEqual(independent.map((e) => e.groups), [6, 3, 2, 1]);
  assert.equal(independent[0].relativeChange, 0);
  for (let i = 1; i < independent.length; i++) {
    assert.ok(independent[i].relativeChange >= independent[i - 1].relativeChange, `G = ${independent[i].groups}`);
  }
  for (const e of core.gqaConversion({ ...args, similarity: 1 })) assert.ok(e.relativeChange < 1e-12, `identical heads, G = ${e.groups}`);
  const similar = core.gqaConversion({ ...args, similarity: 0.9 });
  for (let i = 1; i < similar.length; i++) assert.ok(similar[i].relativeChange < independent[i].relativeChange);

  throwsThenRecovers(() => core.gqaConversion({ ...args, similarity: 1.5 }), /similarity: must be a number in \[0, 1\], got 1.5/);
  throwsThenRecovers(() => core.gqaConversion({ ...args, heads: 17 }), /heads: must be an integer in \[1, 16\]/);
  throwsThenRecovers(() => core.gqaConversion({ ...args, seqLen: 65 }), /seqLen: must be an integer in \[1, 64\]/);
  throwsThenRecovers(() => core.gqaConversion(undefined), /heads: missing/);
});
