// Node tests of the cost-model API (wasm/flash/bind_cost.cpp, wasm/flash/cost.d.ts): every bound function with
// good and bad arguments, results checked against the core's semantics, and the module checked to
// answer correctly after each error.
// Run: node --test tests/wasm/   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const core = await loadModule('flash');

const GPU_IDS = ['v100-sxm2-32gb', 't4', 'a100-sxm-40gb', 'a100-sxm-80gb', 'h100-sxm', 'h100-pcie', 'h200-sxm', 'b200',
  'rtx-4090', 'l40s'];
const MODEL_IDS = ['bert-base', 'bert-large', 'gpt2', 'gpt2-xl', 'gpt3-175b', 'opt-13b', 'mistral-7b', 'deepseek-v2',
  'llama3-8b', 'llama3-70b', 'llama3-405b', 'deepseek-v3'];

// Throws an Error whose message matches, then the module still answers a known query exactly.
function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.ridgePoint({ gpu: 'a100-sxm-80gb', precision: 'fp16' }), 312e12 / 2039e9);
}

const near = (a, b, rel = 1e-12) => assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} != ${b}`);

test('gpuPresets / gpuPreset: the agreed ids, every number sourced, unknown ids rejected', () => {
  const presets = core.gpuPresets();
  assert.deepEqual(presets.map((g) => g.id), GPU_IDS);
  for (const g of presets) {
    assert.deepEqual(core.gpuPreset(g.id), g);
    for (const key of ['smCount', 'boostClockHz', 'registerFilePerSmBytes', 'sramPerSmBytes', 'sramBytesPerS', 'l2Bytes',
      'l2BytesPerS', 'hbmBytes', 'hbmBytesPerS', 'hostLinkBytesPerS', 'fp32Flops', 'tf32Flops', 'fp16Flops', 'fp8Flops']) {
      const { value, source } = g[key];
      assert.ok(source.length > 0, `${g.id}.${key} has no source`);
      if (value === null) assert.match(source, /^not published/);
      else if (value === 0) assert.match(source, /^not supported/);
      else assert.ok(value > 0 && Number.isFinite(value));
    }
    assert.ok(g.name && g.architecture && g.memoryType);
  }
  const a100 = core.gpuPreset('a100-sxm-80gb');
  assert.equal(a100.smCount.value, 108);
  assert.equal(a100.sramPerSmBytes.value, 164 * 1024);
  assert.equal(a100.fp16Flops.value, 312e12);
  assert.equal(a100.fp8Flops.value, 0);
  assert.equal(a100.registerFilePerSmBytes.value, 256 * 1024);
  assert.equal(a100.boostClockHz.value, 1410e6);
  // 128 bytes per clock per SM x 108 SMs x 1410 MHz: the FlashAttention paper's "SRAM: 19 TB/s".
  assert.equal(a100.sramBytesPerS.value, 128 * 108 * 1410e6);
  assert.match(a100.sramBytesPerS.source, /^derived: CUDA C\+\+ Programming Guide/);
  assert.equal(a100.hostLinkBytesPerS.value, 64e9);
  assert.equal(a100.l2BytesPerS.value, null);
  assert.match(a100.l2BytesPerS.source, /^not published: .*2\.3x/);
  const h100 = core.gpuPreset('h100-sxm');
  assert.equal(h100.hostLinkBytesPerS.value, 128e9);
  assert.ok(Math.abs(h100.sramBytesPerS.value / h100.hbmBytesPerS.value - 10) < 1e-9);
  assert.equal(core.gpuPreset('h200-sxm').smCount.value, null);
  assert.equal(core.gpuPreset('h200-sxm').sramBytesPerS.value, null);
  assert.match(core.gpuPreset('h200-sxm').sramBytesPerS.source, /^not published: the SM count/);
  throwsThenRecovers(() => core.gpuPreset('a100'), /gpu: unknown preset 'a100'; valid ids are v100-sxm2-32gb, t4/);
  throwsThenRecovers(() => core.gpuPreset(42), /gpu: must be a string/);
});

test('modelPresets / modelPreset: ids, sources, MLA dimensions', () => {
  const models = core.modelPresets();
  assert.deepEqual(models.map((m) => m.id), MODEL_IDS);
  for (const m of models) {
    assert.deepEqual(core.modelPreset(m.id), m);
    for (const key of ['layers', 'hiddenSize', 'qHeads', 'kvHeads', 'headDim', 'maxContext']) {
      assert.ok(m[key].value > 0 && m[key].source.length > 0, `${m.id}.${key}`);
    }
    assert.ok(m.slidingWindow.source.length > 0);
    assert.equal(m.mla !== null, m.id.startsWith('deepseek'));
  }
  const llama = core.modelPreset('llama3-70b');
  assert.deepEqual([llama.layers.value, llama.qHeads.value, llama.kvHeads.value, llama.headDim.value,
    llama.maxContext.value], [80, 64, 8, 128, 131072]);
  const v3 = core.modelPreset('deepseek-v3');
  assert.deepEqual([v3.mla.kvLoraRank.value, v3.mla.qkRopeHeadDim.value, v3.mla.qkNopeHeadDim.value,
    v3.mla.vHeadDim.value, v3.mla.qLoraRank.value], [512, 64, 128, 128, 1536]);
  assert.equal(core.modelPreset('mistral-7b').slidingWindow.value, 4096);
  throwsThenRecovers(() => core.modelPreset('gpt-5'), /model: unknown preset 'gpt-5'; valid ids are bert-base/);
  throwsThenRecovers(() => core.modelPreset(undefined), /model: must be a string/);
});

test('peakFlops, ridgePoint, attainableFlops, arithmeticIntensity, rooflineBound', () => {
  assert.equal(core.peakFlops({ gpu: 'h100-sxm', precision: 'fp8' }), 1979e12);
  assert.equal(core.peakFlops({ gpu: 'h100-sxm' }), 989.5e12);  // fp16 by default
  assert.equal(core.peakFlops({ gpu: 'h100-sxm', precision: 'bf16' }), 989.5e12);
  assert.equal(core.peakFlops({ gpu: 'a100-sxm-40gb', precision: 'fp32' }), 19.5e12);
  const ridge = core.ridgePoint({ gpu: 'h100-sxm', precision: 'fp16' });
  near(ridge, 989.5e12 / 3.35e12);
  // min(peak, I x bandwidth), meeting at the ridge.
  near(core.attainableFlops({ gpu: 'h100-sxm', intensityFlopsPerByte: ridge / 2 }), 989.5e12 / 2);
  assert.equal(core.attainableFlops({ gpu: 'h100-sxm', intensityFlopsPerByte: ridge * 3 }), 989.5e12);
  assert.equal(core.attainableFlops({ gpu: 'h100-sxm', intensityFlopsPerByte: 0 }), 0);
  assert.equal(core.arithmeticIntensity(1e9, 4e6), 250);
  assert.equal(core.rooflineBound({ gpu: 'h100-sxm', flops: ridge * 0.99 * 1e6, bytes: 1e6 }), 'memory');
  assert.equal(core.rooflineBound({ gpu: 'h100-sxm', flops: ridge * 1.01 * 1e6, bytes: 1e6 }), 'compute');

  throwsThenRecovers(() => core.peakFlops({ gpu: 'a100-sxm-80gb', precision: 'fp8' }), /has no dense fp8 peak/);
  throwsThenRecovers(() => core.peakFlops({ gpu: 'a100-sxm-80gb', precision: 'int8' }), /precision: unknown name 'int8'/);
  throwsThenRecovers(() => core.ridgePoint({ precision: 'fp16' }), /gpu: missing/);
  throwsThenRecovers(() => core.ridgePoint(undefined), /gpu: missing/);
  throwsThenRecovers(() => core.attainableFlops({ gpu: 't4', intensityFlopsPerByte: -1 }), /intensityFlopsPerByte/);
  throwsThenRecovers(() => core.attainableFlops({ gpu: 't4' }), /intensityFlopsPerByte: missing/);
  throwsThenRecovers(() => core.arithmeticIntensity(1, 0), /bytes: must be a finite number > 0/);
  throwsThenRecovers(() => core.arithmeticIntensity(Infinity, 1), /flops: must be a finite number/);
  throwsThenRecovers(() => core.arithmeticIntensity('1', 1), /flops: must be a number/);
  throwsThenRecovers(() => core.rooflineBound({ gpu: 't4', flops: 1 }), /flops\/bytes: missing/);
  throwsThenRecovers(() => core.rooflineBound({ gpu: 't4', flops: -1, bytes: 1 }), /flops: must be a finite number >= 0/);
});

test('attentionFlops: exact form, attended pairs and the benchmark convention', () => {
  // FA2 benchmark setting: batch x seqlen = 16k, 32 heads of 64 -> 2^27 x seqlen forward FLOPs.
  const r = core.attentionFlops({ batch: 8, heads: 32, qLen: 2048, headDim: 64 });
  assert.equal(r.flops, 2 ** 27 * 2048);
  assert.equal(r.benchmarkFlops, 2 ** 27 * 2048);
  assert.equal(r.attendedPairs, 2048 * 2048);
  const causal = core.attentionFlops({ batch: 8, heads: 32, qLen: 2048, headDim: 64, causal: 'top_left' });
  assert.equal(causal.benchmarkFlops, 2 ** 26 * 2048);
  assert.equal(causal.attendedPairs, 2048 * 2049 / 2);
  assert.equal(causal.flops, 2 * 8 * 32 * (2048 * 2049 / 2) * 128);
  const bwd = core.attentionFlops({ qLen: 100, headDim: 64, pass: 'backward' });
  assert.equal(bwd.flops, 2.5 * core.attentionFlops({ qLen: 100, headDim: 64 }).flops);
  // L != S, bottom-right: the first L - S rows see nothing.
  const br = core.attentionFlops({ qLen: 10, kvLen: 3, headDim: 4, valueDim: 2, causal: 'bottom_right' });
  assert.equal(br.attendedPairs, 6);
  assert.equal(br.flops, 2 * 6 * (4 + 2));
  assert.equal(br.benchmarkFlops, null);

  throwsThenRecovers(() => core.attentionFlops({ headDim: 64 }), /qLen: missing/);
  throwsThenRecovers(() => core.attentionFlops({ qLen: 0, headDim: 64 }), /qLen: must be an integer in \[1, 16777216\]/);
  throwsThenRecovers(() => core.attentionFlops({ qLen: 8, headDim: 2000 }), /headDim: must be an integer in \[1, 1024\]/);
  throwsThenRecovers(() => core.attentionFlops({ qLen: 8, headDim: 8, causal: 'lower' }), /causal: must be/);
  throwsThenRecovers(() => core.attentionFlops({ qLen: 8, headDim: 8, pass: 'both' }), /pass: must be/);
  throwsThenRecovers(() => core.attentionFlops({ qLen: 8.5, headDim: 8 }), /qLen/);
});

test('fa1BlockSizes and attentionHbmTraffic', () => {
  assert.deepEqual(core.fa1BlockSizes({ sramElements: 164 * 1024 / 2, headDim: 64 }), { blockQ: 64, blockK: 328 });
  assert.deepEqual(core.fa1BlockSizes({ sramElements: 1000, headDim: 8, valueDim: 50 }), { blockQ: 5, blockK: 5 });
  throwsThenRecovers(() => core.fa1BlockSizes({ sramElements: 0, headDim: 64 }), /sramElements: must be an integer/);
  throwsThenRecovers(() => core.fa1BlockSizes({ headDim: 64 }), /sramElements: missing/);

  // Standard attention (Algorithm 0): 4 N^2 + 4 N d elements for d = dv.
  const std = core.attentionHbmTraffic({ algorithm: 'standard', qLen: 1000, headDim: 64, elementBytes: 2 });
  assert.equal(std.hbmBytes, 2 * (4 * 1000 * 1000 + 4 * 1000 * 64));
  assert.equal(std.hbmBytesRead + std.hbmBytesWritten, std.hbmBytes);
  assert.equal(std.flops, 4 * 1000 * 1000 * 64);
  // FlashAttention, one tile: Algorithm 1's loads and stores (stats are fp32).
  const one = core.attentionHbmTraffic({ algorithm: 'flash', qLen: 5, kvLen: 7, headDim: 3, valueDim: 2,
    elementBytes: 2, blockQ: 8, blockK: 8, loopOrder: 'fa1' });
  assert.equal(one.hbmBytesRead, 2 * (7 * 5 + 5 * 5) + 4 * 2 * 5);
  assert.equal(one.hbmBytesWritten, 2 * (5 * 2 + 5 * 2) + 4 * (2 * 5 + 2 * 5));
  assert.equal(one.tilesComputed, 1);
  assert.equal(one.tilesSkipped, 0);
  // Causal skips tiles above the diagonal: 4 x 4 blocks -> 10 computed, 6 skipped.
  const causal = core.attentionHbmTraffic({ algorithm: 'flash', qLen: 64, headDim: 16, blockQ: 16, blockK: 16,
    causal: 'top_left', pass: 'forward_backward' });
  assert.equal(causal.tilesComputed, 10);
  assert.equal(causal.tilesSkipped, 6);

  // FlashAttention-2's loop order: the analytic count equals the bytes the traced forward pass
  // moves, on an odd causal shape with ragged blocks; FLOPs are the same whole tiles as FA1's.
  const [L, S, d] = [37, 29, 5];
  const draw = core.randomNormal([1, 1, 1, L * d + 2 * S * d], 11, 1);
  const trace = core.flashForwardTrace({
    q: draw.subarray(0, L * d), qShape: [1, 1, L, d], k: draw.subarray(L * d, (L + S) * d), kShape: [1, 1, S, d],
    v: draw.subarray((L + S) * d), vShape: [1, 1, S, d], blockQ: 8, blockK: 6, elementBytes: 2, causal: 'bottom_right',
  });
  const fa2Shape = { algorithm: 'flash', qLen: L, kvLen: S, headDim: d, blockQ: 8, blockK: 6, elementBytes: 2, causal: 'bottom_right' };
  const fa2 = core.attentionHbmTraffic({ ...fa2Shape, loopOrder: 'fa2' });
  assert.equal(fa2.hbmBytesRead, trace.stats.hbmBytesRead);
  assert.equal(fa2.hbmBytesWritten, trace.stats.hbmBytesWritten);
  const fa1 = core.attentionHbmTraffic({ ...fa2Shape, loopOrder: 'fa1' });
  assert.equal(fa2.flops, fa1.flops);
  assert.ok(fa2.hbmBytes < fa1.hbmBytes);  // no round trips of O, l, m
  // The default order is FlashAttention-2's, as in flashForwardTrace; the backward pass is modelled
  // in the original order only, which is its default.
  assert.equal(core.attentionHbmTraffic(fa2Shape).hbmBytes, fa2.hbmBytes);
  assert.equal(core.attentionHbmTraffic({ ...fa2Shape, pass: 'backward' }).hbmBytes,
    core.attentionHbmTraffic({ ...fa2Shape, pass: 'backward', loopOrder: 'fa1' }).hbmBytes);
  // Tiles count the whole launch, like the bytes and FLOPs and like the trace's stats.
  const draw2 = core.randomNormal([1, 1, 1, 2 * 3 * (L + 2 * S) * d], 12, 1);
  const [qn, kn] = [2 * 3 * L * d, 2 * 3 * S * d];
  const launch = core.flashForwardTrace({
    q: draw2.subarray(0, qn), qShape: [2, 3, L, d], k: draw2.subarray(qn, qn + kn), kShape: [2, 3, S, d],
    v: draw2.subarray(qn + kn), vShape: [2, 3, S, d], blockQ: 8, blockK: 6, causal: 'bottom_right',
  });
  const whole = core.attentionHbmTraffic({ ...fa2Shape, batch: 2, heads: 3 });
  assert.equal(whole.tilesComputed, launch.stats.tilesComputed);
  assert.equal(whole.tilesSkipped, launch.stats.tilesSkipped);
  assert.equal(whole.tilesComputed, 6 * fa2.tilesComputed);
  throwsThenRecovers(() => core.attentionHbmTraffic({ ...fa2Shape, loopOrder: 'fa3' }), /loopOrder: must be 'fa1'/);
  throwsThenRecovers(() => core.attentionHbmTraffic({ ...fa2Shape, loopOrder: 'fa2', pass: 'backward' }),
    /loopOrder: 'fa2' is modelled for algorithm 'flash' and pass 'forward' only/);
  throwsThenRecovers(() => core.attentionHbmTraffic({ ...fa2Shape, algorithm: 'standard', loopOrder: 'fa2' }),
    /loopOrder: 'fa2' is modelled/);

  throwsThenRecovers(() => core.attentionHbmTraffic({ algorithm: 'flash', qLen: 8, headDim: 8, blockK: 4 }),
    /blockQ: missing/);
  throwsThenRecovers(() => core.attentionHbmTraffic({ algorithm: 'fast', qLen: 8, headDim: 8 }), /algorithm: must be/);
  throwsThenRecovers(() => core.attentionHbmTraffic({ qLen: 8, headDim: 8 }), /algorithm: missing/);
  throwsThenRecovers(() => core.attentionHbmTraffic({ algorithm: 'standard', qLen: 8, headDim: 8, elementBytes: 3 }),
    /element_bytes: must be 1, 2, 4 or 8/);
  throwsThenRecovers(() => core.attentionHbmTraffic({ algorithm: 'flash', qLen: 2 ** 22, headDim: 8, blockQ: 1,
    blockK: 64 }), /query blocks exceed the in-browser limit/);
});

test('predictAttention and predictAttentionPerGpu: the roofline of standard vs flash attention', () => {
  const shape = { batch: 4, heads: 16, qLen: 4096, headDim: 64 };
  const std = core.predictAttention({ ...shape, algorithm: 'standard', gpu: 'a100-sxm-80gb' });
  const flash = core.predictAttention({ ...shape, algorithm: 'flash', gpu: 'a100-sxm-80gb', precision: 'fp16' });
  for (const p of [std, flash]) {
    assert.equal(p.timeS, Math.max(p.computeTimeS, p.memoryTimeS));
    assert.equal(p.computeTimeS, p.flops / 312e12);
    assert.equal(p.memoryTimeS, p.hbmBytes / 2039e9);
    assert.equal(p.arithmeticIntensity, p.flops / p.hbmBytes);
    assert.equal(p.bound, p.memoryTimeS > p.computeTimeS ? 'memory' : 'compute');
    assert.equal(p.precision, 'fp16');
    assert.equal(p.pass, 'forward');
  }
  assert.equal(std.bound, 'memory');
  assert.equal(flash.bound, 'compute');
  assert.deepEqual([flash.blockQ, flash.blockK], [64, 328]);
  assert.deepEqual([std.blockQ, std.blockK], [64, 328]);  // the products block like FlashAttention
  assert.equal(std.hbmBytes, core.attentionHbmTraffic({ ...shape, algorithm: 'standard', elementBytes: 2, blockQ: 64 }).hbmBytes);
  assert.ok(std.timeS > 2 * flash.timeS);

  const all = core.predictAttentionPerGpu({ ...shape, algorithm: 'flash', precision: 'fp8' });
  assert.deepEqual(all.map((e) => e.gpu), GPU_IDS);
  for (const e of all) {
    const supported = core.gpuPreset(e.gpu).fp8Flops.value > 0;
    assert.equal(e.prediction !== null, supported, e.gpu);
    if (supported) {
      assert.equal(e.error, null);
      assert.deepEqual(e.prediction, core.predictAttention({ ...shape, algorithm: 'flash', precision: 'fp8', gpu: e.gpu }));
    } else {
      assert.match(e.error, /has no dense fp8 peak/);
    }
  }

  throwsThenRecovers(() => core.predictAttention({ ...shape, algorithm: 'flash' }), /gpu: missing/);
  throwsThenRecovers(() => core.predictAttention({ ...shape, algorithm: 'flash', gpu: 'v100-sxm2-32gb', precision: 'tf32' }),
    /has no dense tf32 peak/);
  throwsThenRecovers(() => core.predictAttention({ ...shape, algorithm: 'flash', gpu: 'h100-sxm', batch: 0 }),
    /batch: must be an integer in \[1, 65536\]/);
  throwsThenRecovers(() => core.predictAttentionPerGpu({ ...shape, algorithm: 'flash', precision: 'fp4' }),
    /precision: unknown name 'fp4'/);
});

test('scoreMatrixFootprint: the N^2 table (FP16, 16 heads x 24 layers)', () => {
  const MiB = 2 ** 20, GiB = 2 ** 30;
  const row = (seqLen) => core.scoreMatrixFootprint({ seqLen, heads: 16, layers: 24, elementBytes: 2 });
  assert.deepEqual(row(512), { perHeadBytes: 0.5 * MiB, perLayerBytes: 8 * MiB, perModelBytes: 192 * MiB });
  assert.equal(row(2048).perModelBytes, 3 * GiB);
  assert.equal(row(8192).perModelBytes, 48 * GiB);
  assert.equal(row(32768).perModelBytes, 768 * GiB);
  assert.equal(core.scoreMatrixFootprint({ seqLen: 131072 }).perHeadBytes, 32 * GiB);  // FP16, 1 head, 1 layer
  throwsThenRecovers(() => core.scoreMatrixFootprint({ heads: 16 }), /seqLen: missing/);
  throwsThenRecovers(() => core.scoreMatrixFootprint({ seqLen: 2 ** 25 }), /seqLen: must be an integer/);
  throwsThenRecovers(() => core.scoreMatrixFootprint({ seqLen: 8, layers: 2000 }), /layers: must be an integer in \[1, 1024\]/);
  throwsThenRecovers(() => core.scoreMatrixFootprint({ seqLen: 8, elementBytes: 5 }), /element_bytes: must be 1, 2, 4 or 8/);
});

test('counts beyond 2^53 are refused, naming the count, as in every module (never returned rounded)', () => {
  // 2^24 tokens, 4,096 heads, 1,024 layers, 8 bytes: 2^48 x 8 x 2^12 x 2^10 = 2^73 bytes per model.
  throwsThenRecovers(() => core.scoreMatrixFootprint({ seqLen: 2 ** 24, heads: 4096, layers: 1024, elementBytes: 8 }),
    /perLayerBytes: .* exceeds 2\^53, the largest integer a JavaScript number holds exactly/);
  // Up to 2^53 they are exact: 2^24 tokens, one head, 2 bytes = 2^49.
  assert.equal(core.scoreMatrixFootprint({ seqLen: 2 ** 24 }).perHeadBytes, 2 ** 49);
  throwsThenRecovers(() => core.attentionFlops({ batch: 4096, heads: 4096, qLen: 2 ** 24, headDim: 128 }),
    /flops: .* exceeds 2\^53/);
});
