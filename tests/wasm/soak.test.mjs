// A short seeded soak of each module under hostile input (tests/wasm/soak.mjs): no trap, no engine
// error or unnamed message, no call over a second of CPU, known-good results unchanged, Embind
// handles flat. `make soak` runs the long version (scripts/soak.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { MODULES } from './load.mjs';
import { soak, summary } from './soak.mjs';

for (const name of MODULES) {
  test(`${name}: 2000 hostile calls (seed 33)`, async (t) => {
    const r = await soak(name, { seed: 33, calls: 2000 });
    t.diagnostic(summary(r));
    assert.deepEqual(r.failures, []);
    assert.equal(r.counts.trap ?? 0, 0);
  });
}
