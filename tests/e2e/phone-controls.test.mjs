// Phone-sized controls, for every figure page at 375 × 812: every visible control is a tap target
// of at least 44 × 44 px (a checkbox or radio counts with its label, which taps it too), and the
// sticky control bar is opaque, so text scrolled under it does not show through.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startSite } from './browser.mjs';

const PUBLIC = new URL('../../public/', import.meta.url).pathname;
const figures = readdirSync(`${PUBLIC}visualizations`, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'assets').map((d) => d.name);
const MIN = 44;

let site;
before(async () => { site = await startSite(); });
after(() => site.close());

const smallTargets = (min) => {
  const small = [];
  for (const el of document.querySelectorAll('button, select, input, a[href], [role="button"], [tabindex="0"]')) {
    const target = el.matches('input[type="checkbox"], input[type="radio"]') ? el.closest('label') ?? el : el;
    const r = target.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;  // not shown
    if (r.width < min - 0.5 || r.height < min - 0.5) {
      small.push(`${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent).trim().slice(0, 30)}" ${r.width.toFixed(0)}×${r.height.toFixed(0)}`);
    }
  }
  return small;
};

for (const name of figures) {
  test(`at 375 px ${name}: tap targets are at least 44 × 44 px and the control bar is opaque`, async () => {
    const { page, problems, close } = await site.open(`/visualizations/${name}/`, { viewport: { width: 375, height: 812 } });
    await page.locator('.viz-footer').waitFor();
    assert.deepEqual(await page.evaluate(smallTargets, MIN), []);
    // Unfolded, the settings are tap targets too.
    await page.getByRole('button', { name: 'More controls' }).click().catch(() => {});  // figures without secondary settings
    assert.deepEqual(await page.evaluate(smallTargets, MIN), []);
    const background = await page.evaluate(() => getComputedStyle(document.querySelector('.viz-footer')).backgroundColor);
    const alpha = background.match(/rgba\([^)]*,\s*([\d.]+)\)/)?.[1];
    assert.ok(alpha === undefined || Number(alpha) === 1, `the control bar's background is ${background}`);
    assert.deepEqual(problems, []);
    await close();
  });
}
