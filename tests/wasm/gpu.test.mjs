// Node tests of the GPU-execution API (wasm/flash/bind_gpu.cpp, wasm/flash/gpu.d.ts): every bound function with
// good and bad arguments, results checked against the core's semantics, and the module checked to
// answer correctly after each error.
// Run: node --test tests/wasm/   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const core = await loadModule('flash');

// Throws an Error whose message matches, then the module still answers known queries exactly.
function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.roundToE4m3(464), 448);
  assert.equal(core.gpuWorkPartition({ gpu: 'a100-sxm-80gb', partition: 'fa1', heads: 8 }).blocks.kvTiles.length, 8);
}

const near = (a, b, rel = 1e-9) => assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} != ${b}`);

test('gpuWorkPartition: batch 1 x 8 heads on an A100 -- FA1 leaves most SMs idle, FA2 fills them', () => {
  const launch = { gpu: 'a100-sxm-80gb', batch: 1, heads: 8, qLen: 4096, blockQ: 128, blockK: 128 };
  const fa1 = core.gpuWorkPartition({ ...launch, partition: 'fa1' });
  assert.equal(fa1.smCount, 108);
  assert.equal(fa1.blocks.kvTiles.length, 8);
  assert.ok(fa1.blocks.kvTiles.every((t) => t === 32 * 32));
  assert.ok(fa1.blocks.qBlockEnd.every((e) => e === 32));
  near(fa1.smUtilization, 8 / 108);
  assert.equal(fa1.waves.length, 1);
  near(fa1.waves[0].occupancy, 8 / 108);
  assert.equal(fa1.smBusyTiles.length, 108);

  const fa2 = core.gpuWorkPartition({ ...launch, partition: 'fa2' });
  assert.ok(fa2.blocks.kvTiles instanceof Int32Array && fa2.blocks.startTiles instanceof Float64Array);
  assert.equal(fa2.blocks.kvTiles.length, 256);
  assert.deepEqual(fa2.waves.map((w) => w.blockCount), [108, 108, 40]);
  assert.equal(fa2.makespanTiles, 96);
  near(fa2.smUtilization, (256 * 32) / (108 * 96));
  assert.equal(fa2.totalTiles, fa1.totalTiles);
  // Launch order: query block fastest, then batch, then head.
  for (let n = 0; n < 256; n++) {
    assert.equal(fa2.blocks.qBlockBegin[n], n % 32);
    assert.equal(fa2.blocks.head[n], Math.floor(n / 32));
    assert.equal(fa2.blocks.wave[n], Math.floor(n / 108));
    assert.equal(fa2.blocks.endTiles[n] - fa2.blocks.startTiles[n], fa2.blocks.kvTiles[n]);
  }
});

test('gpuWorkPartition: causal tile counts, both alignments, several blocks per SM', () => {
  // Top-left causal, 4 query blocks: block i computes i + 1 key tiles.
  const tl = core.gpuWorkPartition({ gpu: 'h100-sxm', partition: 'fa2', qLen: 256, blockQ: 64, blockK: 64, causal: 'top_left' });
  assert.deepEqual([...tl.blocks.kvTiles], [1, 2, 3, 4]);
  assert.equal(tl.smCount, 132);
  // Bottom-right with L < S: row i sees i + 1 + S - L keys.
  const br = core.gpuWorkPartition({ gpu: 'h100-sxm', partition: 'fa2', qLen: 32, kvLen: 64, blockQ: 16, blockK: 16,
    causal: 'bottom_right' });
  assert.deepEqual([...br.blocks.kvTiles], [3, 4]);
  // FA1 sums its query blocks' tiles.
  const fa1 = core.gpuWorkPartition({ gpu: 'h100-sxm', partition: 'fa1', qLen: 256, blockQ: 64, blockK: 64, causal: 'top_left' });
  assert.deepEqual([...fa1.blocks.kvTiles], [10]);
  // Two resident blocks per SM: 264 equal blocks fill 132 SMs x 2 slots in one wave.
  const two = core.gpuWorkPartition({ gpu: 'h100-sxm', partition: 'fa1', batch: 2, heads: 132, qLen: 128, blocksPerSm: 2 });
  assert.equal(two.waves.length, 1);
  assert.equal(two.waves[0].occupancy, 1);
  assert.equal(two.smUtilization, 1);
  assert.equal(two.blocks.sm[0], 0);
  assert.equal(two.blocks.sm[132], 0);
});

test('gpuWorkPartition rejects bad arguments, and presets without a published SM count', () => {
  const ok = { gpu: 'a100-sxm-80gb', partition: 'fa2' };
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, partition: 'fa3' }), /partition: must be one of 'fa1', 'fa2'/);
  throwsThenRecovers(() => core.gpuWorkPartition({ gpu: 'a100-sxm-80gb' }), /partition: missing/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, gpu: 'a100' }), /unknown preset 'a100'/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, gpu: 7 }), /gpu: must be a preset id string/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, batch: 0 }), /batch: must be an integer in \[1, 65536\]/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, heads: 1.5 }), /heads: must be an integer/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, blockQ: 5000 }), /blockQ: must be an integer in \[1, 4096\]/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, blocksPerSm: 33 }), /blocksPerSm/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, causal: 'upper' }), /causal: must be one of/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, heads: 64, qLen: 1 << 20, blockQ: 16 }), /exceed the in-browser limit/);
  throwsThenRecovers(() => core.gpuWorkPartition({ ...ok, gpu: 'b200' }), /gpu.sm_count: not published/);
  throwsThenRecovers(() => core.gpuWorkPartition(null), /arguments: must be an object/);
});

test('fa3Timeline: hand-checked schedules of unit-time ops on two warpgroups', () => {
  const opTimes = { loadKS: 0, loadVS: 0, gemm0S: 1, softmaxS: 1, gemm1S: 1 };
  const run = (intraWarpgroupOverlap, pingpong) =>
    core.fa3Timeline({ opTimes, intraWarpgroupOverlap, pingpong, consumerWarpgroups: 2, iterations: 2 });
  const seq = run(false, false);
  assert.equal(seq.name, 'sequential');
  assert.equal(seq.totalS, 12);  // 3 ops x 2 key blocks, each shared by two warpgroups (2 s)
  assert.equal(seq.segments.length, 2 * (2 + 3 * 2));
  assert.ok(seq.segments.filter((s) => s.warpgroup >= 0).every((s) => s.unitShare === 0.5));
  assert.equal(run(true, false).totalS, 10);
  const pp = run(false, true);
  assert.equal(pp.name, 'pingpong');
  assert.equal(pp.totalS, 8);
  const find = (t, op, wg, it) => t.segments.find((s) => s.op === op && s.warpgroup === wg && s.iteration === it);
  // Warpgroup 0 exponentiates while warpgroup 1 runs GEMM0 (FA3 Figure 1).
  assert.equal(find(pp, 'softmax', 0, 0).startS, 1);
  assert.equal(find(pp, 'gemm0', 1, 0).startS, 1);
  assert.equal(find(pp, 'softmax', 0, 0).unit, 'special_functions');
  assert.equal(find(pp, 'load_k', -1, 1).unit, 'tma');
  assert.equal(run(true, true).name, 'pingpong_intra_overlap');
  assert.equal(run(true, true).totalS, 8);
  // Closed form: W * max(gemm0 + gemm1, softmax) = 4 with ping-pong.
  assert.equal(core.fa3Timeline({ opTimes, pingpong: true, iterations: 64 }).closedFormIterationS, 4);
  near(core.fa3Timeline({ opTimes, pingpong: true, iterations: 64 }).steadyIterationS, 4);

  throwsThenRecovers(() => core.fa3Timeline({ opTimes, pingpong: true, consumerWarpgroups: 1 }), /ping-pong scheduling needs at least 2/);
  throwsThenRecovers(() => core.fa3Timeline({ opTimes: { ...opTimes, gemm0S: -1 } }), /gemm0S: must be a number in \[0/);
  throwsThenRecovers(() => core.fa3Timeline({ opTimes: { loadKS: 0 } }), /opTimes.loadVS: missing/);
  throwsThenRecovers(() => core.fa3Timeline({}), /opTimes: must be an object/);
  throwsThenRecovers(() => core.fa3Timeline({ opTimes, iterations: 65 }), /iterations: must be an integer in \[1, 64\]/);
  throwsThenRecovers(() => core.fa3Timeline({ opTimes, pingpong: 'yes' }), /pingpong: must be true or false/);
});

test('fa3Pipeline on the H100 preset: dependencies hold and speedups follow the closed forms', () => {
  const r = core.fa3Pipeline({ gpu: 'h100-sxm', iterations: 16 });
  assert.deepEqual(r.schedules.map((s) => s.name), ['sequential', 'intra_overlap', 'pingpong', 'pingpong_intra_overlap']);
  const t = r.opTimes;
  near(t.gemm0S, (2 * 64 * 128 * 128) / r.rates.tensorFlopsPerS);
  near(t.softmaxS, (64 * 128) / r.rates.expPerS);
  assert.equal(r.rates.kvReaders, 66);  // ceil(8448 / 128) CTAs of one head share K/V through L2
  near(r.rates.expPerS, 16 * r.rates.clockHz);  // 16 exponentials per SM per clock
  const P = t.gemm0S + t.gemm1S, S = t.softmaxS;
  near(r.schedules[0].closedFormIterationS, 2 * (P + S));
  near(r.schedules[2].steadySpeedup, (P + S) / Math.max(P, S));
  for (const s of r.schedules) {
    assert.ok(s.speedup >= 1 && s.steadySpeedup >= 1);
    const seg = (op, wg, it) => s.segments.find((x) => x.op === op && x.warpgroup === wg && x.iteration === it);
    for (let j = 0; j < 16; j++) {
      for (const wg of [0, 1]) {
        assert.ok(seg('gemm0', wg, j).startS >= seg('load_k', -1, j).endS);
        assert.ok(seg('softmax', wg, j).startS >= seg('gemm0', wg, j).endS);
        assert.ok(seg('gemm1', wg, j).startS >= seg('softmax', wg, j).endS);
        assert.ok(seg('gemm1', wg, j).startS >= seg('load_v', -1, j).endS);
      }
    }
  }
  // FP8 doubles the tensor rate, not the exponential rate: overlapping the softmax pays off more.
  const r8 = core.fa3Pipeline({ gpu: 'h100-sxm', precision: 'fp8', iterations: 16 });
  assert.ok(r8.schedules[3].steadySpeedup > r.schedules[3].steadySpeedup);

  throwsThenRecovers(() => core.fa3Pipeline({ gpu: 'a100-sxm-80gb', precision: 'fp8' }), /gpu.fp8_flops/);
  throwsThenRecovers(() => core.fa3Pipeline({ gpu: 'h200-sxm' }), /not published/);
  throwsThenRecovers(() => core.fa3Pipeline({ gpu: 'h100-sxm', consumerWarpgroups: 1 }), /consumerWarpgroups: .*at least 2/);
  throwsThenRecovers(() => core.fa3Pipeline({ gpu: 'h100-sxm', headDim: 4 }), /headDim: must be an integer in \[8, 512\]/);
  throwsThenRecovers(() => core.fa3Pipeline({ gpu: 'h100-sxm', precision: 'fp4' }), /precision: must be one of 'fp16', 'fp8'/);
  throwsThenRecovers(() => core.fa3Pipeline({ precision: 'fp16' }), /gpu: must be a preset id string/);
});

test('fp8Experiment: per-method RMSE against double, with FA3 Table 3 alongside', () => {
  const r = core.fp8Experiment({ seqLen: 256, headDim: 64, evalRows: 64, seed: 5 });
  assert.match(r.paperSource, /Table 3/);
  const by = Object.fromEntries(r.results.map((x) => [x.method, x]));
  assert.deepEqual(Object.keys(by), ['fp32_standard', 'fp16_standard', 'fp16_flash', 'fp8_standard_per_tensor',
    'fp8_flash_per_tensor', 'fp8_flash_per_block', 'fp8_flash_per_tensor_hadamard', 'fp8_flash_per_block_hadamard']);
  // Error floors per format (FP32 ~1e-7, FP16 ~1e-4, e4m3 ~1e-2 on these inputs).
  assert.ok(by.fp32_standard.rmse > 0 && by.fp32_standard.rmse < 1e-5);
  assert.ok(by.fp16_flash.rmse < 1e-3 && by.fp16_standard.rmse < 1e-3);
  for (const m of Object.keys(by).filter((k) => k.startsWith('fp8'))) {
    assert.ok(by[m].rmse > 10 * by.fp16_flash.rmse && by[m].rmse < 0.1, m);
  }
  assert.equal(by.fp8_flash_per_block_hadamard.paperLabel, 'FlashAttention-3 FP8');
  assert.equal(by.fp8_flash_per_block_hadamard.paperRmse, 9.1e-3);
  assert.equal(by.fp16_standard.paperRmse, 3.2e-4);
  assert.equal(by.fp32_standard.paperRmse, undefined);
  // Same seed, same numbers; another seed, other inputs.
  assert.deepEqual(core.fp8Experiment({ seqLen: 256, headDim: 64, evalRows: 64, seed: 5 }), r);
  assert.notEqual(core.fp8Experiment({ seqLen: 256, headDim: 64, evalRows: 64, seed: 6 }).results[1].rmse, by.fp16_standard.rmse);

  throwsThenRecovers(() => core.fp8Experiment({ headDim: 96 }), /headDim: must be a power of two/);
  throwsThenRecovers(() => core.fp8Experiment({ seqLen: 4096 }), /seqLen: must be an integer in \[1, 2048\]/);
  throwsThenRecovers(() => core.fp8Experiment({ seqLen: 2048, evalRows: 2048 }), /exceeds the in-browser limit/);
  throwsThenRecovers(() => core.fp8Experiment({ seqLen: 64, evalRows: 65 }), /evalRows: must be an integer in \[1, 64\]/);
  throwsThenRecovers(() => core.fp8Experiment({ outlierProbability: 2 }), /outlierProbability: must be a number in \[0, 1\]/);
  throwsThenRecovers(() => core.fp8Experiment('big'), /arguments: must be an object/);
});

test('roundToFp16 / roundToE4m3: hand-checked values, ties to even, overflow and saturation', () => {
  assert.equal(core.roundToFp16(1 + 2 ** -11), 1);
  assert.equal(core.roundToFp16(1 + 3 * 2 ** -11), 1 + 2 ** -9);
  assert.equal(core.roundToFp16(0.1), 0.0999755859375);
  assert.equal(core.roundToFp16(65519), 65504);
  assert.equal(core.roundToFp16(65520), Infinity);
  assert.equal(core.roundToFp16(2 ** -25), 0);
  assert.equal(core.roundToFp16(3 * 2 ** -25), 2 ** -23);
  assert.ok(Number.isNaN(core.roundToFp16(NaN)));
  assert.equal(core.roundToE4m3(448), 448);
  assert.equal(core.roundToE4m3(1e9), 448);
  assert.equal(core.roundToE4m3(-Infinity), -448);
  assert.equal(core.roundToE4m3(1.1875), 1.25);
  assert.equal(core.roundToE4m3(0.3), 0.3125);
  assert.equal(core.roundToE4m3(2 ** -10), 0);
  assert.ok(Object.is(core.roundToE4m3(-0), -0));
  throwsThenRecovers(() => core.roundToFp16('1'), /x: must be a number/);
  throwsThenRecovers(() => core.roundToE4m3(undefined), /x: must be a number/);
});
