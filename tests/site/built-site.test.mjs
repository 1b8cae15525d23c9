// Checks an already-built site (SITE_DIR, default public/) for the failures a
// Hugo-only build can ship silently: math that was not rendered, markup the
// Content-Security-Policy would block, assets from other hosts, and a stale
// site/data/katex.json.
//
//   hugo --source site --minify && node --test tests/site/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const siteDir = resolve(repoRoot, process.env.SITE_DIR ?? 'public');

function filesEndingWith(suffix) {
  assert.ok(existsSync(siteDir), `${siteDir} does not exist: build the site first (hugo --source site --minify)`);
  return readdirSync(siteDir, { recursive: true })
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(siteDir, name), 'utf8') }));
}

const pages = filesEndingWith('.html');

// Runs `check` on every page and fails once, listing every problem found.
function assertEveryPage(check) {
  const problems = pages.flatMap(({ name, text }) => check(text).map((problem) => `${name}: ${problem}`));
  assert.deepEqual(problems, []);
}

// Regions where TeX-looking text is legitimate: KaTeX's own source annotation,
// code samples, and script/style bodies.
function visibleText(html) {
  return html
    .replace(/<annotation\b[^>]*>[\s\S]*?<\/annotation>/gi, '')
    .replace(/<(pre|code|script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, '');
}

const texCommand = /\\(?:[dt]?frac|sum|prod|exp|log|left|right|begin|end|tilde|hat|bar|vec|ell|math(?:rm|bf|cal|bb)|operatorname|text|sqrt|cdot|times|max|min|top|infty|approx|partial|alpha|beta|gamma|theta|lambda|sigma|softmax|quad|le|ge|leq|geq|in)(?![A-Za-z])/;

// Start tags with their attributes; works on minified (unquoted) HTML.
const startTag = /<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
const attribute = /([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?/g;

function tags(html) {
  const withoutBodies = html.replace(/<(script|style)\b([^>]*)>[\s\S]*?<\/\1>/gi, '<$1$2></$1>').replace(/<!--[\s\S]*?-->/g, '');
  return [...withoutBodies.matchAll(startTag)].map(([, name, attrs]) => ({
    name: name.toLowerCase(),
    attrs: Object.fromEntries(
      [...attrs.matchAll(attribute)].map(([, key, value = '']) => [key.toLowerCase(), value.replace(/^["']|["']$/g, '')]),
    ),
  }));
}

const isExternal = (url) => /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(url.trim());
const resourceLinkRels = new Set(['stylesheet', 'preload', 'modulepreload', 'prefetch', 'icon', 'manifest']);

test('no unrendered TeX reaches a page', () => {
  assertEveryPage((html) => {
    const text = visibleText(html);
    const problems = [];
    if (text.includes('$$')) problems.push('contains $$');
    const command = text.match(texCommand);
    if (command) problems.push(`contains raw TeX ${command[0]} near «${text.slice(Math.max(0, command.index - 40), command.index + 40)}»`);
    const dollarMath = text.match(/\$[^$<>\n]*\\[A-Za-z]+[^$<>\n]*\$/);
    if (dollarMath) problems.push(`contains $-delimited TeX ${dollarMath[0]}`);
    return problems;
  });
});

test('no KaTeX error and no leftover placeholder or shortcode', () => {
  assertEveryPage((html) => {
    const text = visibleText(html);
    const problems = [];
    if (html.includes('katex-error')) problems.push('contains a katex-error');
    if (/nestedhtml[0-9a-f]{40}end/.test(html)) problems.push('contains a nested-shortcode placeholder (layouts/partials/nested)');
    if (/<!--m\[-->|<!--\]m-->/.test(html)) problems.push('contains a math mark of the m shortcode (layouts/partials/post/math-punct.html)');
    if (html.includes('&amp;amp;')) problems.push('contains a doubly escaped ampersand (&amp;amp;)');
    if (/\bid="?[^\s">]*hahahugoshortcode/i.test(html)) problems.push('a heading id contains a shortcode placeholder: give the heading an explicit {#id}');
    else if (/hahahugoshortcode/i.test(html)) problems.push('contains a Hugo shortcode placeholder');
    if (html.includes('raw HTML omitted')) problems.push('Goldmark dropped raw HTML (unsafe = false): use a shortcode instead');
    if (/\{\{(?:<|&lt;|%)/.test(text)) problems.push('contains unprocessed shortcode syntax');
    return problems;
  });
});

// Inline formulas (KaTeX spans outside a display block) with the character that follows each, and
// whether a math-punct span holds the formula: spans are matched by depth, so nesting is followed.
function inlineFormulas(html) {
  const out = [];
  for (const start of html.matchAll(/<span class="?katex"?>/g)) {
    if (/katex-display"?>$/.test(html.slice(Math.max(0, start.index - 40), start.index))) continue;
    const spans = /<span\b|<\/span>/g;
    spans.lastIndex = start.index;
    let depth = 0, m;
    while ((m = spans.exec(html))) if ((depth += m[0] === '</span>' ? -1 : 1) === 0) break;
    out.push({ next: html[spans.lastIndex], bound: /<span class="?math-punct"?>$/.test(html.slice(0, start.index)) });
  }
  return out;
}

test('an inline formula keeps the punctuation after it on its line (layouts/partials/post/math-punct.html)', () => {
  const formulas = pages.flatMap(({ text }) => inlineFormulas(text));
  assert.ok(formulas.filter((f) => f.bound).length > 50, 'the posts have inline formulas followed by punctuation');
  assertEveryPage((html) => inlineFormulas(html).filter((f) => /[.,;:!?)]/.test(f.next) && !f.bound)
    .map((f) => `an inline formula followed by '${f.next}' outside a math-punct span`));
});

test('no inline scripts and no inline event handlers (the CSP blocks both)', () => {
  assertEveryPage((html) =>
    tags(html).flatMap(({ name, attrs }) => {
      const problems = Object.keys(attrs)
        .filter((key) => key.startsWith('on'))
        .map((key) => `<${name}> has an inline ${key}= handler`);
      if (name === 'script' && !attrs.src) problems.push('has an inline <script> without src');
      if ((attrs.href ?? '').trim().toLowerCase().startsWith('javascript:')) problems.push(`<${name}> has a javascript: URL`);
      return problems;
    }),
  );
});

test('scripts, styles, fonts, frames and images come from this site only', () => {
  const fromPages = pages.flatMap(({ name, text }) =>
    tags(text).flatMap(({ name: tag, attrs }) => {
      const rels = (attrs.rel ?? '').toLowerCase().split(/\s+/);
      const url =
        tag === 'link' && rels.some((rel) => resourceLinkRels.has(rel))
          ? attrs.href
          : ['script', 'iframe', 'img', 'source', 'audio', 'video', 'track', 'embed'].includes(tag)
            ? attrs.src
            : attrs.data;
      return url && isExternal(url) ? [`${name}: <${tag}> loads ${url} from another host`] : [];
    }),
  );
  const fromStylesheets = filesEndingWith('.css').flatMap(({ name, text }) =>
    [...text.matchAll(/(?:url\(\s*["']?|@import\s+["'])([^"')\s]+)/g)]
      .map((match) => match[1])
      .filter(isExternal)
      .map((url) => `${name}: references ${url}`),
  );
  assert.deepEqual([...fromPages, ...fromStylesheets], []);
});

test('every figure embedded in a post has its poster (the still shown without JavaScript), and it exists', () => {
  assertEveryPage((html) =>
    // The viz shortcode's fallback (class viz__fallback); figure pages describe themselves in text.
    [...html.matchAll(/<noscript>([\s\S]*?)<\/noscript>/g)].filter(([, inner]) => /class="?viz__fallback/.test(inner)).flatMap(([, inner]) => {
      const src = inner.match(/<img\b[^>]*\bsrc="?([^"\s>]+)/)?.[1];
      if (!src) return [`a figure's fallback has no poster: ${inner.slice(0, 120)}`];
      return existsSync(join(siteDir, decodeURIComponent(src))) ? [] : [`poster ${src} is not in the built site`];
    }),
  );
});

test('every post names a hero image (og:image) that exists in the built site', () => {
  const posts = pages.filter(({ name }) => /^posts[/\\][^/\\]+[/\\]index\.html$/.test(name));
  assert.ok(posts.length > 0, 'no posts in the built site');
  const problems = posts.flatMap(({ name, text }) => {
    const image = tags(text).find((tag) => tag.name === 'meta' && tag.attrs.property === 'og:image')?.attrs.content;
    if (!image) return [`${name}: no og:image`];
    return existsSync(join(siteDir, decodeURIComponent(new URL(image, 'http://x/').pathname))) ? [] : [`${name}: ${image} is not in the built site`];
  });
  assert.deepEqual(problems, []);
});

test('site/data/katex.json matches the math in content/ (render-math --check)', () => {
  try {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'render-math.mjs'), '--check'], { stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    assert.fail(`node scripts/render-math.mjs --check failed:\n${error.stderr}`);
  }
});

// A data cell is read with its column's header (Lighthouse's td-has-header): an empty header cell
// leaves the first column's cells without one.
test('every table header cell has text', () => {
  assertEveryPage((text) => [...text.matchAll(/<thead>([\s\S]*?)<\/thead>/g)].flatMap(([, head]) =>
    [...head.matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)]
      .filter(([, cell]) => cell.replace(/<[^>]*>/g, '').trim() === '')
      .map(() => `an empty header cell in ${head.slice(0, 120)}`)));
});

test('the site has pages to check', () => {
  assert.ok(pages.some(({ name }) => name === 'index.html'), `no index.html in ${relative(repoRoot, siteDir)}`);
});
