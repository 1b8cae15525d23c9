// The figures' formulas typeset at build time (scripts/formula-svg.mjs): the places of their live
// values, the image, the glyphs values are drawn with, and every formula of the figures.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { formulaFile, formulaSvg, valueGlyphs } from '../../scripts/formula-svg.mjs';
import { fmt } from '../e2e/figure-format.mjs';

const typeset = (tex) => formulaSvg(tex, { color: '#e5e5e5' });
const slot = (f, name) => f.slots.find((s) => s.name === name);
// TeX's figures are half an em wide, the minus sign 0.778 em, the point 0.278 em: "-0.00" is 2.556 em.
const MINUS_ZERO_POINT_ZERO_ZERO = 778 + 500 + 278 + 500 + 500;

test('a slot keeps the room of its template, -0.00 unless given, in order along the line', () => {
  const f = typeset('x = \\slot{a} + \\slot[00]{b} = y');
  assert.deepEqual(f.slots.map((s) => s.name), ['a', 'b']);
  assert.ok(Math.abs(slot(f, 'a').width - MINUS_ZERO_POINT_ZERO_ZERO) < 1, `width ${slot(f, 'a').width}`);
  assert.ok(Math.abs(slot(f, 'b').width - 1000) < 1, `width ${slot(f, 'b').width}`);
  assert.ok(slot(f, 'a').x + slot(f, 'a').width < slot(f, 'b').x, 'the "+" lies between them');
  for (const s of f.slots) {
    assert.equal(s.baseline, 0, 'on the formula’s baseline');
    assert.equal(s.size, 1000);
    assert.ok(s.x > f.viewBox[0] && s.x + s.width < f.viewBox[0] + f.viewBox[2], 'inside the image');
  }
});

test('a slot in a subscript is smaller and lower; a fraction’s slots sit above and below its bar', () => {
  const sub = slot(typeset('h_{\\slot[00]{j}}'), 'j');
  assert.ok(sub.size > 600 && sub.size < 800, `a script is set at about 0.7 em (${sub.size})`);
  assert.ok(Math.abs(sub.width - 1000 * sub.size / 1000) < 1, 'its template scaled with it');
  assert.ok(sub.baseline > 0, 'below the main baseline (y grows downwards)');
  const frac = typeset('\\frac{\\slot{n}}{\\slot{d}}');
  assert.ok(slot(frac, 'n').baseline < 0 && slot(frac, 'd').baseline > 0);
  assert.ok(frac.viewBox[1] < slot(frac, 'n').baseline && slot(frac, 'd').baseline < frac.viewBox[1] + frac.viewBox[3]);
});

test('the image stands alone: a viewBox, the given colour, no size of its own, no text to lay out', () => {
  const { image, viewBox } = typeset('e^{x} = \\slot{v}');
  assert.match(image, /^<svg [^>]*viewBox="[-\d. ]+"/);
  assert.match(image, /^<svg [^>]*color="#e5e5e5"/);
  assert.doesNotMatch(image.match(/^<svg [^>]*>/)[0], / (width|height|style)=/);
  assert.doesNotMatch(image, /<text|<foreignObject/);
  assert.equal(viewBox.length, 4);
});

test('bad TeX and a slot name with two templates fail the build', () => {
  assert.throws(() => typeset('\\nosuchcommand{x}'), /TeX: Undefined control sequence/);
  assert.throws(() => typeset('\\slot{a} + \\slot[00]{a}'), /two templates/);
});

test('the value glyphs cover what the figures write: figures, signs, brackets, ellipsis, dash, infinity, 1.23e-4, NaN', () => {
  const glyphs = valueGlyphs();
  for (const c of '0123456789.,()?−-+∞—… eNa') {
    assert.ok(glyphs[c], `a glyph for ${JSON.stringify(c)}`);
    assert.ok(glyphs[c].width > 0);
    // An outline to be moved by its start only: every command after it relative.
    if (c !== ' ') assert.match(glyphs[c].rest, /^[mlhvqtz][-\d. mlhvqtz]*z$/, `a relative outline for ${c}`);
  }
  for (const c of '0123456789') assert.equal(glyphs[c].width, 500, 'figures are all half an em');
  // What the figures' formatter writes (site/viz/shared/format.ts), at its edges.
  for (const x of [-Infinity, Infinity, NaN, -0.0004, 1234.5678, -3.14159]) {
    for (const digits of [0, 2, 3]) for (const c of fmt(x, digits)) assert.ok(glyphs[c], `a glyph for ${JSON.stringify(c)} of ${fmt(x, digits)}`);
  }
  for (const c of (1.2345e-7).toExponential(2) + (98765).toExponential(2)) assert.ok(glyphs[c], `a glyph for ${c} (Bahdanau's 1.23e-7)`);
  assert.deepEqual(glyphs['-'], glyphs['−'], 'a hyphen is drawn as the minus sign');
});

test('every figure’s formula typesets, with its slots', () => {
  const root = new URL('../../site/viz/', import.meta.url);
  const files = readdirSync(root, { recursive: true }).filter((f) => f.endsWith('.tex'));
  assert.ok(files.length >= 11);
  for (const f of files) {
    const { slots, viewBox } = formulaFile(new URL(f, root));
    assert.ok(slots.length > 0, `${f} has slots`);
    // MathJax rounds the viewBox to 0.1 unit.
    for (const s of slots) assert.ok(s.x >= viewBox[0] - 1 && s.x + s.width <= viewBox[0] + viewBox[2] + 1, `${f}: slot ${s.name} inside the image`);
  }
});
