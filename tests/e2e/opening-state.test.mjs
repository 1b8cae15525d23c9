// Every figure opens in the same state (shared/Narration.tsx, stepper.ts): its first step, with the
// narration line saying what to look for; the first move replaces that line with the step's own
// narration, and a URL hash that names a step opens there, narrated.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startSite } from './browser.mjs';

const PUBLIC = new URL('../../public/', import.meta.url).pathname;
const figures = readdirSync(`${PUBLIC}visualizations`, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'assets').map((d) => d.name);

let site;
before(async () => { site = await startSite(); });
after(() => site.close());

for (const name of figures) {
  test(`${name} opens at its first step, saying what to look for`, async () => {
    const { page, problems, close } = await site.open(`/visualizations/${name}/`);
    const narration = page.getByTestId('narration');
    assert.match(await narration.textContent(), /^Look for: \S.{20,}/);
    assert.equal(await page.getByRole('button', { name: /^Reset/ }).isDisabled(), true, 'at the first step');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => !document.querySelector('[data-testid="narration"]').textContent.startsWith('Look for'));
    assert.equal(await page.getByRole('button', { name: /^Reset/ }).isDisabled(), false);
    await close();

    const deep = await site.open(`/visualizations/${name}/#step=1`);
    assert.doesNotMatch(await deep.page.getByTestId('narration').textContent(), /^Look for/);
    assert.deepEqual([...problems, ...deep.problems], []);
    await deep.close();
  });
}
