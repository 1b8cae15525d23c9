// Checks the built Part 4 post (content/posts/attention-inference-optimizations/) in an already-built
// site (SITE_DIR, default public/): every post's checks (post-checks.mjs), then its own: its tables
// equal what the inference module computes now, glossary terms at first use, a "why does it
// matter?" box per technique, the trade-offs table, the three snippets, the stack diagram, the
// primary sources, and every post's series navigation links it.
//
//   hugo --source site --minify && node --test tests/site/inference-post.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkPost, loadPost, siteDir, textOf } from './post-checks.mjs';
import { loadModule } from '../wasm/load.mjs';

const post = loadPost('attention-inference-optimizations', 'part4');
const { html, tableFigure } = post;
const inference = await loadModule('inference');
// The prose of the post: its body up to the references, without figures.
const prose = () => textOf((html.match(/<div class="?prose"?>([\s\S]*)<section class="?references/) ?? ['', html])[1]
  .replace(/<figure\b[\s\S]*?<\/figure>/g, ' '));

checkPost(post, {
  number: 4,
  title: 'Serving the Beast: KV-Cache Tricks, PagedAttention, and Ring Attention (2023–now)',
  figures: ['decode-roofline', 'kv-cache-evolution', 'paged-attention-blocks', 'sliding-window-receptive-field', 'ring-attention-rotation'],
  dataScript: 'scripts/post-data/part4.mjs',
  // Every number part4.json carries is typed in the prose.
  quoted: Object.keys(post.data.values),
  minTables: 6,
  maxMinutes: 30,
  maxWords: 7000,
  minReferences: 12,
});

// The cells of one generated table as the page shows them, row by row.
function renderedRows(name) {
  const figure = tableFigure(name);
  assert.ok(figure, `table ${name} is not in the post`);
  return [...figure.match(/<tbody>([\s\S]*?)<\/tbody>/)[1].matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map(([, row]) => [...row.matchAll(/<t[hd]\b[^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) => textOf(cell).trim()));
}
const GiB = 2 ** 30, MiB = 2 ** 20, KiB = 2 ** 10;
// The number and binary unit of a cell such as "2.5 MiB", in bytes.
function cellBytes(cell) {
  const [, number, unit] = cell.match(/^([\d.,]+) (GiB|MiB|KiB)$/) ?? [];
  assert.ok(number, `"${cell}" is not a byte count in binary units`);
  return Number(number.replace(/,/g, '')) * { GiB, MiB, KiB }[unit];
}
// A value shown to three significant digits equals the exact one to that precision.
const closeTo = (shown, exact) => Math.abs(shown - exact) <= 0.005 * exact;

test('the KV tables are the bytes the core computes, in binary units', () => {
  const contexts = [8192, 32768, 131072];
  const schemes = contexts.map((contextTokens) => inference.kvSchemeComparison({ contextTokens }));
  const rows = renderedRows('kv-schemes');
  assert.equal(rows.length, 4);
  rows.forEach((row, i) => {
    assert.ok(closeTo(cellBytes(row[2]), schemes[0][i].bytesPerToken), `${row[0]} per token: ${row[2]}`);
    contexts.forEach((n, c) => assert.ok(closeTo(cellBytes(row[3 + c]), schemes[c][i].bytesPerRequest), `${row[0]} at ${n}: ${row[3 + c]}`));
  });
  // The corrected MLA row: 80 layers x (512 + 64) x 2 bytes = 90 KiB per token, not the plan's ~21 KB.
  assert.equal(schemes[0][3].bytesPerToken, 80 * 576 * 2);
  assert.deepEqual(rows[3].slice(2), ['90 KiB', '720 MiB', '2.81 GiB', '11.3 GiB', '28.4× smaller']);

  const models = ['llama3-8b', 'llama3-70b', 'llama3-405b', 'mistral-7b', 'deepseek-v2', 'deepseek-v3'];
  renderedRows('kv-presets').forEach((row, i) => {
    contexts.forEach((contextTokens, c) => {
      const exact = inference.kvCacheBytes({ model: models[i], contextTokens }).bytesPerRequest;
      assert.ok(closeTo(cellBytes(row[4 + c]), exact), `${row[0]} at ${contextTokens}: ${row[4 + c]} vs ${exact}`);
    });
  });
});

test('the 93.3% row is DeepSeek-V2 as deployed against DeepSeek 67B, as the core computes it', () => {
  const ds67 = inference.kvCacheBytes({ scheme: 'gqa', layers: 95, qHeads: 64, kvHeads: 8, headDim: 128, dtype: 'bf16', contextTokens: 1 });
  const v2 = inference.kvCacheBytes({ model: 'deepseek-v2', dtype: 'bf16', contextTokens: 1 });
  const rows = renderedRows('mla-context');
  assert.equal(rows.at(-1).at(-1), `${(100 * (1 - v2.bytesPerToken * 6 / 16 / ds67.bytesPerToken)).toFixed(1)}%`);
  assert.equal(rows.at(-1).at(-1), '93.3%');
  assert.equal(rows[2].at(-1), `${(100 * (1 - v2.bytesPerToken / ds67.bytesPerToken)).toFixed(1)}%`);
  const text = prose();
  assert.match(text, /comparison is with DeepSeek 67B/);
  assert.match(text, /6 bits per element/);
});

test('the MLA table shows the absorbed form equal to the explicit one', () => {
  const rows = renderedRows('mla-absorbed');
  const m = inference.mlaCompare({ modelDim: 64, heads: 8, latentDim: 32, nopeDim: 16, ropeDim: 8, valueDim: 16, seqLen: 33, queryLen: 1, seed: 7 });
  assert.deepEqual(rows[0].slice(1), [String(m.explicitCacheElementsPerToken), String(m.absorbedCacheElementsPerToken), m.maxAbsDiff.toExponential(1)]);
  for (const row of rows) assert.ok(Number(row[3]) < 1e-12, `${row[0]}: difference ${row[3]}`);
});

test('the paged table is the core\'s replay of the seeded workload', () => {
  const s = inference.pagedSummary({});
  const order = ['paged', 'contiguousMaxLen', 'contiguousPow2', 'contiguousOracle'];
  renderedRows('paged').forEach((row, i) => {
    const r = s[order[i]];
    assert.equal(row[1], `${(100 * r.meanUtilisation).toFixed(1)}%`, `${row[0]} utilisation`);
    assert.equal(row[5], String(r.peakRunningRequests), `${row[0]} peak`);
    assert.equal(row[7], r.steps.toLocaleString('en-US'), `${row[0]} steps`);
    assert.equal(row[8], String(r.preemptions), `${row[0]} preemptions`);
  });
  // Paging holds more live K/V per slot taken than any contiguous policy, hindsight included.
  assert.ok(s.paged.meanUtilisation > s.contiguousOracle.meanUtilisation);
});

test('the speculative-decoding table and worked example follow Leviathan et al.\'s formula in the core', () => {
  const rows = renderedRows('speculative');
  for (const row of rows) {
    const alpha = Number(row[0]);
    [1, 2, 4, 8].forEach((gamma, g) => {
      const formula = (1 - alpha ** (gamma + 1)) / (1 - alpha);
      assert.equal(row[1 + g], inference.speculativeDecoding({ alpha, gamma }).expectedTokens.toFixed(2));
      assert.equal(row[1 + g], formula.toFixed(2), `alpha ${alpha}, gamma ${gamma}`);
    });
  }
  assert.match(prose(), /= 3\.36 tokens per pass/);
});

test('the glossary terms are defined where the post first uses them', () => {
  const body = (html.match(/<div class="?prose"?>([\s\S]*)<section class="?references/) ?? ['', ''])[1];
  for (const term of ['KV cache', 'prefill', 'decode', 'TTFT', 'TPOT']) {
    const at = body.search(new RegExp(`<dfn><button[^>]*>${term}</button>`));
    assert.ok(at >= 0, `no glossary entry for ${term}`);
    const before = textOf(body.slice(0, at).replace(/<figure\b[\s\S]*?<\/figure>/g, ' '));
    assert.doesNotMatch(before, new RegExp(`\\b${term}\\b`, 'i'), `${term} is used before its definition`);
  }
});

test('each technique has its "why does it matter?" box', () => {
  const boxes = [...html.matchAll(/<aside class="?callout callout--why"? aria-label="?Why does ([^"?]+) matter\?/g)].map((m) => m[1]);
  for (const technique of ['the KV cache', 'multi-query attention', 'grouped-query attention', 'multi-head latent attention',
    'PagedAttention', 'sliding-window attention', 'ring attention', 'speculative decoding']) {
    assert.ok(boxes.includes(technique), `no box for ${technique} (boxes: ${boxes.join(', ')})`);
  }
});

test('the trade-offs table has pros, cons and when-to-use for every technique', () => {
  const section = html.match(/id="?tradeoffs"?[\s\S]*?<table\b[^>]*>([\s\S]*?)<\/table>/);
  assert.ok(section, 'no table in the trade-offs section');
  const headers = [...section[1].matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)].map(([, h]) => textOf(h).trim());
  for (const column of ['Pros', 'Cons', 'Use it when']) assert.ok(headers.includes(column), `no ${column} column`);
  const rows = textOf(section[1]);
  for (const technique of ['MQA', 'GQA', 'MLA', 'PagedAttention', 'Sliding window', 'Ring attention', 'Speculative decoding']) {
    assert.ok(rows.includes(technique), `no row for ${technique}`);
  }
});

test('the three snippets use the APIs they name', () => {
  // Highlighted code is split into spans: drop the tags without spacing, then decode as text.
  const code = [...html.matchAll(/<pre\b[\s\S]*?<\/pre>/g)].map(([block]) => textOf(block.replace(/<[^>]+>/g, '')));
  assert.ok(code.some((c) => /AutoConfig\.from_pretrained/.test(c) && /num_key_value_heads/.test(c)), 'no AutoConfig snippet with num_key_value_heads');
  assert.ok(code.some((c) => /LLM\(model=/.test(c) && /gpu_memory_utilization=/.test(c) && /SamplingParams\(/.test(c)), 'no vLLM LLM(...) snippet');
  assert.ok(code.some((c) => /sliding_window/.test(c) && /Mistral-7B/.test(c)), 'no Mistral sliding_window snippet');
});

test('the stack diagram names where GQA, paging, speculative decoding and ring attention act', () => {
  const diagram = html.match(/<figure class="?serving-stack"?[\s\S]*?<\/figure>/);
  assert.ok(diagram, 'no serving-stack diagram');
  const layers = diagram[0].match(/<li\b[\s\S]*?<\/li>/g) ?? [];
  assert.ok(layers.length >= 4, `${layers.length} layers`);
  const text = textOf(diagram[0]);
  for (const technique of ['Grouped-query attention', 'PagedAttention', 'Speculative decoding', 'Ring attention']) {
    assert.ok(text.includes(technique), `${technique} missing from the diagram`);
  }
  assert.match(diagram[0], /<figcaption/);
});

test('the references cite the primary sources', () => {
  const section = html.match(/<section class="?references[^>]*>([\s\S]*?)<\/section>/);
  assert.ok(section, 'no references section');
  for (const paper of ['1911.02150', '2305.13245', '2405.04434', '2309.06180', '2310.06825', '2310.01889', '2211.17192', 'flashdecoding']) {
    assert.ok(section[1].includes(paper), `no reference to ${paper}`);
  }
});

test('every post\'s series navigation links Part 4', () => {
  const posts = readdirSync(join(siteDir, 'posts'), { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(join(siteDir, 'posts', d.name, 'index.html')));
  assert.ok(posts.length >= 3);
  for (const dir of posts) {
    if (`/posts/${dir.name}/` === post.path) continue;
    const page = readFileSync(join(siteDir, 'posts', dir.name, 'index.html'), 'utf8');
    const nav = page.match(/<details class="?series-nav[\s\S]*?<\/details>/);
    assert.ok(nav, `${dir.name}: no series navigation`);
    assert.match(nav[0], new RegExp(`<a href="?${post.path}"?`), `${dir.name}: series navigation does not link Part 4`);
  }
});
