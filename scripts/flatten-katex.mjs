// KaTeX's HTML with its vertical offsets as margins instead of relative positions, so that a
// formula paints as a few paint chunks rather than hundreds.
//
// KaTeX stacks the parts of a fraction, a sum's limits or a sub/superscript in a "vlist": each
// part is a block of zero height, moved into place with `position: relative; top: …`. Chromium
// makes every positioned box a paint layer of its own, and every paint layer starts paint chunks;
// on each frame whose paint changes structure, the compositor walks every chunk of the page (and,
// on a post, of every figure framed in it). The tiling figure's formulas held about 250 such
// boxes, the FlashAttention post about 600: that walk cost a step of the figure about 1.4 ms on
// its own page and several times that in the post.
//
// Here each part of a vlist keeps its place by margins instead. Its parts have zero height and
// sit at the top of their list; as blocks in a block formatting context (the list is a table
// cell), part i lands at the sum of the margins before it. So part i gets margin-top t(i) − t(i−1),
// where t is its old `top` (t(0) = 0), and the last part margin-bottom −t(last), which brings the
// list's content height back to zero, as it was: the cell's bottom alignment is unchanged. Adjacent
// margins of opposite sign add when they collapse and the part before always has margin-bottom 0,
// so no collapse loses an offset. Empty parts (KaTeX's depth struts) are not moved: they draw
// nothing, and a margin on an empty block would collapse through it with its neighbours'.
//
// The stylesheet side (FLAT_CSS, appended by vendor-katex.mjs) then makes these boxes static. Anything this
// cannot rewrite exactly throws, so a formula never renders displaced without a failed build.

const TAG = /<(\/?)([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
const TOP = /(^|;)\s*top:\s*(-?[\d.]+)em\s*(;|$)/;

const hasClass = (attrs, name) => new RegExp(`\\bclass="(?:[^"]*\\s)?${name}(?:\\s[^"]*)?"`).test(attrs);
const em = (x) => `${Number(x.toFixed(5))}em`;

/** @param {string} html KaTeX's output. @returns {string} the same formula, its vlists by margins. */
export function flattenKatex(html) {
  // Tokens: tags and the text between them, so a rewritten tag can be replaced in place.
  const tokens = [];
  let last = 0;
  for (const m of html.matchAll(TAG)) {
    if (m.index > last) tokens.push({ text: html.slice(last, m.index) });
    tokens.push({ text: m[0], close: m[1] === '/', name: m[2], attrs: m[3], selfClosing: m[4] === '/' });
    last = m.index + m[0].length;
  }
  if (last < html.length) tokens.push({ text: html.slice(last) });

  const stack = [];
  tokens.forEach((token, index) => {
    if (!token.name) {
      if (stack.length) stack[stack.length - 1].empty = false;
      return;
    }
    if (token.close) {
      const element = stack.pop();
      if (!element || element.name !== token.name) throw new Error(`flattenKatex: </${token.name}> does not close <${element?.name}>`);
      if (element.parts) placeByMargins(tokens, element.parts);
      if (element.part) element.part.empty = element.empty;
      return;
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.empty = false;
    if (token.selfClosing) return;
    const element = { name: token.name, empty: true };
    if (token.name === 'span' && hasClass(token.attrs, 'vlist')) element.parts = [];
    if (token.name === 'span' && parent?.parts) {
      element.part = { index, top: Number(token.attrs.match(/style="([^"]*)"/)?.[1].match(TOP)?.[2] ?? 0), empty: true };
      parent.parts.push(element.part);
    }
    stack.push(element);
  });
  if (stack.length) throw new Error(`flattenKatex: <${stack[stack.length - 1].name}> is never closed`);
  return tokens.map((t) => t.text).join('');
}

// Rewrites the opening tags of one vlist's parts: `top` out, margins in.
function placeByMargins(tokens, parts) {
  const drawn = parts.filter((p) => !p.empty);
  let at = 0;
  drawn.forEach((part, i) => {
    const token = tokens[part.index];
    let style = token.attrs.match(/style="([^"]*)"/)?.[1] ?? '';
    if (/margin-(top|bottom)/.test(style)) throw new Error(`flattenKatex: a vlist part already has a vertical margin: ${token.text}`);
    style = style.replace(TOP, '$1').replace(/^;/, '');
    const margins = `margin-top:${em(part.top - at)};` + (i === drawn.length - 1 ? `margin-bottom:${em(-part.top)};` : '');
    at = part.top;
    const attrs = /style="/.test(token.attrs) ? token.attrs.replace(/style="[^"]*"/, `style="${margins}${style}"`) : `${token.attrs} style="${margins}"`;
    token.text = `<span${attrs}>`;
  });
  for (const part of parts.filter((p) => p.empty)) {
    const token = tokens[part.index];
    token.text = token.text.replace(/style="([^"]*)"/, (_, style) => `style="${style.replace(TOP, '$1').replace(/^;/, '')}"`);
  }
}

/** The rules that go with flattenKatex's HTML, appended to KaTeX's stylesheet (vendor-katex.mjs):
 *  the vlists, their parts and each line of a formula ("base") are static; the parts' struts
 *  (empty, zero-width) no longer clip, which would make each a paint layer too. The formula itself
 *  stays positioned: it contains its hidden MathML, which would otherwise escape the scrolling box
 *  of a wide display formula and widen the page. */
export const FLAT_CSS = '.katex .katex-base,.katex .vlist,.katex .vlist>span{position:static}.katex .vlist>span>.pstrut{overflow:visible}';
