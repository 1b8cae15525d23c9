// A table wider than the post's column scrolls inside itself and shows that it does: a scroll
// shadow (post.css) marks the side where columns are hidden, and disappears once scrolled to that
// end; the table takes keyboard focus (scroll-regions.js) so it can be scrolled without a pointer.
// On a phone a table of three or more columns stacks instead (partials/post/stacked-tables.html):
// every value on screen, each beside its column's name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startSite } from './browser.mjs';

const PUBLIC = new URL('../../public/', import.meta.url).pathname;
const posts = readdirSync(`${PUBLIC}posts`, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `/posts/${d.name}/`);

let site;
before(async () => { site = await startSite(); });
after(() => site.close());

// The table's box once the page around it has settled. The test lays every paragraph out up front
// (see below), but a figure's frame can still change height as it loads.
async function settledBox(page, table) {
  let last;
  for (let i = 0; i < 20; i++) {
    await table.evaluate((t) => t.scrollIntoView({ block: 'start' }));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const box = await table.boundingBox();
    if (last && Math.abs(box.x - last.x) < 0.5 && Math.abs(box.y - last.y) < 0.5) return box;
    last = box;
  }
  return last;
}

// The mean brightness of a 6 px strip just inside the table's right edge.
async function rightEdge(page, table) {
  const box = await settledBox(page, table), top = Math.max(0, box.y);
  const height = Math.min(box.y + box.height, page.viewportSize().height, top + 300) - top;
  assert.ok(height > 0, `the table is on screen after scrolling to it (top ${box.y.toFixed(0)}, height ${box.height.toFixed(0)})`);
  const png = await page.screenshot({ clip: { x: box.x + box.width - 7, y: top, width: 6, height } });
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = new OffscreenCanvas(img.width, img.height), g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, img.width, img.height).data;
    let sum = 0;
    for (let i = 0; i < d.length; i += 4) sum += d[i] + d[i + 1] + d[i + 2];
    return sum / (d.length / 4) / 3;
  }, png.toString('base64'));
}

for (const width of [1280, 375]) {
  for (const post of posts) {
    test(`at ${width} px every table in ${post} that is wider than the column shows that it scrolls`, async () => {
      const { page, problems, close } = await site.open(post, { viewport: { width, height: 800 } });
      // Tables in a collapsed section (the post's "how these numbers were computed") are checked open.
      await page.evaluate(() => document.querySelectorAll('.prose details').forEach((d) => { d.open = true; }));
      // Paragraphs are laid out only as they near the screen (content-visibility in post.css), so
      // scrolling to a table could move it after its box was read; lay them all out up front.
      await page.addStyleTag({ content: '.prose > * { content-visibility: visible !important; }' });
      const tables = page.locator('.prose table');
      let wide = 0;
      for (let i = 0; i < await tables.count(); i++) {
        const table = tables.nth(i);
        if (!await table.evaluate((t) => t.scrollWidth > t.clientWidth + 1)) continue;
        wide++;
        await table.scrollIntoViewIfNeeded();
        assert.equal(await table.getAttribute('tabindex'), '0');
        // Blank the cells, so only the table's own background (the shadow) is compared.
        await table.evaluate((t) => { t.style.color = 'transparent'; t.querySelectorAll('th, td').forEach((c) => { c.style.borderColor = 'transparent'; }); });
        const hidden = await rightEdge(page, table);
        await table.evaluate((t) => { t.scrollLeft = t.scrollWidth; });
        const atEnd = await rightEdge(page, table);
        assert.ok(hidden > atEnd + 3, `table ${i}: right edge brightness ${hidden.toFixed(1)} with columns hidden, ${atEnd.toFixed(1)} at the end`);
      }
      console.log(`${post} at ${width} px: ${wide} table(s) wider than the column`);
      assert.deepEqual(problems, []);
      await close();
    });
  }
}

for (const post of posts) {
  test(`at 375 px every table of three or more columns in ${post} stacks: each value on screen beside its column's name`, async () => {
    const { page, problems, close } = await site.open(post, { viewport: { width: 375, height: 800 } });
    await page.evaluate(() => document.querySelectorAll('.prose details').forEach((d) => { d.open = true; }));
    await page.addStyleTag({ content: '.prose > * { content-visibility: visible !important; }' });
    const report = await page.evaluate(() => [...document.querySelectorAll('.prose table')].map((t) => {
      const columns = t.querySelectorAll('thead th').length;
      const cells = [...t.querySelectorAll('tbody td, tbody th')];
      return {
        columns, stacked: t.classList.contains('stack'), overflow: t.scrollWidth - t.clientWidth,
        offScreen: cells.filter((c) => c.getBoundingClientRect().right > innerWidth + 0.5).length,
        unlabelled: cells.filter((c) => !c.querySelector(':scope > .stack-label')).length,
        // Each value beside its label: the label shown, on the value's line, to its left.
        labelShown: cells.filter((c) => !c.matches(':first-child')).every((c) => {
          const label = c.querySelector(':scope > .stack-label').getBoundingClientRect(), value = c.querySelector(':scope > .stack-value').getBoundingClientRect();
          return label.width > 0 && label.right <= value.left && Math.abs(label.top - value.top) < 4;
        }),
      };
    }));
    const wide = report.filter((t) => t.columns >= 3);
    assert.ok(wide.length > 0, 'the post has tables of three or more columns');
    for (const [i, t] of wide.entries()) {
      assert.deepEqual({ stacked: t.stacked, overflow: t.overflow <= 1, offScreen: t.offScreen, unlabelled: t.unlabelled, labelShown: t.labelShown },
        { stacked: true, overflow: true, offScreen: 0, unlabelled: 0, labelShown: true }, `table ${i} of ${post}`);
    }
    console.log(`${post} at 375 px: ${wide.length} table(s) stacked`);
    assert.deepEqual(problems, []);
    await close();
  });
}
