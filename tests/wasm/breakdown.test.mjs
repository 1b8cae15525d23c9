// Node tests of standardAttentionBreakdown (wasm/flash/bind_standard_breakdown.cpp,
// wasm/flash/breakdown.d.ts): unfused standard attention's forward pass kernel by kernel. The bytes
// add up to attentionHbmTraffic's standard forward count, each time follows the roofline, and bad
// arguments are rejected with the argument named while the module keeps answering.
// Run: node --test tests/wasm/breakdown.test.mjs   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModule } from './load.mjs';

const core = await loadModule('flash');
const near = (a, b, rel = 1e-12) => assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} != ${b}`);
const BASE = { gpu: 'a100-sxm-80gb', qLen: 1024, headDim: 64, blockQ: 64, batch: 8, heads: 16 };

test('the kernels, in order, with mask and dropout only when asked for', () => {
  assert.deepEqual(core.standardAttentionBreakdown(BASE).map((op) => op.name), ['matmul_qk', 'softmax', 'matmul_pv']);
  const all = core.standardAttentionBreakdown({ ...BASE, causal: 'bottom_right', dropout: true });
  assert.deepEqual(all.map((op) => op.name), ['matmul_qk', 'mask', 'softmax', 'dropout', 'matmul_pv']);
  assert.deepEqual(all.map((op) => op.kind), ['matmul', 'elementwise', 'elementwise', 'elementwise', 'matmul']);
});

test('bytes and FLOPs match the traffic model; times follow the roofline (odd sizes included)', () => {
  for (const shape of [{ ...BASE }, { gpu: 'h100-sxm', qLen: 777, kvLen: 1301, headDim: 40, valueDim: 72, blockQ: 96, batch: 3, heads: 5 }]) {
    const ops = core.standardAttentionBreakdown(shape);
    const { gpu, blockQ, ...costShape } = shape;
    const traffic = core.attentionHbmTraffic({ ...costShape, algorithm: 'standard', pass: 'forward', elementBytes: 2, blockQ });
    near(ops.reduce((s, op) => s + op.hbmBytes, 0), traffic.hbmBytes);
    near(ops.reduce((s, op) => s + op.flops, 0), core.attentionFlops({ ...costShape, pass: 'forward' }).flops);
    const peak = core.peakFlops({ gpu, precision: 'fp16' });
    const bandwidth = core.gpuPreset(gpu).hbmBytesPerS.value;
    for (const op of ops) near(op.timeS, Math.max(op.flops / peak, op.hbmBytes / bandwidth));
  }
});

test('bad arguments name themselves, and the module keeps answering', () => {
  const cases = [
    [undefined, /gpu: missing/],
    [{ ...BASE, gpu: 'a100' }, /gpu: unknown preset/],
    [{ ...BASE, qLen: undefined }, /qLen: missing/],
    [{ ...BASE, blockQ: 0 }, /blockQ/],
    [{ ...BASE, headDim: 2000 }, /headDim/],
    [{ ...BASE, causal: true }, /causal: must be 'none', 'top_left' or 'bottom_right'/],
    [{ ...BASE, causal: 'upper' }, /causal: must be 'none'/],
    [{ ...BASE, precision: 'fp8' }, /fp8/],
    [{ ...BASE, dropout: 'yes' }, /dropout/],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => core.standardAttentionBreakdown(args), (e) => e instanceof Error && message.test(e.message), String(message));
    assert.equal(core.standardAttentionBreakdown(BASE).length, 3);
  }
});
