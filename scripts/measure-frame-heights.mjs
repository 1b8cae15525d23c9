#!/usr/bin/env node
// Measures how tall each visualization is when embedded, as a function of its frame's width, and
// writes site/data/frame_heights.json. The viz shortcode hands a figure's table to its frame, and
// assets/js/viz-frame.js gives a frame that height before the (lazily loaded) figure arrives, so
// the post does not move when the figure loads and reports its real height (browsers without
// scroll anchoring, Safari among them, would otherwise jump the text under the reader).
//
// Each figure is loaded the way a post embeds it, in an iframe (so it hides its own title), and
// measured at every width from MIN_WIDTH to MAX_WIDTH in STEP px, and at every pixel around a jump
// in height. The table keeps only the widths needed to reproduce every measurement within
// TOLERANCE px by linear interpolation. Heights depend on the fonts, so, like the posters, the
// table is refreshed by hand (`make frame-heights`), and a browser test fails when it no longer
// matches the figures.
import { writeFileSync } from 'node:fs';
import { launchChromium } from './chromium.mjs';
import { builtVisualizations } from './built-visualizations.mjs';
import { serveStatic } from './serve-static.mjs';

const STATIC = new URL('../static/', import.meta.url).pathname;
const OUT = new URL('../site/data/frame_heights.json', import.meta.url).pathname;
// Frames span a phone's full width (from 280 px) up to the post's wide column (about 1020 px).
const MIN_WIDTH = 280, MAX_WIDTH = 1120, STEP = 4, TOLERANCE = 2;

// The fewest [width, height] points whose piecewise-linear interpolation stays within TOLERANCE
// of every measured point: greedily extend each segment as far as it fits.
function simplify(points) {
  const kept = [points[0]];
  let start = 0;
  while (start < points.length - 1) {
    let end = start + 1;
    const fits = (e) => points.slice(start + 1, e).every(([w, h]) => {
      const [w0, h0] = points[start], [w1, h1] = points[e];
      return Math.abs(h0 + ((h1 - h0) * (w - w0)) / (w1 - w0) - h) <= TOLERANCE;
    });
    while (end + 1 < points.length && fits(end + 1)) end++;
    kept.push(points[end]);
    start = end;
  }
  return kept;
}

// The height is the one the figure itself reports to the page that embeds it (mountFigure's
// 'viz:height' message, which viz-frame.js listens to), so the table holds what the post receives.
async function measure(page, base, name) {
  await page.evaluate((src) => new Promise((loaded) => {
    document.body.replaceChildren();
    document.body.style.margin = '0';
    window.onmessage = (event) => { if (event.data?.type === 'viz:height') window.reportedHeight = event.data.height; };
    const frame = document.createElement('iframe');
    frame.style.cssText = 'border:0;display:block;height:3000px';
    frame.onload = loaded;
    frame.src = src;
    document.body.append(frame);
  }), `${base}/visualizations/${name}/`);
  await page.frameLocator('iframe').locator('.viz').waitFor();
  // The figure re-renders for its new width after a ResizeObserver callback and reports its height
  // only when that changed: wait a few of its frames, then for the message to arrive.
  const heightAt = (width) => page.evaluate(async (w) => {
    const frame = document.querySelector('iframe');
    frame.style.width = `${w}px`;
    for (let i = 0; i < 3; i++) await new Promise((r) => frame.contentWindow.requestAnimationFrame(r));
    await new Promise((r) => setTimeout(r, 0));
    return window.reportedHeight;
  }, width);
  const heights = new Map();
  for (let width = MIN_WIDTH; width <= MAX_WIDTH; width += STEP) heights.set(width, await heightAt(width));
  // Where the height jumps (text wraps, panels stack), measure every width in between, so the table
  // knows to the pixel where the jump is.
  for (let width = MIN_WIDTH; width < MAX_WIDTH; width += STEP) {
    if (Math.abs(heights.get(width + STEP) - heights.get(width)) <= TOLERANCE) continue;
    for (let w = width + 1; w < width + STEP; w++) heights.set(w, await heightAt(w));
  }
  return simplify([...heights].sort((a, b) => a[0] - b[0]));
}

const names = builtVisualizations();

const server = await serveStatic(STATIC, 0);
const browser = await launchChromium();
const table = {};
try {
  const page = await browser.newPage({ viewport: { width: MAX_WIDTH + 40, height: 900 }, reducedMotion: 'reduce' });
  // The host page is same-origin with the figures, so that the script can wait on a figure's frames.
  const base = `http://127.0.0.1:${server.address().port}`;
  await page.goto(`${base}/`);
  for (const name of names) {
    table[name] = await measure(page, base, name);
    console.log(`${name}: ${table[name].length} points`);
  }
} finally {
  await browser.close();
  server.close();
}
writeFileSync(OUT, JSON.stringify(table) + '\n');
console.log(`wrote ${OUT}`);
