// Node tests of the decode-step roofline and the presets in the inference module
// (wasm/inference/bind_roofline.cpp, roofline.d.ts, wasm/common/presets.d.ts): the presets are the
// flash module's, byte for byte; a hand-checked Llama 3.1 8B step; the attention's intensity is the
// group size; MLA; batching; memory fit; every argument validated, the module answering afterwards.
// Run: node --test tests/wasm/roofline.test.mjs   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const core = await loadModule('inference');

const near = (a, b, rel = 1e-12) => assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} vs ${b}`);

function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1024 }).bytesRead, 16194740224);
}

test('the inference module lists the same GPU and model presets as the flash module', async () => {
  const flash = await loadModule('flash');
  assert.deepEqual(core.gpuPresets(), flash.gpuPresets());
  assert.deepEqual(core.modelPresets(), flash.modelPresets());
  assert.deepEqual(core.modelPreset('deepseek-v2'), flash.modelPreset('deepseek-v2'));
  assert.deepEqual(core.gpuPreset('h100-sxm'), flash.gpuPreset('h100-sxm'));
  for (const m of core.modelPresets()) assert.ok(m.activeParameters.value > 0 && m.activeParameters.source.length > 0, m.id);
  assert.equal(core.modelPreset('llama3-8b').activeParameters.value, 8030261248);
  assert.equal(core.modelPreset('deepseek-v2').activeParameters.value, 21e9);
  // Mixtures of experts carry their total; dense models carry null.
  assert.deepEqual(core.modelPresets().filter((m) => m.totalParameters !== null).map((m) => m.id), ['deepseek-v2', 'deepseek-v3']);
  assert.equal(core.modelPreset('deepseek-v3').totalParameters.value, 671e9);
  assert.match(core.modelPreset('deepseek-v3').totalParameters.source, /arXiv:2412\.19437/);
  throwsThenRecovers(() => core.modelPreset('gpt-5'), /model: unknown preset 'gpt-5'; valid ids are bert-base/);
  throwsThenRecovers(() => core.gpuPreset(7), /gpu: must be a string/);
});

test('decodeRoofline: Llama 3.1 8B, 1024 tokens, batch 1, FP16 on an H100 SXM, checked by hand', () => {
  const r = core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1024 });
  // Defaults: the preset's own GQA-8 cache, weights counted, fp16, h100-sxm.
  assert.deepEqual([r.scheme, r.ownScheme, r.gpu, r.precision, r.weightsCounted], ['gqa', true, 'h100-sxm', 'fp16', true]);
  assert.equal(r.kv.bytesPerToken, 2 * 32 * 8 * 128 * 2);
  assert.equal(r.kvBytesRead, 134217728);
  assert.equal(r.attentionFlops, 4 * 32 * 32 * 128 * 1024);
  assert.equal(r.attentionIntensity, 4);
  assert.equal(r.groupSize, 4);
  assert.equal(r.weightParameters, 8030261248);
  assert.equal(r.weightBytesRead, 2 * 8030261248);
  assert.equal(r.flops, 16597393408);
  assert.equal(r.bytesRead, 16194740224);
  near(r.arithmeticIntensity, 16597393408 / 16194740224);
  near(r.ridgePoint, 989.5e12 / 3.35e12);
  assert.equal(r.bound, 'memory');
  near(r.memoryTimeS, 16194740224 / 3.35e12);
  near(r.kvMemoryTimeS, 134217728 / 3.35e12);
  near(r.computeTimeS, 16597393408 / 989.5e12);
  assert.equal(r.tpotLowerBoundS, r.memoryTimeS);
  near(r.attainableFlopsPerS, r.arithmeticIntensity * 3.35e12);
  assert.equal(r.hbmCapacityBytes, 80e9);
  assert.equal(r.fits, true);
  assert.equal(r.maxContextFitting, 487819);
});

test('decodeRoofline: the attention alone has intensity G at FP16, at every context and batch', () => {
  for (const gqaGroups of [1, 2, 4, 8, 16, 32, 64]) {
    for (const [contextTokens, batch] of [[1, 1], [4097, 3], [131072, 16]]) {
      const r = core.decodeRoofline({ model: 'llama3-70b', scheme: 'gqa', gqaGroups, contextTokens, batch, weights: false });
      assert.equal(r.groupSize, 64 / gqaGroups);
      assert.equal(r.attentionIntensity, 64 / gqaGroups);
      assert.equal(r.arithmeticIntensity, r.attentionIntensity);
      assert.equal(r.kv.kvHeads, gqaGroups);
    }
  }
  // MHA and MQA are the ends of the same line; fp8 halves the bytes, doubling the intensity.
  assert.equal(core.decodeRoofline({ model: 'llama3-70b', scheme: 'mha', contextTokens: 8, weights: false }).attentionIntensity, 1);
  assert.equal(core.decodeRoofline({ model: 'llama3-70b', scheme: 'mqa', contextTokens: 8, weights: false }).attentionIntensity, 64);
  assert.equal(core.decodeRoofline({ model: 'llama3-70b', contextTokens: 8, weights: false, dtype: 'fp8' }).attentionIntensity, 16);
});

test('decodeRoofline: MLA scores and mixes the shared latent, close to the H100 ridge and past the A100\'s', () => {
  const r = core.decodeRoofline({ model: 'deepseek-v2', contextTokens: 4096, weights: false });
  assert.equal(r.scheme, 'mla');
  assert.equal(r.kv.bytesPerToken, 60 * 576 * 2);
  assert.equal(r.attentionFlops, 2 * 60 * 128 * (2 * 512 + 64) * 4096);
  near(r.attentionIntensity, (128 * 2 * 1088) / 1152);
  assert.equal(r.bound, 'memory');
  assert.equal(core.decodeRoofline({ model: 'deepseek-v2', contextTokens: 4096, weights: false, gpu: 'a100-sxm-80gb' }).bound, 'compute');
  // The Llama shape under MLA takes DeepSeek-V2's d_c and d_R.
  const llama = core.decodeRoofline({ model: 'llama3-70b', scheme: 'mla', contextTokens: 1 });
  assert.deepEqual([llama.kv.latentDim, llama.kv.ropeDim, llama.kv.layers, llama.ownScheme], [512, 64, 80, false]);
});

test('decodeRoofline: batching moves the step toward the ridge; the weights fill an H100 first', () => {
  let previous = 0;
  for (const batch of [1, 4, 16, 64, 256, 1024]) {
    const r = core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1024, batch });
    assert.ok(r.arithmeticIntensity > previous && r.arithmeticIntensity < r.ridgePoint, `batch ${batch}`);
    assert.equal(r.weightBytesRead, 2 * 8030261248);
    assert.equal(r.kvBytesRead, batch * 134217728);
    previous = r.arithmeticIntensity;
  }
  assert.equal(core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, batch: 2 }).maxContextFitting, 243909);
  const big = core.decodeRoofline({ model: 'llama3-70b', contextTokens: 1 });
  assert.deepEqual([big.fits, big.maxContextFitting], [false, 0]);
  assert.equal(core.decodeRoofline({ model: 'llama3-70b', contextTokens: 1, gpu: 'b200' }).fits, true);
  // Mistral 7B's rolling window: any context fits.
  const mistral = core.decodeRoofline({ model: 'mistral-7b', contextTokens: 1 << 24 });
  assert.deepEqual([mistral.kv.cachedTokens, mistral.fits, mistral.maxContextFitting], [4096, true, null]);
});

test('decodeRoofline: every argument is validated and named', () => {
  throwsThenRecovers(() => core.decodeRoofline(undefined), /model: missing/);
  throwsThenRecovers(() => core.decodeRoofline(null), /model: missing/);
  throwsThenRecovers(() => core.decodeRoofline({ contextTokens: 1 }), /model: missing/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama4', contextTokens: 1 }), /model: unknown preset 'llama4'/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b' }), /contextTokens: missing/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 0 }), /contextTokens/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 2 ** 24 + 1 }), /contextTokens/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, batch: 65537 }), /batch/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, scheme: 'gqa8' }), /scheme: unknown name 'gqa8'/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, scheme: 'gqa', gqaGroups: 3 }), /kv_heads: must divide q_heads \(32\)/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, scheme: 'mha', gqaGroups: 4 }), /gqaGroups: applies to scheme 'gqa' only/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, weights: 1 }), /weights: must be true or false/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, gpu: 'h100' }), /gpu: unknown preset 'h100'/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, dtype: 'int4' }), /dtype: unknown name 'int4'/);
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-8b', contextTokens: 1, dtype: 'fp8', gpu: 'a100-sxm-80gb' }), /precision: NVIDIA A100 80GB SXM has no dense fp8 peak/);
  // A total beyond 2^53 is refused, not rounded.
  throwsThenRecovers(() => core.decodeRoofline({ model: 'llama3-405b', contextTokens: 1, batch: 65536 }), /exceeds 2\^53/);
});
