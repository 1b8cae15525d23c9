#!/usr/bin/env node
// Captures a poster image of every visualization (static/posters/<name>.png): the still that the
// `viz` shortcode shows when scripts are off. Pixels vary with fonts and Chromium versions, so
// posters are refreshed by hand (`make posters`), not checked for freshness.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './chromium.mjs';
import { builtVisualizations } from './built-visualizations.mjs';
import { serveStatic } from './serve-static.mjs';

const STATIC = new URL('../static/', import.meta.url).pathname;
// The step each poster shows: a mid-algorithm state says more than the empty first step.
const POSTER_HASH = {
  'online-softmax': '#step=2&seed=19',
  'flash-attention-tiling': '#step=8',                  // a tile whose rows' maxima rise: rescales on screen
  'gpu-memory-hierarchy': '#mode=standard&step=8',      // standard attention mid-run, S and P on the HBM link
  'fa1-vs-fa2-parallelism': '',                         // opens mid-launch: FA2 fills the SMs, FA1 does not
  'fa3-warp-specialization': '',                        // FA3's schedule, run to its end, with the speed-up
};

const names = builtVisualizations();
mkdirSync(join(STATIC, 'posters'), { recursive: true });

const server = await serveStatic(STATIC, 0);
const browser = await launchChromium();
try {
  for (const name of names) {
    const page = await browser.newPage({ viewport: { width: 1024, height: 640 }, reducedMotion: 'reduce' });
    await page.goto(`http://127.0.0.1:${server.address().port}/visualizations/${name}/${POSTER_HASH[name] ?? ''}`,
      { waitUntil: 'networkidle' });
    await page.locator('h1').waitFor();
    await page.screenshot({ path: join(STATIC, 'posters', `${name}.png`) });
    console.log(`static/posters/${name}.png`);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
