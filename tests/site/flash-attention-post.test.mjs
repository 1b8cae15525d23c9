// Checks the built Part 3 post (content/posts/flash-attention-deep-dive/) in an already-built site
// (SITE_DIR, default public/): its figures are embedded, every table generated from the core is
// rendered with its source line, the numbers the prose quotes are still the ones the core computes,
// the text carries no raw TeX or placeholder, the references link out, and internal links resolve.
//
//   hugo --source site --minify && node --test tests/site/flash-attention-post.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPost, repoRoot, siteDir, tableProblems, textOf } from './post-page.mjs';

const POST = '/posts/flash-attention-deep-dive/';
const FIGURES = ['gpu-memory-hierarchy', 'online-softmax', 'flash-attention-tiling', 'fa1-vs-fa2-parallelism', 'fa3-warp-specialization'];

const post = loadPost(POST);
const { html, tableFigure } = post;
const postFile = post.file;
const data = JSON.parse(readFileSync(join(repoRoot, 'site', 'data', 'generated', 'part3.json'), 'utf8'));
const visibleText = post.visibleText();

test('the post page exists', () => {
  assert.ok(html.length > 0, `${postFile} does not exist: build the site first (hugo --source site)`);
  assert.match(html, /<h1[^>]*>FlashAttention: Why Exact Attention Won the Speed Race \(2022–2024\)<\/h1>/);
});

test('each figure is embedded with the viz shortcode', () => {
  for (const name of FIGURES) {
    assert.match(html, new RegExp(`<iframe[^>]+src="?/visualizations/${name}/"?`), `no iframe for ${name}`);
  }
});

test('every generated table is rendered with its rows and its source line', () => {
  const names = Object.keys(data.tables);
  assert.ok(names.length >= 8, 'part3.json has the post\'s tables');
  for (const name of names) assert.deepEqual(tableProblems(tableFigure(name), data.tables[name]), [], `table ${name}`);
});

test('the measured CPU table carries its provenance', () => {
  const bench = html.match(/<figure[^>]*class="?data-table bench-table"?[^>]*>([\s\S]*?)<\/figure>/);
  assert.ok(bench, 'no bench-table in the post');
  assert.match(textOf(bench[1]), /Measured: machine .+ commit .+ command/);
});

test('the numbers the prose quotes are the ones the core computed', () => {
  // Each value below is typed in the prose; part3.json holds what the core computes now.
  const quoted = [
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
  const prose = post.prose().replace(/−/g, '-');
  const missing = quoted.filter((key) => {
    assert.ok(key in data.values, `part3.json has no value ${key}`);
    // Numbers in running text may drop a unit's "TFLOP/s" or use a plain hyphen for minus.
    const value = data.values[key].replace(/−/g, '-');
    const bare = value.replace(/ TFLOP\/s$/, '');
    return !prose.includes(value) && !prose.includes(bare);
  });
  assert.deepEqual(missing.map((key) => `${key} = ${data.values[key]}`), []);
  // And part3.json carries no value the prose does not quote.
  assert.deepEqual(Object.keys(data.values).filter((key) => !quoted.includes(key)), []);
});

test('the post reads in at most 30 minutes, and its source stays within 6,300 words', () => {
  const minutes = textOf(html).match(/(\d+) min read/);
  assert.ok(minutes, 'no reading time on the page');
  assert.ok(Number(minutes[1]) <= 30, `reading time ${minutes[1]} min`);
  const source = readFileSync(join(repoRoot, 'content', 'posts', 'flash-attention-deep-dive', 'index.md'), 'utf8');
  const words = source.split(/\s+/).filter(Boolean).length;
  assert.ok(words <= 6300, `index.md has ${words} words (wc -w)`);
});

test('after every figure, one sentence says what the reader should have seen', () => {
  const figures = [...html.matchAll(/<figure class="?viz"?[\s\S]*?<\/figure>\s*(<p>[\s\S]*?<\/p>)?/g)];
  assert.equal(figures.length, FIGURES.length, 'one viz figure per embedded figure');
  for (const [whole, next] of figures) {
    const name = whole.match(/visualizations\/([a-z0-9-]+)\//)[1];
    assert.ok(next, `${name}: no paragraph right after the figure`);
    const text = textOf(next).trim();
    assert.match(text, /^What you should have seen: [^.]+(?:\.\d[^.]*)*\.$/, `${name}: "${text}" is not one takeaway sentence`);
  }
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

test('site/data/generated/part3.json is what the core computes now (post-data --check)', () => {
  try {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'post-data.mjs'), '--check'], { stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    assert.fail(`node scripts/post-data.mjs --check failed:\n${error.stderr}`);
  }
});

test('no raw TeX, KaTeX error or placeholder text', () => {
  assert.doesNotMatch(html, /katex-error/);
  assert.ok((html.match(/class="?katex"?/g) ?? []).length > 20, 'the post has rendered math');
  assert.doesNotMatch(visibleText, /\$\$|\\(?:frac|sum|exp|log|max|mathbb|text|operatorname|begin|end|sqrt|ell|infty|times|cdot|top)\b/);
  assert.doesNotMatch(visibleText, /\b(?:TODO|TBD|FIXME|XXX|lorem|ipsum)\b/i);
});

test('the references section lists every reference with a link', () => {
  const section = html.match(/<section class="?references[^>]*>([\s\S]*?)<\/section>/);
  assert.ok(section, 'no references section');
  const items = section[1].match(/<li\b[\s\S]*?<\/li>/g) ?? [];
  assert.ok(items.length >= 10, `only ${items.length} references`);
  for (const item of items) assert.match(item, /<a href="?https?:\/\//, `reference without a link: ${textOf(item)}`);
  // Every cite points at an entry that exists.
  for (const [, key] of html.matchAll(/href="?#ref-([^"\s>]+)/g)) assert.match(html, new RegExp(`id="?ref-${key}"?`), `cite of missing ${key}`);
});

test('every internal link of the post resolves (figures checked separately)', () => {
  const broken = post.internalLinks().filter((url) => !url.includes('/visualizations/')).filter((url) => !post.resolves(url));
  assert.deepEqual(broken, []);
});

test('every embedded figure is built into the site', () => {
  const missing = FIGURES.filter((name) => !existsSync(join(siteDir, 'visualizations', name, 'index.html')));
  assert.deepEqual(missing, [], 'figures not built yet (site/viz/<name>, VIZ_ONLY=<name> vite build)');
});

test('the post is Part 3 in the series navigation and linked from the home page', () => {
  assert.match(textOf(html), /Part 3 of 4 in the series/);
  const home = readFileSync(join(siteDir, 'index.html'), 'utf8');
  assert.match(home, new RegExp(`href="?${POST}"?`));
});
