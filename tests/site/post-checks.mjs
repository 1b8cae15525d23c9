// The checks every post of the series must pass in an already-built site (SITE_DIR, default
// public/): its figures are embedded and built, each followed by one "What you should have seen"
// sentence; every table and chart its script computed is rendered with its source line; the
// numbers the prose quotes are still the ones the core computes; the reading time keeps to its
// budget; no raw TeX or placeholder; references link out; internal links resolve; the series
// navigation and the home page link it. A post's own test calls checkPost and adds what is
// particular to it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INLINE_IN_TEXT, mathKey } from '../../scripts/render-math.mjs';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const siteDir = resolve(repoRoot, process.env.SITE_DIR ?? 'public');

// Inline math \(TeX\) in a generated table's string, as the page shows it: the KaTeX HTML that
// scripts/render-math.mjs rendered for it.
const katexData = JSON.parse(readFileSync(join(repoRoot, 'site', 'data', 'katex.json'), 'utf8'));
const inlineMath = (fragment) => fragment.replace(INLINE_IN_TEXT, (whole, tex) => katexData[mathKey(tex, 'inline')] ?? whole);

// Entities and tags out, whitespace collapsed: the text a reader sees on a wide screen (minified
// HTML drops quotes), so without the copies of column names that a phone's stacked table shows
// (partials/post/stacked-tables.html). A generated string's math becomes the page's KaTeX first.
export function textOf(fragment) {
  return inlineMath(fragment)
    .replace(/<small class="?stack-label"?[^>]*>[\s\S]*?<\/small>/g, ' ')
    .replace(/<(script|style|annotation)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
    .replace(/&#39;|&rsquo;|&lsquo;/g, "'").replace(/&ldquo;|&rdquo;/g, '"').replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

// The built page of a post and what its tests read from it.
export function loadPost(slug, dataFile) {
  const path = `/posts/${slug}/`;
  const file = join(siteDir, path, 'index.html');
  const html = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const data = dataFile ? JSON.parse(readFileSync(join(repoRoot, 'site', 'data', 'generated', `${dataFile}.json`), 'utf8')) : null;
  // Text outside KaTeX, code and scripts, where TeX must not appear.
  const visibleText = textOf(html.replace(/<span class="?katex"?>[\s\S]*?<\/annotation>/g, ' ').replace(/<(pre|code)\b[^>]*>[\s\S]*?<\/\1>/gi, ' '));
  // The figure element of one generated table or chart (the shortcodes write data-table / data-chart="<name>").
  const generatedFigure = (kind, name) => {
    // The name ends at a quote, a space or the tag's end: "sqrt-d" is not "sqrt-d-example".
    const match = html.match(new RegExp(`<figure[^>]*data-${kind}="?${name}(?=["\\s>])[^>]*>([\\s\\S]*?)</figure>`));
    return match ? match[1] : null;
  };
  return { path, file, html, data, visibleText, tableFigure: (name) => generatedFigure('table', name), chartFigure: (name) => generatedFigure('chart', name) };
}

// post: loadPost's result. options:
//   number, title       the series part and the h1
//   figures             the figures the post embeds, in order
//   dataScript          the script that writes its data file (checked with --check), relative to the repository
//   quoted              keys of data.values the prose types; the data file may hold no others
//   minTables           at least this many generated tables
//   maxMinutes          the reading-time budget; maxWords the source's wc -w cap
//   minReferences       at least this many references
export function checkPost(post, options) {
  const { html, data, visibleText, tableFigure, chartFigure } = post;

  test('the post page exists', () => {
    assert.ok(html.length > 0, `${post.file} does not exist: build the site first (hugo --source site)`);
    const title = options.title.replace(/[()]/g, '\\$&');
    assert.match(html, new RegExp(`<h1[^>]*>${title}</h1>`));
  });

  test('each figure is embedded with the viz shortcode and built into the site', () => {
    for (const name of options.figures) {
      assert.match(html, new RegExp(`<iframe[^>]+src="?/visualizations/${name}/"?`), `no iframe for ${name}`);
      assert.ok(existsSync(join(siteDir, 'visualizations', name, 'index.html')), `${name} is not built (make viz)`);
    }
  });

  test('after every figure, one sentence says what the reader should have seen', () => {
    const figures = [...html.matchAll(/<figure class="?viz"?[\s\S]*?<\/figure>\s*(<p>[\s\S]*?<\/p>)?/g)];
    assert.equal(figures.length, options.figures.length, 'one viz figure per embedded figure');
    for (const [whole, next] of figures) {
      const name = whole.match(/visualizations\/([a-z0-9-]+)\//)[1];
      assert.ok(next, `${name}: no paragraph right after the figure`);
      const text = textOf(next).trim();
      assert.match(text, /^What you should have seen: [^.]+(?:\.\d[^.]*)*\.$/, `${name}: "${text}" is not one takeaway sentence`);
    }
  });

  test('every generated table and chart is rendered with its source line', () => {
    const names = Object.keys(data.tables);
    assert.ok(names.length >= options.minTables, `the data file has the post's ${options.minTables} tables`);
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
    for (const name of Object.keys(data.charts ?? {})) {
      const figure = chartFigure(name);
      assert.ok(figure, `chart ${name} is not in the post`);
      assert.match(figure, /role="?img"? aria-label="[^"]{20,}"/, `chart ${name}: no description for screen readers`);
      assert.match(figure, /<svg\b/, `chart ${name}: no drawing`);
      assert.match(figure, /class="?data-table__source"?/, `chart ${name}: no source line`);
    }
  });

  test('the numbers the prose quotes are the ones the core computed', () => {
    const prose = textOf((html.match(/<div class="?prose"?>([\s\S]*)<section class="?references/) ?? ['', html])[1]
      .replace(/<figure\b[\s\S]*?<\/figure>/g, ' '))
      .replace(/−/g, '-');
    const missing = options.quoted.filter((key) => {
      assert.ok(key in data.values, `the data file has no value ${key}`);
      // Numbers in running text may drop a unit's "TFLOP/s" or use a plain hyphen for minus.
      const value = data.values[key].replace(/−/g, '-');
      const bare = value.replace(/ TFLOP\/s$/, '');
      return !prose.includes(value) && !prose.includes(bare);
    });
    assert.deepEqual(missing.map((key) => `${key} = ${data.values[key]}`), []);
    // And the data file carries no value the prose does not quote.
    assert.deepEqual(Object.keys(data.values).filter((key) => !options.quoted.includes(key)), []);
  });

  test(`the post reads in at most ${options.maxMinutes} minutes, and its source stays within ${options.maxWords} words`, () => {
    const minutes = textOf(html).match(/(\d+) min read/);
    assert.ok(minutes, 'no reading time on the page');
    assert.ok(Number(minutes[1]) <= options.maxMinutes, `reading time ${minutes[1]} min`);
    const source = readFileSync(join(repoRoot, 'content', post.path, 'index.md'), 'utf8');
    const words = source.split(/\s+/).filter(Boolean).length;
    assert.ok(words <= options.maxWords, `index.md has ${words} words (wc -w)`);
  });

  test(`${options.dataScript} --check: the data file is what the core computes now`, () => {
    try {
      execFileSync(process.execPath, [join(repoRoot, options.dataScript), '--check'], { stdio: 'pipe', encoding: 'utf8' });
    } catch (error) {
      assert.fail(`node ${options.dataScript} --check failed:\n${error.stderr}`);
    }
  });

  test('no raw TeX, KaTeX error or placeholder text', () => {
    assert.doesNotMatch(html, /katex-error/);
    assert.ok((html.match(/class="?katex"?/g) ?? []).length > 20, 'the post has rendered math');
    assert.doesNotMatch(visibleText, /\$\$|\\(?:frac|sum|exp|log|max|mathbb|text|operatorname|begin|end|sqrt|ell|infty|times|cdot|top|alpha|gamma)\b/);
    assert.doesNotMatch(visibleText, /\b(?:TODO|TBD|FIXME|XXX|lorem|ipsum)\b/i);
  });

  test('the references section lists every reference with a link', () => {
    const section = html.match(/<section class="?references[^>]*>([\s\S]*?)<\/section>/);
    assert.ok(section, 'no references section');
    const items = section[1].match(/<li\b[\s\S]*?<\/li>/g) ?? [];
    assert.ok(items.length >= options.minReferences, `only ${items.length} references`);
    for (const item of items) assert.match(item, /<a href="?https?:\/\//, `reference without a link: ${textOf(item)}`);
    // Every cite points at an entry that exists, and every entry is cited.
    for (const [, key] of html.matchAll(/href="?#ref-([^"\s>]+)/g)) assert.match(html, new RegExp(`id="?ref-${key}"?`), `cite of missing ${key}`);
    const cited = new Set([...html.matchAll(/href="?#ref-([^"\s>]+)/g)].map((m) => m[1]));
    for (const [, key] of section[1].matchAll(/<li id="?ref-([^"\s>]+)/g)) assert.ok(cited.has(key), `reference ${key} is never cited`);
    // No doubled full stop ("et al..") and no year repeated after a venue that names it ("ACL 2002, 2002").
    for (const item of items) {
      assert.doesNotMatch(textOf(item), /\.\.(?!\.)/, `doubled full stop: ${textOf(item)}`);
      assert.doesNotMatch(textOf(item), /\b(\d{4}), \1\b/, `year repeated: ${textOf(item)}`);
    }
  });

  test('every internal link of the post resolves (figures checked separately)', () => {
    const links = [...html.matchAll(/<(?:a|iframe)\b[^>]*?\s(?:href|src)="?([^"\s>]+)/g)].map((m) => m[1])
      .filter((url) => !/^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(url) && !url.startsWith('mailto:'));
    const broken = links.filter((url) => !url.includes('/visualizations/')).filter((url) => !resolves(url, post));
    assert.deepEqual(broken, []);
  });

  test(`the post is Part ${options.number} in the series navigation and linked from the home page`, () => {
    assert.match(textOf(html), new RegExp(`Part ${options.number} of 4 in the series`));
    const home = readFileSync(join(siteDir, 'index.html'), 'utf8');
    assert.match(home, new RegExp(`href="?${post.path}"?`));
  });
}

// Internal links: site paths must be files of the built site, #fragments ids of the target page.
function resolves(url, post) {
  const [path, fragment] = url.split('#');
  let page = post.html;
  if (path) {
    const absolute = path.startsWith('/') ? path : new URL(path, `http://x${post.path}`).pathname;
    const file = join(siteDir, absolute.endsWith('/') ? `${absolute}index.html` : absolute);
    if (!existsSync(file)) return false;
    page = file.endsWith('.html') ? readFileSync(file, 'utf8') : '';
  }
  // A figure's deep link #fig-<name>:<state> targets the element fig-<name>.
  const target = fragment?.startsWith('fig-') ? fragment.split(':')[0] : fragment;
  return !target || new RegExp(`id="?${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?[\\s>]`).test(page);
}
