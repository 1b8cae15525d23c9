// Node tests of the WebAssembly API: every bound function, with good and bad arguments.
// Run: node --test tests/wasm/   (needs static/wasm/ built: make wasm)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { maxAbsDiff, qkvProblem } from './fixtures.mjs';
import { loadModule, MODULES } from './load.mjs';

const core = await loadModule('flash');

// A small problem with known-good shapes, reused by many tests.
const problem = (shape = {}) => qkvProblem(core, { B: 1, H: 2, Hkv: 1, L: 5, S: 7, D: 4, Dv: 3, seed: 11, ...shape });

// Every name a module binds (its folder's bind_*.cpp plus wasm/common/) must be declared in that
// module's .d.ts files (its folder plus wasm/common/) and exist on the module at run time.
async function sources(folder, pattern) {
  const dir = new URL(`../../wasm/${folder}/`, import.meta.url);
  const files = (await readdir(dir)).filter((f) => pattern.test(f));
  return Promise.all(files.map((f) => readFile(new URL(f, dir), 'utf8')));
}

for (const name of MODULES) {
  test(`${name} module: every bound name is declared and exists at run time`, async () => {
    const module = name === 'flash' ? core : await loadModule(name);
    const dts = [...await sources(name, /\.d\.ts$/), ...await sources('common', /\.d\.ts$/)].join('\n');
    const bound = [], topLevel = [];
    for (const src of [...await sources(name, /^bind_.*\.cpp$/), ...await sources('common', /^bind_.*\.cpp$/)]) {
      for (const m of src.matchAll(/(?:function|class_<[^>]+>|property)\("(\w+)"/g)) bound.push(m[1]);
      for (const m of src.matchAll(/(?:emscripten::function|class_<[^>]+>)\("(\w+)"/g)) topLevel.push(m[1]);
    }
    assert.ok(topLevel.includes('randomNormal'), 'the common bindings are missing');
    for (const n of bound) assert.match(dts, new RegExp(`\\b${n}\\b`), `${n} missing from wasm/${name}/*.d.ts`);
    for (const n of topLevel) assert.equal(typeof module[n], 'function', `${n} absent from the ${name} module`);
  });
}

test('sdpa: hand-computed example, probabilities and lse', () => {
  // scores [0, ln 3] -> probabilities [1/4, 3/4] -> output 1/4*4 + 3/4*8 = 7, lse = ln 4
  const r = core.sdpa({ q: [1], qShape: [1, 1, 1, 1], k: [0, Math.log(3)], kShape: [1, 1, 2, 1],
    v: [4, 8], vShape: [1, 1, 2, 1], scale: 1, returnProbs: true });
  assert.ok(Math.abs(r.output[0] - 7) < 1e-5);
  assert.ok(Math.abs(r.lse[0] - Math.log(4)) < 1e-6);
  assert.ok(Math.abs(r.probs[0] - 0.25) < 1e-7 && Math.abs(r.probs[1] - 0.75) < 1e-7);
  assert.deepEqual(r.outputShape, [1, 1, 1, 1]);
});

test('sdpa: causal alignments, masks and GQA', () => {
  const p = problem({ H: 4, Hkv: 2, L: 9, S: 4 });
  const br = core.sdpa({ ...p, causal: 'bottom_right' });
  // L = 9 > S = 4: under bottom-right alignment rows 0..4 see no key -> zeros and -inf
  for (let i = 0; i < 5; i++) assert.equal(br.lse[i], -Infinity);
  assert.ok(Number.isFinite(br.lse[5]));
  assert.ok(br.output.every(Number.isFinite));

  const allowed = new Uint8Array(9 * 4).map((_, n) => ((n % 4) <= Math.floor(n / 4) - 5 ? 1 : 0));
  const masked = core.sdpa({ ...p, mask: { kind: 'boolean', shape: [1, 1, 9, 4], data: allowed } });
  assert.ok(maxAbsDiff(masked.output, br.output) < 1e-6);
  const additive = core.sdpa({ ...p, mask: { kind: 'additive', shape: [1, 1, 9, 4],
    data: Float32Array.from(allowed, (a) => (a ? 0 : -Infinity)) } });
  assert.ok(maxAbsDiff(additive.output, br.output) < 1e-6);
  assert.deepEqual(br.outputShape, [1, 4, 9, 3]);
});

test('sdpa: dropout is reproducible from its seed', () => {
  const p = problem();
  const a = core.sdpa({ ...p, dropoutP: 0.5, dropoutSeed: 7 });
  const b = core.sdpa({ ...p, dropoutP: 0.5, dropoutSeed: 7 });
  const c = core.sdpa({ ...p, dropoutP: 0.5, dropoutSeed: 8 });
  assert.deepEqual(a.output, b.output);
  assert.notDeepEqual(a.output, c.output);
});

test('flashForwardTrace: output equals sdpa; steps follow the FlashAttention-2 loop', () => {
  for (const causal of ['none', 'top_left', 'bottom_right']) {
    const p = problem({ H: 2, Hkv: 1, L: 13, S: 21, D: 8, Dv: 5 });
    const ref = core.sdpa({ ...p, causal });
    const r = core.flashForwardTrace({ ...p, causal, blockQ: 4, blockK: 6, traceHead: 1 });
    assert.ok(maxAbsDiff(r.output, ref.output) < 2e-6, causal);
    assert.equal(r.numQBlocks, 4);
    assert.equal(r.numKBlocks, 4);
    assert.equal(r.steps.length, 4 * (4 + 2));
    assert.equal(r.steps[0].kind, 'load_q');
    assert.equal(r.steps.at(-1).kind, 'write_o');
    const tiles = r.steps.filter((s) => s.kind === 'tile').length;
    const skips = r.steps.filter((s) => s.kind === 'skip').length;
    assert.equal(tiles + skips, 16);
    assert.equal(r.stats.tilesComputed, 2 * tiles);  // two heads, same causal pattern
    if (causal === 'none') assert.equal(skips, 0); else assert.ok(skips > 0);
    // The last step of each query block holds the final output of its rows (head 1).
    const last = r.steps.at(-1);
    const rows = last.rowEnd - last.rowBegin;
    const head1 = r.output.subarray(13 * 5 + last.rowBegin * 5, 13 * 5 + last.rowEnd * 5);
    assert.deepEqual(Array.from(last.output), Array.from(head1));
    assert.equal(last.m.length, rows);
  }
});

test('flashForwardTrace: counters grow monotonically; a tile shows its scores', () => {
  const p = problem({ H: 1, L: 1, S: 8, D: 4, Dv: 2 });
  const r = core.flashForwardTrace({ ...p, blockQ: 1, blockK: 4, elementBytes: 2 });
  assert.deepEqual(r.steps.map((s) => s.kind), ['load_q', 'tile', 'tile', 'write_o']);
  const [load, t1, t2, done] = r.steps;
  assert.equal(load.hbmBytesRead, 4 * 2);                 // q row, fp16
  assert.equal(t1.hbmBytesRead, 4 * 2 + 4 * (4 + 2) * 2);  // + K and V tile
  assert.equal(t2.scores.length, 4);
  assert.equal(done.hbmBytesWritten, 2 * 2 + 4);          // O row fp16 + lse fp32
  assert.equal(t1.rescale[0], 0);                         // nothing to rescale before the first tile
  const m1 = Math.max(...t1.scores), m2 = Math.max(m1, ...t2.scores);
  assert.ok(Math.abs(t2.m[0] - m2) < 1e-6);
  assert.ok(Math.abs(t2.rescale[0] - Math.exp(m1 - m2)) < 1e-6);
});

test('OnlineSoftmax: two tiles, merged in either order, equal sdpa', () => {
  const p = problem({ H: 1, L: 1, S: 8, D: 4, Dv: 2 });
  const ref = core.sdpa({ ...p, returnProbs: true });
  const scores = core.flashForwardTrace({ ...p, blockQ: 1, blockK: 8 }).steps[1].scores;
  const a = new core.OnlineSoftmax(2), b = new core.OnlineSoftmax(2);
  try {
    a.update(scores.subarray(0, 4), p.v.subarray(0, 8));
    b.update(scores.subarray(4, 8), p.v.subarray(8, 16));
    b.merge(a);
    const out = b.finalize();
    assert.ok(maxAbsDiff(out.output, ref.output) < 1e-6);
    assert.ok(Math.abs(out.lse - ref.lse[0]) < 1e-5);
    assert.equal(b.valueDim, 2);
    assert.ok(b.m >= a.m);
    assert.equal(b.acc().length, 2);
  } finally {
    a.delete();
    b.delete();
  }
});

test('randomNormal: seeded and roughly standard normal', () => {
  const a = core.randomNormal([1, 1, 100, 100], 5, 1), b = core.randomNormal([1, 1, 100, 100], 5, 1);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, core.randomNormal([1, 1, 100, 100], 6, 1));
  const mean = a.reduce((s, x) => s + x, 0) / a.length;
  const variance = a.reduce((s, x) => s + (x - mean) ** 2, 0) / a.length;
  assert.ok(Math.abs(mean) < 0.05 && Math.abs(variance - 1) < 0.05, `mean ${mean}, variance ${variance}`);
});

// Each bad call must throw an Error naming the problem, and the module must answer correctly after.
const bad = [
  ['wrong data length', () => core.sdpa({ ...problem(), qShape: [1, 2, 5, 3] }), /q: has 40 elements but qShape/],
  ['zero size', () => core.sdpa({ ...problem(), qShape: [1, 2, 0, 4] }), /qShape: dimension 2 must be an integer in \[1,/],
  ['negative size', () => core.flashForwardTrace({ ...problem(), kShape: [1, -1, 7, 4] }), /kShape: dimension 1/],
  ['shape not an array', () => core.sdpa({ ...problem(), vShape: 5 }), /vShape: must be an array/],
  ['mismatched heads', () => core.sdpa(problem({ H: 3, Hkv: 2 })), /head count \(2\) must divide the query's head count \(3\)/],
  ['mismatched head_dim', () => core.sdpa({ ...problem(), k: new Float32Array(7 * 5), kShape: [1, 1, 7, 5] }), /key: head_dim/],
  ['mask of the wrong size', () => core.sdpa({ ...problem(), mask: { kind: 'boolean', shape: [1, 1, 5, 6], data: new Uint8Array(30) } }), /attn_mask: shape \[1, 1, 5, 6\] does not broadcast/],
  ['mask data length', () => core.sdpa({ ...problem(), mask: { kind: 'boolean', shape: [1, 1, 5, 7], data: new Uint8Array(3) } }), /mask.data: has 3 entries, expected 35/],
  ['mask kind', () => core.sdpa({ ...problem(), mask: { kind: 'soft', shape: [1, 1, 5, 7], data: new Uint8Array(35) } }), /mask.kind/],
  ['mask with causal', () => core.sdpa({ ...problem(), causal: 'top_left', mask: { kind: 'boolean', shape: [1, 1, 5, 7], data: new Uint8Array(35) } }), /cannot be combined/],
  ['NaN scale', () => core.sdpa({ ...problem(), scale: NaN }), /scale: must be a finite number/],
  ['NaN scale (trace)', () => core.flashForwardTrace({ ...problem(), scale: NaN }), /scale: must be a finite number/],
  ['NaN input', () => core.sdpa({ ...problem(), q: new Float32Array(40).fill(NaN) }), /query: element 0 is not finite/],
  ['causal name', () => core.sdpa({ ...problem(), causal: 'upper' }), /causal: must be 'none', 'top_left' or 'bottom_right'/],
  ['dropout range', () => core.sdpa({ ...problem(), dropoutP: 1 }), /dropoutP: must be a number in \[0,/],
  ['too large for the browser', () => core.sdpa({ q: new Float32Array(1), qShape: [1, 1, 2048, 1024], k: new Float32Array(1), kShape: [1, 1, 1, 1], v: new Float32Array(1), vShape: [1, 1, 1, 1] }), /exceed the in-browser limit/],
  ['scores too large for sdpa', () => core.sdpa({ q: new Float32Array(4096), qShape: [1, 1, 4096, 1], k: new Float32Array(4096), kShape: [1, 1, 4096, 1], v: new Float32Array(4096), vShape: [1, 1, 4096, 1] }), /batch \* heads \* L \* S = 16777216 exceeds/],
  ['trace too long', () => core.flashForwardTrace({ q: new Float32Array(2000), qShape: [1, 1, 2000, 1], k: new Float32Array(2), kShape: [1, 1, 2, 1], v: new Float32Array(2), vShape: [1, 1, 2, 1] }), /traced run allows sequence lengths up to 1024/],
  ['block size', () => core.flashForwardTrace({ ...problem(), blockQ: 0 }), /blockQ: must be an integer in \[1, 1024\], got 0/],
  ['block size not an integer', () => core.flashForwardTrace({ ...problem(), blockK: 2.5 }), /blockK: must be an integer/],
  ['too many trace steps', () => core.flashForwardTrace({ q: new Float32Array(1024), qShape: [1, 1, 1024, 1], k: new Float32Array(1024), kShape: [1, 1, 1024, 1], v: new Float32Array(1024), vShape: [1, 1, 1024, 1], blockQ: 8, blockK: 8 }), /16384 tiles exceed the in-browser trace limit/],
  ['traced head', () => core.flashForwardTrace({ ...problem(), traceHead: 2 }), /traceHead: must be an integer in \[0, 1\]/],
  ['element bytes', () => core.flashForwardTrace({ ...problem(), elementBytes: 3 }), /element_bytes: must be 1, 2, 4 or 8/],
  ['missing argument object', () => core.sdpa(undefined), /missing/],
  ['randomNormal stddev', () => core.randomNormal([1, 1, 2, 2], 1, NaN), /stddev/],
  ['randomNormal seed', () => core.randomNormal([1, 1, 2, 2], -1, 1), /seed: must be an integer/],
  ['randomNormal size', () => core.randomNormal([1024, 1024, 2, 1], 1, 1), /exceed the in-browser limit/],
  ['OnlineSoftmax valueDim', () => new core.OnlineSoftmax(0), /valueDim: must be an integer in \[1, 4096\]/],
  ['OnlineSoftmax values length', () => { const s = new core.OnlineSoftmax(2); try { s.update([1, 2], [1, 2, 3]); } finally { s.delete(); } }, /values: expected scores.length \* valueDim = 4/],
  ['OnlineSoftmax NaN score', () => { const s = new core.OnlineSoftmax(1); try { s.update([NaN], [1]); } finally { s.delete(); } }, /scores: entry 0 is NaN/],
  ['OnlineSoftmax merge width', () => { const a = new core.OnlineSoftmax(1), b = new core.OnlineSoftmax(2); try { a.merge(b); } finally { a.delete(); b.delete(); } }, /other: valueDim must match/],
];

test('bad arguments throw Errors naming the problem, and the module keeps answering correctly', () => {
  const before = core.sdpa(problem());
  for (const [what, call, message] of bad) {
    assert.throws(call, (e) => e instanceof Error && message.test(e.message), what);
    const after = core.sdpa(problem());
    assert.deepEqual(after.output, before.output, `wrong answer after: ${what}`);
  }
});

test('failed calls free what they allocated (wasm memory stays the same size)', () => {
  // Each call copies 12 MB of inputs into wasm memory (within the work cap: 32 * 32 * 65536 =
  // 2^26) and then fails on blockQ; if the error skipped C++ destructors, 20 calls would grow the
  // heap by 240 MB.
  const big = new Float32Array(1 << 20);
  const shape = [1, 1, 32, 32768];
  const input = { q: big, qShape: shape, k: big, kShape: shape, v: big, vShape: shape, blockQ: 0 };
  const call = () => assert.throws(() => core.flashForwardTrace(input), /blockQ/);
  call();
  const heap = core.HEAP8.length;
  for (let i = 0; i < 20; i++) call();
  assert.equal(core.HEAP8.length, heap);
});
