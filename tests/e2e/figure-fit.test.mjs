// Every figure fits the frame it is shown in, at a phone's width (375 × 812) and a laptop's
// (1280 × 800): in every post that embeds it and on its own page. "Fits" means the figure's content
// is no taller than its frame (so the reader never scrolls inside a frame), nothing overflows
// horizontally, and the controls (.viz-footer), the main drawing ([data-drawing]) and the narration
// (.narration) are all in view together when the figure opens. It also checks that no SVG text
// runs outside its drawing. The measured heights are printed, for the issue note.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { ARTIFACTS, startSite } from './browser.mjs';

const PUBLIC = new URL('../../public/', import.meta.url).pathname;
const VIEWPORTS = [{ width: 375, height: 812 }, { width: 1280, height: 800 }];
// Each post that embeds figures, with the names of its figures in page order.
const posts = readdirSync(`${PUBLIC}posts`, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => ({
    path: `/posts/${d.name}/`,
    figures: [...readFileSync(`${PUBLIC}posts/${d.name}/index.html`, 'utf8').matchAll(/<iframe src="?[^"> ]*visualizations\/([a-z0-9-]+)\//g)].map((m) => m[1]),
  }))
  .filter((p) => p.figures.length > 0);
const figures = readdirSync(`${PUBLIC}visualizations`, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'assets').map((d) => d.name);
let site;
before(async () => { site = await startSite(); });
after(() => site.close());

// Measured inside a figure's document: its content height (the figure's own root, as mountFigure
// reports it), its horizontal overflow, the three parts that must be in view, and SVG text that
// leaves its drawing.
const measureFigure = () => {
  const root = document.getElementById('app');
  const inView = (selector) => {
    const el = document.querySelector(selector);
    if (!el) return `${selector} missing`;
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1 ? null : `${selector} at ${Math.round(r.top)}–${Math.round(r.bottom)} of ${innerHeight}`;
  };
  const textOutside = [];
  for (const text of document.querySelectorAll('svg text')) {
    const svg = text.ownerSVGElement.getBoundingClientRect(), t = text.getBoundingClientRect();
    if (t.width === 0) continue;
    if (t.left < svg.left - 1 || t.right > svg.right + 1 || t.top < svg.top - 1 || t.bottom > svg.bottom + 1) textOutside.push(text.textContent);
  }
  // A GPU's memory pools (shared/GPUBlock.tsx): each line of text stays inside its box.
  for (const pool of document.querySelectorAll('.gpu-pool')) {
    const box = pool.querySelector('rect').getBoundingClientRect();
    for (const text of pool.querySelectorAll('text')) {
      const t = text.getBoundingClientRect();
      if (t.left < box.left || t.right > box.right) textOutside.push(text.textContent);
    }
  }
  return {
    content: Math.ceil(root.getBoundingClientRect().bottom + scrollY),
    frame: innerHeight,
    overflowX: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    hidden: ['.viz-footer', '[data-drawing]', '.narration'].map(inView).filter(Boolean),
    textOutside,
  };
};

function assertFits(where, m) {
  console.log(`${where}: content ${m.content} px in a ${m.frame} px frame`);
  assert.ok(m.content <= m.frame + 1, `${where}: content ${m.content} px is taller than its ${m.frame} px frame`);
  assert.equal(m.overflowX, 0, `${where}: overflows horizontally by ${m.overflowX} px`);
  assert.deepEqual(m.hidden, [], `${where}: controls, drawing and narration are not all in view`);
  assert.deepEqual(m.textOutside, [], `${where}: SVG text outside its drawing`);
}

for (const viewport of VIEWPORTS) {
  for (const name of figures) {
    test(`at ${viewport.width} px the ${name} page fits the window`, async () => {
      const { page, problems, close } = await site.open(`/visualizations/${name}/`, { viewport });
      await page.locator('.viz-footer').waitFor();
      await page.waitForTimeout(300);
      assertFits(`${name} page at ${viewport.width}`, await page.evaluate(measureFigure));
      assert.deepEqual(problems, []);
      await close();
    });
  }

  for (const post of posts) {
    post.figures.forEach((name, i) => {
      test(`at ${viewport.width} px ${name} fits its frame in ${post.path}`, async () => {
        const { page, problems, close } = await site.open(post.path, { viewport });
        assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
        const iframe = page.locator('.viz__frame iframe').nth(i);
        await iframe.scrollIntoViewIfNeeded();
        const frame = await (await iframe.elementHandle()).contentFrame();
        await frame.locator('.viz-footer').waitFor();
        // The frame takes the height the figure reports (viz-frame.js): wait until it has settled.
        await page.waitForFunction((n) => document.querySelectorAll('.viz__frame')[n].classList.contains('viz__frame--sized'), i);
        await page.waitForTimeout(400);
        await iframe.screenshot({ path: `${ARTIFACTS}fit-${name}-in-${post.path.split('/')[2]}-${viewport.width}.png` });
        assertFits(`${name} in ${post.path} at ${viewport.width}`, await frame.evaluate(measureFigure));
        assert.deepEqual(problems, []);
        await close();
      });
    });
  }
}
