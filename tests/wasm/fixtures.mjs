// Inputs and the error measure shared by the WebAssembly API tests.
import assert from 'node:assert/strict';

// Q of shape [B, H, L, D], and K, V of Hkv heads of S rows (D and Dv wide), drawn by the module's
// own seeded randomNormal; Hkv < H gives grouped-query shapes.
export function qkvProblem(core, { B, H, Hkv = H, L, S, D, Dv, seed }) {
  return {
    q: core.randomNormal([B, H, L, D], seed, 1), qShape: [B, H, L, D],
    k: core.randomNormal([B, Hkv, S, D], seed + 1, 1), kShape: [B, Hkv, S, D],
    v: core.randomNormal([B, Hkv, S, Dv], seed + 2, 1), vShape: [B, Hkv, S, Dv],
  };
}

// The largest |a[i] - b[i]|. Entries that are not finite (-inf log-sum-exps of rows that see no
// key) must be the same in both; `note` says which case failed.
export function maxAbsDiff(a, b, note) {
  assert.equal(a.length, b.length, note);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i]) || !Number.isFinite(b[i])) { assert.equal(a[i], b[i], note); continue; }
    worst = Math.max(worst, Math.abs(a[i] - b[i]));
  }
  return worst;
}
