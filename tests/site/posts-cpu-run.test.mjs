// Parts 2 and 4 show the CPU measurements of one named committed run (scripts/post-data/common.mjs,
// POSTS_CPU_RUN), not whichever file sorts first: a new `make bench` adds a file and leaves them be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTS_CPU_RUN, benchRun } from '../../scripts/post-data/common.mjs';

test('the run the posts name carries both sections they show', async () => {
  const approx = await benchRun(POSTS_CPU_RUN, 'approx');
  const decode = await benchRun(POSTS_CPU_RUN, 'decode');
  assert.equal(approx.machine, POSTS_CPU_RUN);
  assert.ok(approx.approx.methods.length > 0);
  assert.ok(decode.decode.some((r) => r.model === 'llama3-70b'), 'Part 4 shows the Llama 3 70B shape');
});

test('a run without the section asked for is refused with the file and the section named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posts-cpu-run-'));
  writeFileSync(join(dir, 'flash-only.json'), JSON.stringify({ machine: 'flash-only', ratios: {}, decode: [] }));
  await assert.rejects(benchRun('flash-only', 'decode', dir), /flash-only\.json has no 'decode' measurements/);
});
