// Accessibility audit with axe-core (its WCAG 2 A and AA rules and best practices) of the home
// page, the posts and every visualization, at desktop and phone widths. Figures are audited as
// they open and again in a later state (steps taken, other modes), where other text and colours
// appear. Embedded figures are audited on their own pages, not inside the posts' frames.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startSite } from './browser.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const WIDTHS = [1280, 375];
const PAGES = [
  '/',
  '/posts/flash-attention-deep-dive/',
  '/posts/attention-inference-optimizations/',
  '/posts/online-softmax/',
  '/visualizations/flash-attention-tiling/',
  '/visualizations/flash-attention-tiling/#mode=standard&causal=1&step=20',
  '/visualizations/flash-attention-tiling/#n=32&br=8&bc=2&order=fa1&causal=1&step=30',
  '/visualizations/gpu-memory-hierarchy/',
  '/visualizations/gpu-memory-hierarchy/#gpu=h100-sxm&mode=standard&step=5',
  '/visualizations/fa1-vs-fa2-parallelism/',
  '/visualizations/fa1-vs-fa2-parallelism/#gpu=h100-sxm&batch=4&causal=1&step=2',
  '/visualizations/fa3-warp-specialization/',
  '/visualizations/fa3-warp-specialization/#prec=fp8&schedule=pingpong&step=5',
  '/visualizations/online-softmax/',
  '/visualizations/online-softmax/#step=3',
  '/visualizations/online-softmax/#step=99',
  '/visualizations/sliding-window-receptive-field/',
  '/visualizations/sliding-window-receptive-field/#layers=8&window=6&step=5',
  '/visualizations/attention-bahdanau-alignment/',
  '/visualizations/attention-bahdanau-alignment/#sentence=own&text=the+agrement+was+signed&step=0',
  '/visualizations/attention-scoring-functions/',
  '/visualizations/attention-scoring-functions/#step=7&seed=3',
  '/visualizations/attention-multihead-self/',
  '/visualizations/attention-multihead-self/#step=4&heads=1010&token=8',
  '/visualizations/kv-cache-evolution/',
  '/visualizations/kv-cache-evolution/#model=deepseek-v2&ctx=131072&weights=1&step=3',
  '/visualizations/decode-roofline/',
  '/visualizations/decode-roofline/#model=deepseek-v2&gpu=a100-sxm-80gb&ctx=4096&batch=64&weights=0&step=8',
  '/visualizations/ring-attention-rotation/',
  '/visualizations/ring-attention-rotation/#seq=16384&devices=8&link=25&step=8',
  '/visualizations/attention-pattern-zoo/',
  '/visualizations/attention-pattern-zoo/#n=8192&step=4',
  '/visualizations/attention-complexity-scaling/',
  '/visualizations/attention-complexity-scaling/#metric=flops&marks=gpt-2&n=100000',
  '/visualizations/lsh-attention-bucketing/',
  '/visualizations/lsh-attention-bucketing/#buckets=8&rounds=2&chunk=8&seed=2&step=4',
  '/visualizations/approximation-price/',
  '/visualizations/approximation-price/#n=128&input=random&seed=1&step=8',
  '/visualizations/paged-attention-blocks/',
  '/visualizations/paged-attention-blocks/#seed=3&requests=12&blocks=32&step=3&request=3',
];

let site;
before(async () => { site = await startSite(); });
after(() => site.close());

// The page's violations, one line each: rule, impact, what to do, and up to three offending elements.
async function violations(page) {
  // axe is injected as an inline script, which the site's Content-Security-Policy forbids: the
  // context bypasses the policy (the other browser tests run under it).
  await page.addScriptTag({ path: AXE });
  // Entry animations and the figure's own transitions settle first, so colours are measured as shown.
  await page.evaluate(() => Promise.all(document.getAnimations()
    .filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished)));
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { iframes: false, resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} element(s): ` +
      v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} [${n.failureSummary.replace(/\s+/g, ' ')}]`).join('; '));
  });
}

for (const width of WIDTHS) {
  test(`no axe-core violations at ${width} px`, async () => {
    const found = [];
    for (const path of PAGES) {
      const { page, problems, close } = await site.open(path, { viewport: { width, height: 800 }, bypassCSP: true });
      await page.locator(path.startsWith('/visualizations/') ? '.viz' : 'main').first().waitFor();
      for (const v of await violations(page)) found.push(`${path}: ${v}`);
      assert.deepEqual(problems, [], path);
      await close();
    }
    assert.deepEqual(found, []);
  });
}
