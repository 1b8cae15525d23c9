// A figure's formula as one SVG image, typeset at build time by MathJax, with the places of its
// live values (site/viz/formula-prerender.ts, shared/EquationCallout.tsx).
//
// A formula in a figure used to be KaTeX's HTML: a few hundred boxes each (four fifths of the
// tiling figure's DOM), which the browser restyles, lays out and paints again whenever a card
// holding them is shown. As an image it is one element, and its painting is the image's.
//
// `\slot{name}` marks where a live value goes: the formula keeps the room of a template value there
// (`-0.00` unless given, as in `\slot[(0.000,\,0.000)]{o}`) and draws nothing in it. For each slot,
// the result gives the box the value is drawn over, in the image's own coordinates (its viewBox,
// 1,000 units to the em, y growing downwards): its left edge, width, baseline and font size
// (smaller inside a sub- or superscript).
import { readFileSync } from 'node:fs';
import { liteAdaptor } from 'mathjax-full/js/adaptors/liteAdaptor.js';
import { RegisterHTMLHandler } from 'mathjax-full/js/handlers/html.js';
import { TeX } from 'mathjax-full/js/input/tex.js';
import 'mathjax-full/js/input/tex/ams/AmsConfiguration.js';
import 'mathjax-full/js/input/tex/base/BaseConfiguration.js';
import 'mathjax-full/js/input/tex/html/HtmlConfiguration.js';
import { mathjax } from 'mathjax-full/js/mathjax.js';
import { SVG } from 'mathjax-full/js/output/svg.js';

const adaptor = liteAdaptor();
RegisterHTMLHandler(adaptor);
// fontCache 'local': each image carries the glyphs it uses once, in its own <defs>. A TeX error
// fails the build (MathJax would otherwise typeset the message in red in place of the formula).
const document = mathjax.document('', {
  InputJax: new TeX({ packages: ['base', 'ams', 'html'], formatError: (_, error) => { throw new Error(`TeX: ${error.message}`); } }),
  OutputJax: new SVG({ fontCache: 'local' }),
});

const SLOT = /\\slot(?:\[([^\]]*)\])?\{(\w+)\}/g;
const DEFAULT_TEMPLATE = '-0.00';

// The affine map of an element's transform attribute: MathJax writes translate(x, y) and
// scale(s) or scale(sx, sy), in that order when both.
function transformOf(node) {
  const t = { a: 1, d: 1, e: 0, f: 0 };
  const attr = adaptor.getAttribute(node, 'transform') ?? '';
  for (const [, op, args] of attr.matchAll(/(translate|scale)\(([^)]*)\)/g)) {
    const n = args.split(/[\s,]+/).filter(Boolean).map(Number);
    if (op === 'translate') { t.e += t.a * n[0]; t.f += t.d * (n[1] ?? 0); }
    else { t.a *= n[0]; t.d *= n[1] ?? n[0]; }
  }
  return t;
}

// Calls visit(element, at) for `node` and every element under it, `at` being the composed
// transform from the user space `node` is in (the SVG's viewBox, for the SVG itself) to the element's.
function eachTransformed(node, visit, outer = { a: 1, d: 1, e: 0, f: 0 }) {
  if (adaptor.kind(node) === '#text') return;
  const t = transformOf(node);
  const at = { a: outer.a * t.a, d: outer.d * t.d, e: outer.e + outer.a * t.e, f: outer.f + outer.d * t.f };
  visit(node, at);
  for (const child of adaptor.childNodes(node)) eachTransformed(child, visit, at);
}

// Every element with the class `slot-<name>`, with its transform from the viewBox.
function findSlots(svg) {
  const found = [];
  eachTransformed(svg, (node, at) => {
    const name = /(?:^|\s)slot-(\w+)/.exec(adaptor.getAttribute(node, 'class') ?? '')?.[1];
    if (name) found.push({ name, at });
  });
  return found;
}

const svgOf = (tex, display) => adaptor.firstChild(document.convert(tex, { display }));

// The width of a template, in ems, as MathJax sets it on its own (its viewBox, 1,000 units to the em).
function templateWidth(template) {
  const [, , width] = adaptor.getAttribute(svgOf(template, false), 'viewBox').split(' ').map(Number);
  return width;
}

// The SVG's markup without what only MathJax's own tools read (data-* attributes naming each
// node's MathML and each glyph's character, the slots' classes), with groups that carry nothing
// unwrapped, short glyph ids, outlines in relative coordinates (shorter numbers) and empty
// elements closed in their start tags.
function compactMarkup(svg) {
  const ids = new Map();
  const walk = (node) => {
    for (const child of [...adaptor.childNodes(node)]) {
      if (adaptor.kind(child) === '#text') continue;
      for (const { name } of adaptor.allAttributes(child)) if (name.startsWith('data-') || name === 'class') adaptor.removeAttribute(child, name);
      const id = adaptor.getAttribute(child, 'id');
      if (id) { ids.set(id, `g${ids.size}`); adaptor.setAttribute(child, 'id', ids.get(id)); }
      if (adaptor.kind(child) === 'path') {
        const { start, rest } = relativeOutline([{ d: adaptor.getAttribute(child, 'd'), dx: 0, dy: 0, scale: 1 }]);
        adaptor.setAttribute(child, 'd', `M${start.join(' ')}${rest}`);
      }
      const href = adaptor.getAttribute(child, 'xlink:href');
      if (href) adaptor.setAttribute(child, 'xlink:href', `#${ids.get(href.slice(1))}`);
      walk(child);
      if (adaptor.kind(child) === 'g' && adaptor.allAttributes(child).length === 0) {
        for (const grandchild of [...adaptor.childNodes(child)]) adaptor.insert(grandchild, child);
        adaptor.remove(child);
      }
    }
  };
  walk(svg);
  return adaptor.outerHTML(svg).replace(/><\/(use|path|rect)>/g, '/>');
}

/**
 * The formula in `tex` (a display formula, with \slot marks) typeset as SVG in `color`:
 * { image, viewBox: [x, y, width, height], slots: [{ name, x, width, baseline, size }] }.
 * `image` is the SVG's markup; numbers are viewBox units (1,000 per em).
 */
export function formulaSvg(tex, { color }) {
  const templates = new Map();
  const marked = tex.trim().replace(SLOT, (_, template = DEFAULT_TEMPLATE, name) => {
    if (templates.has(name) && templates.get(name) !== template) throw new Error(`\\slot{${name}} has two templates`);
    templates.set(name, template);
    return `\\class{slot-${name}}{\\phantom{${template}}}`;
  });
  const svg = svgOf(marked, true);
  const viewBox = adaptor.getAttribute(svg, 'viewBox').split(' ').map(Number);
  // The image stands alone: no size in ex (the page sizes it in em), no MathJax styling, and
  // currentColor (which MathJax paints with) set, since an image does not inherit the page's colour.
  for (const name of ['width', 'height', 'style', 'role', 'focusable']) adaptor.removeAttribute(svg, name);
  adaptor.setAttribute(svg, 'color', color);
  // The composed transforms include MathJax's flip of the y axis (scale(1, -1) at the top), so f is
  // already the baseline's y in the viewBox.
  const slots = findSlots(svg).map(({ name, at }) => ({
    name, x: at.e, width: templateWidth(templates.get(name)) * at.a, baseline: at.f, size: 1000 * at.a,
  }));
  const missing = [...templates.keys()].filter((name) => !slots.some((s) => s.name === name));
  if (missing.length) throw new Error(`slots not found in the typeset formula: ${missing.join(', ')}`);
  return { image: compactMarkup(svg), viewBox, slots };
}

// The characters a live value is written with (fmt, the Bahdanau figure's 1.23e-4, the vectors'
// "(0.12, 0.34, …)", the placeholders "—" and "?") and the TeX that typesets each as the formula
// would. A hyphen is drawn as a minus sign.
const VALUE_CHARS = {
  ...Object.fromEntries([...'0123456789.,()?eNa'].map((c) => [c, `\\mathrm{${c}}`])),
  '−': '\\mathord{-}', '-': '\\mathord{-}', '+': '\\mathord{+}', '∞': '\\infty', '—': '\\text{—}', '…': '\\ldots',
};
const SPACE_WIDTH = 333;  // TeX's interword space in roman type, 1/3 em

// A glyph's outline (absolute M, L, H, V, Q, T and Z commands, as MathJax writes them) moved by
// (dx, dy), scaled by `scale`, and rewritten relative to its first point: `start` is that point
// and `rest` the commands after it, all relative. Several outlines follow each other in `rest`.
// A value is then one path: its glyphs' outlines each with its own start and the same rest.
function relativeOutline(outlines) {
  let start = null, rest = '';
  let cx = 0, cy = 0, sx = 0, sy = 0;  // current point and start of the current subpath
  const tenth = (x) => Math.round(x * 10) / 10;  // the precision every coordinate is written with
  const num = (x) => String(tenth(x));
  for (const { d, dx, dy, scale } of outlines) {
    for (const [, cmd, args] of d.matchAll(/([MLHVQTZ])([^MLHVQTZ]*)/g)) {
      const n = (args.match(/-?\d*\.?\d+/g) ?? []).map(Number);
      const X = (x) => x * scale + dx, Y = (y) => y * scale + dy;
      if (cmd === 'Z') { rest += 'z'; cx = sx; cy = sy; continue; }
      if (cmd === 'H') { for (const x of n) { rest += `h${num(X(x) - cx)}`; cx = X(x); } continue; }
      if (cmd === 'V') { for (const y of n) { rest += `v${num(Y(y) - cy)}`; cy = Y(y); } continue; }
      const per = cmd === 'Q' ? 4 : 2;
      for (let i = 0; i + per <= n.length; i += per) {
        const pts = [];
        for (let k = 0; k < per; k += 2) pts.push([X(n[i + k]), Y(n[i + k + 1])]);
        const [x, y] = pts[pts.length - 1];
        if (cmd === 'M' && start === null) start = [tenth(x), tenth(y)];
        else rest += (cmd === 'M' && i === 0 ? 'm' : cmd === 'M' ? 'l' : cmd.toLowerCase()) + pts.map(([px, py]) => `${num(px - cx)} ${num(py - cy)}`).join(' ');
        cx = x; cy = y;
        if (cmd === 'M' && i === 0) { sx = x; sy = y; }
      }
    }
  }
  return { start: start ?? [0, 0], rest };
}

// One character typeset alone: its advance width and its outline, in units of 1/1000 em with y
// growing upwards.
function glyphOf(tex) {
  const svg = svgOf(tex, false);
  const width = Number(adaptor.getAttribute(svg, 'viewBox').split(' ')[2]);
  const defs = new Map(), uses = [];
  eachTransformed(svg, (node, at) => {
    const kind = adaptor.kind(node);
    if (kind === 'path' && adaptor.getAttribute(node, 'id')) defs.set(adaptor.getAttribute(node, 'id'), adaptor.getAttribute(node, 'd'));
    if (kind === 'use') uses.push({ id: adaptor.getAttribute(node, 'xlink:href').slice(1), at });
  });
  // The outlines are drawn y-up (their own axes), so MathJax's flip of the y axis in the
  // transforms (scale(1, -1) at the top) is undone on their offsets: the figure applies its own.
  const outlines = uses.map(({ id, at }) => ({ d: defs.get(id), dx: at.e, dy: -at.f, scale: at.a }));
  if (outlines.some((o) => o.d === undefined)) throw new Error(`an outline of ${tex} was not found`);
  return { width, ...relativeOutline(outlines) };
}

/**
 * The glyphs live values are drawn with, by character: { width, start: [x, y], rest }, in units of
 * 1/1000 em, y growing upwards. A value at pen position x is the path `M(start + x)` then `rest`
 * for each of its characters (EquationCallout.tsx).
 */
export function valueGlyphs() {
  return { ...Object.fromEntries(Object.entries(VALUE_CHARS).map(([c, tex]) => [c, glyphOf(tex)])), ' ': { width: SPACE_WIDTH, start: [0, 0], rest: '' } };
}

// The figures' text colour (site/data/theme.json), read once.
let textColor;

/** formulaSvg of a .tex file, in the figures' text colour. */
export function formulaFile(file) {
  textColor ??= JSON.parse(readFileSync(new URL('../site/data/theme.json', import.meta.url), 'utf8')).colors.text;
  return formulaSvg(readFileSync(file, 'utf8'), { color: textColor });
}
