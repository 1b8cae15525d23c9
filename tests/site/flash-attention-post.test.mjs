// Checks the built Part 3 post (content/posts/flash-attention-deep-dive/) in an already-built site
// (SITE_DIR, default public/): every post's checks (post-checks.mjs), then its own: the measured CPU
// table's provenance, the time breakdown and the Part 4 hook against the core, corrected figures.
//
//   hugo --source site --minify && node --test tests/site/flash-attention-post.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkPost, loadPost, repoRoot, textOf } from './post-checks.mjs';

const FIGURES = ['gpu-memory-hierarchy', 'online-softmax', 'flash-attention-tiling', 'fa1-vs-fa2-parallelism', 'fa3-warp-specialization'];
// The values of part3.json the prose types.
const QUOTED = [
  'a100.sms', 'h100.sms', 'a100.sram', 'h100.sram', 'a100.l2', 'h100.l2', 'a100.hbm', 'a100.fp16', 'h100.fp16',
  'a100.fp32', 'a100.sram_fp16_elements', 'fa1.a100.64.bc', 'fa1.a100.64.br', 'a100.nonmatmul_ratio', 'a100.ridge',
  'intensity.std.a100.4k.64', 'intensity.flash.a100.4k.64', 'ceiling.std.a100.4k.64', 'speedup.a100.4k.64',
  'breakdown.elementwise_share', 'scores.head.8192', 'scores.layer.8192', 'scores.head.131072',
  'scores.layer.131072', 'lse.head.8192', 'partition.heads', 'partition.a100.b1.fa1', 'partition.a100.b1.fa2',
  'partition.a100.b1.fa1blocks', 'partition.a100.b1.fa2blocks', 'partition.a100.b1.speedup',
  'partition.a100.b64.speedup', 'fa3.fp16.pingpong', 'fa3.fp16.gemm_ns', 'fa3.fp16.softmax_ns', 'fa3.fp8.pingpong',
  'fa3.fp8.gemm_ns', 'fa3.fp8.softmax_ns', 'fa3.paper.ablation_gain', 'fa3.paper.pingpong_gain', 'fp8.model.ratio',
  'fp8.paper.ratio', 'fa2.intensity', 'bench.fa2.a100.ceiling', 'bench.fa2.h100.ceiling',
  'bench.fa2.h100.reported.share', 'bench.fa3.h100.reported.share', 'bench.fa3fp8.h100.reported.share',
  'bench.e2e.a100.share', 'bench.fa1.a100.ceiling', 'bench.fa3.h100.cluster_ceiling',
  'bench.fa3fp8.h100.over_ceiling', 'worked.tile1.max', 'worked.tile1.m', 'worked.tile1.rescale', 'worked.tile1.l',
  'worked.tile1.acc', 'worked.tile1.out', 'worked.tile2.max', 'worked.tile2.m', 'worked.tile2.rescale',
  'worked.tile2.l', 'worked.tile2.acc', 'worked.tile2.out', 'worked.dense.out', 'worked.lse', 'worked.dense.lse',
  'worked.tile1.l.rescaled',
];

const post = loadPost('flash-attention-deep-dive', 'part3');
const { html, data, visibleText, tableFigure } = post;

checkPost(post, {
  number: 3,
  title: 'FlashAttention: Why Exact Attention Won the Speed Race (2022–2024)',
  figures: FIGURES,
  dataScript: 'scripts/post-data/part3.mjs',
  quoted: QUOTED,
  minTables: 8,
  maxMinutes: 30,
  maxWords: 6300,
  minReferences: 10,
});

test('the measured CPU table carries its provenance', () => {
  const bench = html.match(/<figure[^>]*class="?data-table bench-table"?[^>]*>([\s\S]*?)<\/figure>/);
  assert.ok(bench, 'no bench-table in the post');
  assert.match(textOf(bench[1]), /Measured: machine .+ commit .+ command/);
});

test('the time-breakdown table shows what the core computes for unfused standard attention', async () => {
  const { default: create } = await import(join(repoRoot, 'static', 'wasm', 'attn_flash.js'));
  const core = await create({ wasmBinary: readFileSync(join(repoRoot, 'static', 'wasm', 'attn_flash.wasm')) });
  const shape = { gpu: 'a100-sxm-80gb', batch: 8, heads: 16, qLen: 1024, headDim: 64, causal: 'top_left', precision: 'fp16' };
  const { blockQ } = core.predictAttention({ ...shape, algorithm: 'standard', pass: 'forward' });
  const ops = core.standardAttentionBreakdown({ ...shape, blockQ, dropout: true });
  assert.deepEqual(ops.map((op) => op.name), ['matmul_qk', 'mask', 'softmax', 'dropout', 'matmul_pv']);
  const figure = tableFigure('breakdown');
  assert.ok(figure, 'no breakdown table in the post');
  const body = textOf(figure);
  const total = ops.reduce((sum, op) => sum + op.timeS, 0);
  for (const op of ops) {
    const cell = `${(op.timeS * 1e3).toFixed(3)} ms`;
    assert.ok(body.includes(cell), `${op.name}: ${cell} not in the table`);
    assert.ok(body.includes(`${(100 * op.timeS / total).toFixed(0)}%`), `${op.name}: share missing`);
  }
  assert.ok(body.includes(`${(total * 1e3).toFixed(3)} ms`), 'total missing');
  // The elementwise kernels take most of the time although they do none of the products' FLOPs.
  const elementwise = ops.filter((op) => op.kind === 'elementwise').reduce((sum, op) => sum + op.timeS, 0);
  assert.ok(elementwise / total > 0.5, `elementwise share ${elementwise / total}`);
  assert.equal(data.values['breakdown.elementwise_share'], `${(100 * elementwise / total).toFixed(0)}%`);
});

test('the Part 4 hook quotes the KV cache the core computes for Llama 3 70B at 128k tokens', async () => {
  const { default: create } = await import(join(repoRoot, 'static', 'wasm', 'attn_inference.js'));
  const inference = await create({ wasmBinary: readFileSync(join(repoRoot, 'static', 'wasm', 'attn_inference.wasm')) });
  const GiB = 2 ** 30, contextTokens = 131072;
  // The model as shipped (grouped-query attention, 8 K/V heads), and the same shape with one K/V head per query head.
  const gqa = inference.kvCacheBytes({ model: 'llama3-70b', contextTokens });
  const mha = inference.kvCacheBytes({ scheme: 'mha', layers: 80, qHeads: 64, headDim: 128, contextTokens });
  assert.equal(gqa.kvHeads, 8);
  const next = textOf(html.match(/id="?next"?[\s\S]*?<\/p>/)[0]);
  assert.match(next, new RegExp(`${mha.totalBytes / GiB} GiB with 64 key/value heads`));
  assert.match(next, new RegExp(`brings it to ${gqa.totalBytes / GiB} GiB`));
});

test('model ceilings are labelled as no-L2-reuse bounds, and corrected figures stay corrected', () => {
  assert.match(visibleText, /no-L2-reuse bounds?/);
  assert.doesNotMatch(visibleText, /156 TFLOP\/s|must load K and V fewer times|factor is 14\.8|so it runs only on Hopper/);
  assert.match(visibleText, /124 TFLOP\/s/);
  assert.match(visibleText, /as of March 2025/);
  const details = html.match(/<details class="?how-computed"?[^>]*>([\s\S]*?)<\/details>/);
  assert.ok(details, 'no collapsed "how these numbers were computed" section');
  assert.match(details[1], /data-table="?benchmarks"?/);
});
