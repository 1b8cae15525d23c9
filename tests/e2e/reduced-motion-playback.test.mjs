// Under prefers-reduced-motion, Play jumps from stop to stop instead of animating (stepper.ts). Each
// figure's playback from the first step to the last must take at most 30 s at 1x, however many
// stops its trace has: the jumps get coarser, not slower. Timers run 100 times faster here, and
// the test counts the jumps Play takes and multiplies by the interval the figure asked for.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startSite } from './browser.mjs';

const PUBLIC = new URL('../../public/', import.meta.url).pathname;
const figures = readdirSync(`${PUBLIC}visualizations`, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'assets').map((d) => d.name);
const LIMIT_MS = 30000;

let site;
before(async () => { site = await startSite(); });
after(() => site.close());

for (const name of figures) {
  test(`with reduced motion, playing ${name} through takes at most 30 s`, async () => {
    const { page, problems, close } = await site.open(`/visualizations/${name}/`, { reducedMotion: 'reduce' });
    await page.evaluate(() => {
      const original = window.setInterval;
      window.ticks = 0;
      window.setInterval = (fn, ms, ...rest) => { window.intervalMs = ms; return original(() => { window.ticks++; fn(); }, ms / 100, ...rest); };
    });
    await page.keyboard.press('Home');
    await page.getByRole('button', { name: /^Play/ }).click();
    await page.getByRole('button', { name: /^Play/ }).waitFor({ timeout: 60000 });
    assert.equal(await page.getByRole('button', { name: /Step forward/ }).isDisabled(), true, 'playback reached the last step');
    const { ticks, intervalMs } = await page.evaluate(() => ({ ticks: window.ticks, intervalMs: window.intervalMs }));
    console.log(`${name}: ${ticks} jumps of ${intervalMs} ms = ${(ticks * intervalMs / 1000).toFixed(1)} s`);
    assert.ok(ticks * intervalMs <= LIMIT_MS, `${name}: ${ticks} jumps × ${intervalMs} ms exceeds ${LIMIT_MS} ms`);
    assert.deepEqual(problems, []);
    await close();
  });
}
