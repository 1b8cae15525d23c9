// Browser tests of the site's pages: they load with no console error or failed request (under the
// production Content-Security-Policy), the embedded figure renders in its iframe, nothing overflows
// at 375 px, and reduced motion still works. Screenshots go to test-artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { horizontalOverflow, screenshot, startSite } from './browser.mjs';

const PRIMER = '/posts/online-softmax/';
let site;
before(async () => { site = await startSite(); });
after(() => site.close());

test('the home page introduces the series and links the primer', async () => {
  const { page, problems, close } = await site.open('/');
  assert.equal(await page.locator('h1').count() > 0, true);
  const headers = await (await page.request.get(site.base + '/')).headers();
  assert.match(headers['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
  await page.locator(`a[href$="${PRIMER}"]`).first().waitFor();
  await screenshot(page, 'home-desktop');
  assert.deepEqual(problems, []);
  await close();
});

test('the primer embeds the online-softmax figure, which renders from the core', async () => {
  const { page, problems, close } = await site.open(PRIMER);
  const iframe = page.locator('iframe[src*="visualizations/online-softmax/"]');
  await iframe.scrollIntoViewIfNeeded();
  const frame = page.frameLocator('iframe[src*="visualizations/online-softmax/"]');
  await frame.locator('h1').waitFor();
  assert.equal(await frame.locator('h1').textContent(), 'Online softmax, one tile at a time');
  await frame.getByRole('button', { name: /Step forward/ }).click();
  await frame.locator('.scrubber-stops [aria-current="step"]').filter({ hasText: 'Tile 1' }).waitFor();
  assert.equal(await page.locator('.katex-error').count(), 0);
  assert.ok(await page.locator('.katex').count() > 0, 'the primer has rendered math');
  await screenshot(page, 'primer-desktop');
  assert.deepEqual(problems, []);
  await close();
});

for (const path of ['/', PRIMER]) {
  test(`at 375 px ${path} does not overflow horizontally`, async () => {
    const { page, problems, close } = await site.open(path, { viewport: { width: 375, height: 812 } });
    assert.equal(await horizontalOverflow(page), 0);
    await screenshot(page, `${path === '/' ? 'home' : 'primer'}-375`);
    assert.deepEqual(problems, []);
    await close();
  });
}

test('with prefers-reduced-motion the primer and its figure still work', async () => {
  const { page, problems, close } = await site.open(PRIMER, { reducedMotion: 'reduce' });
  const frame = page.frameLocator('iframe[src*="visualizations/online-softmax/"]');
  await page.locator('iframe[src*="visualizations/online-softmax/"]').scrollIntoViewIfNeeded();
  await frame.getByRole('button', { name: /Step forward/ }).click();
  await frame.locator('.scrubber-stops [aria-current="step"]').filter({ hasText: 'Tile 1' }).waitFor();
  assert.deepEqual(problems, []);
  await close();
});
