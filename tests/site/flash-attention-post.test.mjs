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
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const siteDir = resolve(repoRoot, process.env.SITE_DIR ?? 'public');
const POST = '/posts/flash-attention-deep-dive/';
const FIGURES = ['gpu-memory-hierarchy', 'online-softmax', 'flash-attention-tiling', 'fa1-vs-fa2-parallelism', 'fa3-warp-specialization'];

const postFile = join(siteDir, POST, 'index.html');
const html = existsSync(postFile) ? readFileSync(postFile, 'utf8') : '';
const data = JSON.parse(readFileSync(join(repoRoot, 'site', 'data', 'generated', 'part3.json'), 'utf8'));

// Entities and tags out, whitespace collapsed: the text a reader sees (minified HTML drops quotes).
function textOf(fragment) {
  return fragment
    .replace(/<(script|style|annotation)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
    .replace(/&#39;|&rsquo;|&lsquo;/g, "'").replace(/&ldquo;|&rdquo;/g, '"').replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}
// The figure element of one generated table (the shortcode writes data-table="<name>").
function tableFigure(name) {
  const match = html.match(new RegExp(`<figure[^>]*data-table="?${name}"?[^>]*>([\\s\\S]*?)</figure>`));
  return match ? match[1] : null;
}
// Text outside KaTeX, code and scripts, where TeX must not appear.
const visibleText = textOf(html.replace(/<span class="?katex"?>[\s\S]*?<\/annotation>/g, ' ').replace(/<(pre|code)\b[^>]*>[\s\S]*?<\/\1>/gi, ' '));

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
  for (const name of names) {
    const figure = tableFigure(name);
    assert.ok(figure, `table ${name} is not in the post`);
    const table = data.tables[name];
    const body = textOf(figure);
    assert.ok(body.includes(textOf(table.caption)), `table ${name}: caption missing`);
    for (const row of table.rows) assert.ok(body.includes(textOf(row[0])), `table ${name}: row "${row[0]}" missing`);
    const lastCell = table.rows.at(-1).at(-1);
    if (lastCell) assert.ok(body.includes(textOf(lastCell)), `table ${name}: cell "${lastCell}" missing`);
    const source = figure.match(/<p class="?data-table__source"?>([\s\S]*?)<\/p>/);
    assert.ok(source && textOf(source[1]).trim().length > 'Source:'.length + 10, `table ${name}: no source line`);
  }
});

test('the measured CPU table carries its provenance', () => {
  const bench = html.match(/<figure[^>]*class="?data-table bench-table"?[^>]*>([\s\S]*?)<\/figure>/);
  assert.ok(bench, 'no bench-table in the post');
  assert.match(textOf(bench[1]), /Measured: machine .+ commit .+ command/);
});

test('the numbers the prose quotes are the ones the core computed', () => {
  // Each value below is typed in the prose; part3.json holds what the core computes now.
  const quoted = [
    'a100.sms', 'h100.sms', 'a100.sram', 'h100.sram', 'h100.fp16',
    'a100.ridge', 'h100.ridge', 'v100.ridge', 'h200.ridge', 'a100_40.ridge', 'a100.fp16', 'a100.fp32', 'a100.nonmatmul_ratio', 'h100.nonmatmul_ratio', 'a100.hbm',
    'intensity.std.a100.4k.64', 'intensity.flash.a100.4k.64', 'ceiling.std.a100.4k.64', 'speedup.a100.4k.64',
    'scores.head.8192', 'scores.layer.8192', 'scores.head.131072', 'scores.layer.131072', 'lse.head.8192', 'traffic.std.8192',
    'traffic.std.8192.a100_ms', 'traffic.std.8192.a100_model_s', 'a100.l2', 'h100.l2',
    'a100.sram_fp16_elements', 'fa1.a100.64.bc', 'fa1.a100.64.br',
    'partition.a100.b1.fa1', 'partition.a100.b1.fa2', 'partition.a100.b1.speedup', 'partition.h100.b1.speedup',
    'partition.a100.b1.fa1blocks', 'partition.a100.b1.fa2blocks', 'partition.a100.b64.speedup',
    'partition.heads', 'partition.seqlen', 'partition.blockq', 'partition.qblocks',
    'fa3.fp16.gemm_ns', 'fa3.fp16.softmax_ns', 'fa3.fp16.pingpong', 'fa3.fp8.pingpong', 'fa3.fp16.intra_overlap', 'fa3.fp16.pingpong_intra_overlap', 'fa3.fp8.pingpong_intra_overlap', 'fa3.fp8.intra_overlap', 'fa3.fp8.gemm_ns', 'fa3.fp8.softmax_ns', 'fp8.model.ratio', 'fp8.paper.ratio',
    'bench.fa2.h100.reported.share', 'bench.fa3.h100.reported.share', 'bench.fa3fp8.h100.reported.share', 'bench.e2e.a100.share',
    'bench.fa2.a100.ceiling', 'bench.fa2.h100.ceiling', 'fa2.intensity', 'bench.fa1.a100.ceiling', 'bench.fa1.a100.of_ceiling', 'bench.fa2.a100.of_ceiling',
    'bench.fa2.a100.ceiling_gain', 'bench.fa2.a100.reported_gain', 'bench.fa3.h100.over_ceiling', 'bench.fa1.a100.forward',
    'h100.boost_clock', 'h100.tensor_clock', 'fa3.fp16.sequential_ns', 'fa3.paper.ablation_gain', 'fa3.paper.pingpong_gain',
    'bench.fa3.h100.cluster_ceiling', 'bench.fa3.h100.of_cluster_ceiling', 'bench.fa3fp8.h100.over_ceiling',
    'worked.tile1.max', 'worked.tile1.rescale', 'worked.tile1.l', 'worked.tile1.acc', 'worked.tile1.out',
    'worked.tile2.max', 'worked.tile2.rescale', 'worked.tile2.l', 'worked.tile2.acc', 'worked.tile2.out',
    'worked.tile1.l.rescaled', 'worked.dense.out', 'worked.lse', 'worked.tile1.m', 'worked.tile2.m', 'worked.dense.lse',
  ];
  const prose = textOf((html.match(/<div class="?prose"?>([\s\S]*)<section class="?references/) ?? ['', html])[1]
    .replace(/<figure\b[\s\S]*?<\/figure>/g, ' '))
    .replace(/−/g, '-');
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

// Internal links: site paths must be files of the built site, #fragments ids of the target page.
function internalLinks() {
  const links = [...html.matchAll(/<(?:a|iframe)\b[^>]*?\s(?:href|src)="?([^"\s>]+)/g)].map((m) => m[1]);
  return links.filter((url) => !/^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(url) && !url.startsWith('mailto:'));
}
function resolves(url) {
  const [path, fragment] = url.split('#');
  let page = html;
  if (path) {
    const absolute = path.startsWith('/') ? path : new URL(path, `http://x${POST}`).pathname;
    const file = join(siteDir, absolute.endsWith('/') ? `${absolute}index.html` : absolute);
    if (!existsSync(file)) return false;
    page = file.endsWith('.html') ? readFileSync(file, 'utf8') : '';
  }
  return !fragment || new RegExp(`id="?${fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?[\\s>]`).test(page);
}

test('every internal link of the post resolves (figures checked separately)', () => {
  const broken = internalLinks().filter((url) => !url.includes('/visualizations/')).filter((url) => !resolves(url));
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
