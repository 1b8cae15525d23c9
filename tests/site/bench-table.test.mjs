// The bench-table shortcode against the committed benchmark data (site/data/bench/*.json):
// Hugo builds a one-page fixture site (the real layouts and data, a temporary content directory)
// whose page uses the shortcode, and the rendered table is compared with the data file -- rows,
// values, the model and paper columns, the provenance line. Pages of the built site (SITE_DIR,
// default public/) that use the shortcode are checked for a complete table too.
//
//   node --test tests/site/bench-table.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = join(repoRoot, 'site/data/bench');
const machines = existsSync(dataDir) ? readdirSync(dataDir).filter((f) => f.endsWith('.json')) : [];

test('site/data/bench holds at least one machine, each with provenance, benchmarks and ratios', () => {
  assert.ok(machines.length > 0, 'no site/data/bench/*.json: run make bench and commit its output');
  for (const file of machines) {
    const data = JSON.parse(readFileSync(join(dataDir, file), 'utf8'));
    assert.equal(`${data.machine}.json`, file);
    for (const key of ['cpu', 'compiler', 'commit', 'date', 'command']) assert.ok(data.provenance[key], `${file}: provenance.${key}`);
    assert.ok(data.benchmarks.length > 0, `${file}: no benchmarks`);
    // Each run has its time and what it measures: a FLOP rate, bytes per second (decode and its
    // streaming read) or, for the approximate methods, their error against exact attention.
    const measured = (b) => b.time_ms > 0 && (b.tflops > 0 || b.gbps > 0 || Number.isFinite(b.rel_error));
    assert.ok(data.benchmarks.every(measured), `${file}: a benchmark without time or rate: ${data.benchmarks.filter((b) => !measured(b)).map((b) => b.name).slice(0, 3)}`);
    assert.ok(data.ratios.speedup_vs_standard.length > 0, `${file}: no ratios`);
  }
});

// Builds `pages` ({ slug: markdown body }) with the real site and returns slug -> HTML, or throws
// with Hugo's output.
function buildFixture(pages) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-table-'));
  try {
    for (const [slug, body] of Object.entries(pages)) {
      mkdirSync(join(dir, 'content/posts', slug), { recursive: true });
      writeFileSync(join(dir, 'content/posts', slug, 'index.md'), `---\ntitle: "${slug}"\ndate: 2026-01-01\n---\n\n${body}\n`);
    }
    execFileSync(
      'hugo',
      ['--source', 'site', '--contentDir', join(dir, 'content'), '--destination', join(dir, 'public')],
      { cwd: repoRoot, stdio: 'pipe' },
    );
    return Object.fromEntries(
      Object.keys(pages).map((slug) => [slug, readFileSync(join(dir, 'public/posts', slug, 'index.html'), 'utf8')]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A cell's content, without the label and wrapper the page adds for stacking on phones (partials/post/stacked-tables.html).
const cells = (row, tag) => [...row.matchAll(new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))]
  .map((m) => m[1].replace(/^<small class="?stack-label"?[^>]*>[\s\S]*?<\/small>/, '').replace(/^<span class="?stack-value"?>([\s\S]*)<\/span>$/, '$1'));
const decode = (s) => s.replace(/&#43;/g, '+').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

test('bench-table renders the chosen rows, the model and paper columns and the provenance', () => {
  const file = machines[0];
  assert.ok(file, 'no benchmark data to render');
  const data = JSON.parse(readFileSync(join(dataDir, file), 'utf8'));
  const gpu = data.predictions[0].gpu;
  const expected = ['flash_fast', 'standard_blas'].flatMap((impl) =>
    data.benchmarks.filter((b) => b.implementation === impl && b.d === 64 && b.causal === false),
  );
  const { table: html } = buildFixture({
    table:
      `{{< bench-table machine="${data.machine}" impl="flash_fast,standard_blas" d="64" causal="false" ` +
      `columns="impl,N,time_ms,tflops,peak_mib" model="${gpu}" paper_values="2048:1.5" paper_label="Test figure" ` +
      `paper_cite="A. Author, *A paper* (2023), Table 1" >}}`,
  });
  const figure = html.match(/<figure class="data-table bench-table"[\s\S]*?<\/figure>/);
  assert.ok(figure, 'no bench-table figure on the page');
  const head = cells(figure[0].match(/<thead>[\s\S]*?<\/thead>/)[0], 'th');
  assert.deepEqual(head.slice(0, 5), ['Implementation', 'N', 'Time (ms)', 'TFLOP/s', 'Peak heap (MiB)']);
  assert.match(head[5], /^Roofline model: .+, fp16 \(predicted TFLOP\/s\)$/);
  assert.equal(head[6], 'Test figure (paper)');

  const rows = [...figure[0].matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]).slice(1);
  assert.equal(rows.length, expected.length);
  rows.forEach((row, i) => {
    const b = expected[i];
    const [impl] = cells(row, 'th');
    const [n, time, tflops, peak, model, paper] = cells(row, 'td');
    assert.equal(impl, b.implementation);
    assert.equal(n.replace(/,/g, ''), String(b.N));
    assert.equal(Number(time.replace(/,/g, '')), Number(b.time_ms.toFixed(b.time_ms < 10 ? 2 : 1)));
    assert.equal(Number(tflops), Number(b.tflops.toFixed(3)));
    assert.equal(Number(peak.replace(/,/g, '')), Number(b.peak_mib.toFixed(1)));
    const algorithm = b.implementation === 'standard_blas' ? 'standard' : 'flash';
    const prediction = data.predictions.find(
      (p) => p.gpu === gpu && p.precision === 'fp16' && p.algorithm === algorithm && p.N === b.N && p.d === 64 && p.causal === false,
    );
    assert.equal(Number(model.replace(/,/g, '')), Number((prediction.flops_per_s / 1e12).toFixed(1)));
    assert.equal(paper, b.implementation === 'flash_fast' && b.N === 2048 ? '1.5' : '–');
  });

  const provenance = decode(figure[0].match(/bench-table__provenance">([\s\S]*?)<\/p>/)[1]);
  const attentionBuild = data.provenance.attention_build ? [`attention code built ${data.provenance.attention_build}`] : [];
  const cpuId = data.provenance.cpu_id ? [data.provenance.cpu_id] : [];
  for (const value of [data.machine, data.provenance.cpu, ...cpuId, data.provenance.compiler, ...attentionBuild, data.provenance.commit, data.provenance.date, data.provenance.command]) {
    assert.ok(provenance.includes(value), `provenance line lacks ${value}: ${provenance}`);
  }
  assert.match(figure[0], /bench-table__model-note[\s\S]*a prediction, not a measurement/);
  assert.match(figure[0], /bench-table__paper-note[\s\S]*<em>A paper<\/em> \(2023\), Table 1/);
});

test('bench-table fails the build for an unknown machine or column', () => {
  for (const [args, message] of [
    ['machine="no-such-machine"', /site\/data\/bench\/no-such-machine.json is missing/],
    [`machine="${machines[0]?.replace(/\.json$/, '')}" columns="impl,watts"`, /unknown column "watts"/],
    [`machine="${machines[0]?.replace(/\.json$/, '')}" paper_values="2048:1"`, /paper_values needs paper_label and paper_cite/],
  ]) {
    assert.throws(() => buildFixture({ broken: `{{< bench-table ${args} >}}` }), (error) => {
      assert.match(`${error.stdout}${error.stderr}`, message);
      return true;
    });
  }
});

test('pages of the built site that use bench-table show rows and a provenance line', (t) => {
  const siteDir = resolve(repoRoot, process.env.SITE_DIR ?? 'public');
  assert.ok(existsSync(siteDir), `${siteDir} does not exist: build the site first (hugo --source site --minify)`);
  const using = readdirSync(siteDir, { recursive: true })
    .filter((name) => name.endsWith('.html'))
    .map((name) => ({ name, html: readFileSync(join(siteDir, name), 'utf8') }))
    .filter(({ html }) => html.includes('bench-table'));
  if (using.length === 0) t.diagnostic('no page of the built site uses bench-table yet (the fixture test above covers the shortcode)');
  for (const { name, html } of using) {
    for (const figure of html.match(/<figure class="?data-table bench-table"?[\s\S]*?<\/figure>/g) ?? []) {
      assert.ok(/<tbody><tr>/.test(figure), `${name}: a bench-table without rows`);
      assert.ok(/bench-table__provenance/.test(figure), `${name}: a bench-table without its provenance line`);
    }
  }
});
