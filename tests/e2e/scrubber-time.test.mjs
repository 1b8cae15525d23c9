// A scrubber over a figure that shows time runs over time (shared/TimelineScrubber.tsx): its thumb
// is where the figure's playhead is, at every stop, however unevenly the stops are spaced (FA1's
// last wave is most of fa1-vs-fa2's timeline); dragging snaps to a stop; arrows step stop by stop.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { settledHash, startSite } from './browser.mjs';

const VIZ = '/visualizations/fa1-vs-fa2-parallelism/';
let site;
before(async () => { site = await startSite(); });
after(() => site.close());

// Where the thumb is and where the first timeline's playhead is, as fractions of their lengths.
const positions = (page) => page.evaluate(() => {
  const range = document.querySelector('.scrubber input[type="range"]');
  const plot = document.querySelector('.timeline-plot'), head = plot.querySelector('.timeline-playhead');
  const thumb = (Number(range.value) - Number(range.min)) / (Number(range.max) - Number(range.min));
  return { thumb, playhead: new DOMMatrix(getComputedStyle(head).transform).m41 / plot.clientWidth };
});

test('fa1-vs-fa2: the scrubber thumb tracks the playhead at every stop', async () => {
  const { page, problems, close } = await site.open(VIZ);
  const range = page.locator('.scrubber input[type="range"]');
  await range.focus();
  await page.keyboard.press('Home');
  for (let i = 0; i < 40; i++) {
    const { thumb, playhead } = await positions(page);
    assert.ok(Math.abs(thumb - playhead) < 0.01, `stop ${i}: thumb at ${(100 * thumb).toFixed(1)} %, playhead at ${(100 * playhead).toFixed(1)} %`);
    if (thumb >= 1) break;
    await page.keyboard.press('ArrowRight');
  }
  assert.equal((await positions(page)).thumb, 1, 'the arrow keys reach the end');
  // Dragging to 90 % lands on the stop nearest that time, and the thumb moves to it.
  await range.fill(String(0.9 * Number(await range.getAttribute('max'))));
  const hash = await settledHash(page);
  const { thumb, playhead } = await positions(page);
  assert.ok(Math.abs(thumb - playhead) < 0.01 && Number(hash.step) >= 0);
  assert.deepEqual(problems, []);
  await close();
});
