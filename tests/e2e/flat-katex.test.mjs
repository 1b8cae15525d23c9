// Flat KaTeX (scripts/flatten-katex.mjs): every formula of the posts, as they ship
// it (flattened, with the vendored stylesheet), puts each glyph where KaTeX's own HTML and
// stylesheet put it, and holds a small fraction of the positioned boxes (paint layers) it had.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import katex from 'katex';
import { FLAT_CSS, flattenKatex } from '../../scripts/flatten-katex.mjs';
import { startSite } from './browser.mjs';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

test('a vlist’s parts get margins that add up to their old offsets; empty parts and other boxes are left alone', () => {
  const html = '<span class="vlist" style="height:1em;"><span style="top:-3em;margin-left:0em;"><span class="pstrut" style="height:3em;"></span>a</span>'
    + '<span style="top:-2.5em;"><span class="pstrut"></span>b</span><span style="top:-1em;"></span><span style="top:0.25em;">c</span></span>'
    + '<span class="mop" style="position:relative;top:-0.1em;">x</span>';
  assert.equal(flattenKatex(html), '<span class="vlist" style="height:1em;"><span style="margin-top:-3em;margin-left:0em;"><span class="pstrut" style="height:3em;"></span>a</span>'
    + '<span style="margin-top:0.5em;"><span class="pstrut"></span>b</span><span style=""></span><span style="margin-top:2.75em;margin-bottom:-0.25em;">c</span></span>'
    + '<span class="mop" style="position:relative;top:-0.1em;">x</span>');
  assert.throws(() => flattenKatex('<span class="vlist"><span style="top:-1em;">a</span>'), /never closed/);
  assert.throws(() => flattenKatex('<span class="vlist"><span style="top:-1em;margin-top:1em;">a</span></span>'), /vertical margin/);
});

// Every formula of the posts (their TeX is in each rendering's MathML annotation). The figures'
// formulas are SVG images (scripts/formula-svg.mjs), not KaTeX.
const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, '&');
const formulas = Object.values(JSON.parse(read('site/data/katex.json'))).map((html) => ({
  tex: unescape(html.match(/<annotation encoding="application\/x-tex">([\s\S]*?)<\/annotation>/)[1]),
  displayMode: html.startsWith('<span class="katex-display">'),
}));

let site;
before(async () => { site = await startSite(); });
after(() => site?.close());

// One page per rendering, on the site's origin (the fonts are same-origin): KaTeX's own HTML with
// its own stylesheet, or the flattened HTML with the vendored one.
async function render(flat) {
  const { page, problems, close } = await site.open(null);
  const css = flat ? `<link rel="stylesheet" href="/vendor/katex/katex.min.css">`
    : `<style>${read('node_modules/katex/dist/katex.min.css').replace(/url\(fonts\//g, 'url(/vendor/katex/fonts/')}</style>`;
  const body = formulas.map(({ tex, displayMode }) => {
    const html = katex.renderToString(tex, { displayMode, output: 'html', throwOnError: true, strict: 'ignore' });
    return `<div class="formula">${flat ? flattenKatex(html) : html}</div>`;
  }).join('');
  await page.route(`${site.base}/flat-katex-test`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><head>${css}</head><body style="width:900px;font-size:18px">${body}</body></html>` }));
  await page.goto(`${site.base}/flat-katex-test`, { waitUntil: 'networkidle' });
  await page.evaluate(() => document.fonts.ready);
  const measured = await page.evaluate(() => [...document.querySelectorAll('.formula')].map((f) => {
    const origin = f.getBoundingClientRect();
    const inFormula = [...f.querySelectorAll('*')];
    // The boxes that draw: elements without element children (glyph runs, rules), and SVGs whole.
    const leaves = inFormula.filter((e) => !e.closest('svg') || e.tagName === 'svg').filter((e) => e.tagName === 'svg' || e.children.length === 0);
    return {
      size: [origin.width, origin.height],
      boxes: leaves.map((e) => { const r = e.getBoundingClientRect(); return [r.left - origin.left, r.top - origin.top, r.width, r.height]; }),
      positioned: inFormula.filter((e) => getComputedStyle(e).position !== 'static').length,
    };
  }));
  assert.deepEqual(problems, []);
  await close();
  return measured;
}

test('every formula of the site renders flat with each glyph where KaTeX puts it, with few positioned boxes', async () => {
  const [own, flat] = [await render(false), await render(true)];
  let worst = { d: 0 }, positioned = [0, 0];
  own.forEach((a, i) => {
    const b = flat[i], where = formulas[i].tex;
    assert.equal(b.boxes.length, a.boxes.length, `same boxes: ${where}`);
    a.boxes.forEach((box, k) => box.forEach((v, c) => {
      const d = Math.abs(v - b.boxes[k][c]);
      if (d > worst.d) worst = { d, where };
    }));
    positioned[0] += a.positioned; positioned[1] += b.positioned;
    assert.ok(Math.abs(a.size[0] - b.size[0]) <= 1 && Math.abs(a.size[1] - b.size[1]) <= 1, `same size: ${where}`);
  });
  console.log(`${formulas.length} formulas: glyphs within ${worst.d.toFixed(3)} px of KaTeX's own layout (worst: ${worst.where}); positioned boxes ${positioned[0]} → ${positioned[1]}`);
  // Layout rounds to 1/64 px, and a sum of margins can round differently from one offset.
  assert.ok(worst.d <= 1, `a glyph moved by ${worst.d} px in ${worst.where}`);
  assert.ok(positioned[1] <= positioned[0] / 5, `positioned boxes ${positioned[0]} → ${positioned[1]}`);
});
