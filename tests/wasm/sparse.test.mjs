// Node tests of the sparse-pattern and complexity API (wasm/classic/bind_sparse.cpp,
// wasm/classic/sparse.d.ts): every bound function with good and bad arguments, the analytic
// counts checked against the bound masks, and the time of patternStats / patternDensityImage at
// N = 8192 measured and printed (reported, not asserted: the machine is shared).
// Run: node --test tests/wasm/sparse.test.mjs   (needs static/wasm/attn_classic.* built)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { loadModule } from './load.mjs';

const core = await loadModule('classic');

const PATTERNS = (n) => {
  const root = Math.ceil(Math.sqrt(n));
  return [
    { kind: 'dense' },
    { kind: 'causal' },
    { kind: 'strided', stride: root },
    { kind: 'fixed', stride: root, summary: Math.min(2, root) },
    { kind: 'longformer', oneSidedWindow: 8, global: 2 },
    { kind: 'longformer', oneSidedWindow: 4, global: 1, dilation: 3 },
    { kind: 'bigbird', block: 8, oneSidedWindow: 1, global: 1, randomBlocks: 2, seed: 7 },
  ];
};

function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.patternStats({ pattern: { kind: 'causal' }, seqLen: 4 }).entries, 10);
}

function rowOf(mask, n, i) {
  const out = [];
  for (let j = 0; j < n; j++) if (mask[i * n + j]) out.push(j);
  return out;
}

// Wall-clock median and p95 per call (performance.now()), and the process's mean CPU time per
// call (process.cpuUsage()), which a loaded machine inflates less than wall-clock time.
function timeCalls(call, repeats) {
  call();  // warm-up
  const times = [];
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    call();
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { median: at(0.5), p95: at(0.95), cpu: (cpu.user + cpu.system) / 1000 / repeats };
}

test('patternMask follows the papers\' definitions', () => {
  const strided = core.patternMask({ pattern: { kind: 'strided', stride: 3 }, seqLen: 10 });
  assert.ok(strided instanceof Uint8Array);
  assert.deepEqual(rowOf(strided, 10, 9), [0, 3, 6, 7, 8, 9]);
  const fixed = core.patternMask({ pattern: { kind: 'fixed', stride: 4, summary: 1 }, seqLen: 12 });
  assert.deepEqual(rowOf(fixed, 12, 9), [3, 7, 8, 9]);
  const lf = core.patternMask({ pattern: { kind: 'longformer', oneSidedWindow: 1, global: 1, dilation: 2 }, seqLen: 9 });
  assert.deepEqual(rowOf(lf, 9, 5), [0, 3, 5, 7]);
  assert.equal(rowOf(lf, 9, 0).length, 9);
});

test('patternStats equals the counted mask cells, odd N included', () => {
  for (const n of [1, 3, 17, 113, 127, 129, 300]) {
    for (const pattern of PATTERNS(n)) {
      const mask = core.patternMask({ pattern, seqLen: n });
      const counted = mask.reduce((a, b) => a + b, 0);
      const s = core.patternStats({ pattern, seqLen: n, headDim: 32, valueDim: 16, bytesPerScore: 2 });
      assert.equal(s.entries, counted, `${JSON.stringify(pattern)} N=${n}`);
      assert.equal(s.flops, counted * (2 * 32 + 2 * 16 + 2));
      assert.equal(s.scoreBytes, 2 * counted);
      assert.ok(Math.abs(s.density - counted / (n * n)) < 1e-15);
    }
  }
});

test('patternDensityImage equals the down-sampled mask and sums to the entries at N = 8192', () => {
  const n = 129, pixels = 10;
  for (const pattern of PATTERNS(n)) {
    const mask = core.patternMask({ pattern, seqLen: n });
    const img = core.patternDensityImage({ pattern, seqLen: n, pixels });
    assert.equal(img.pixels, pixels);
    assert.equal(img.edges.length, pixels + 1);
    for (let p = 0; p < pixels; p++) {
      for (let c = 0; c < pixels; c++) {
        let count = 0;
        for (let i = img.edges[p]; i < img.edges[p + 1]; i++) {
          for (let j = img.edges[c]; j < img.edges[c + 1]; j++) count += mask[i * n + j];
        }
        assert.equal(img.allowed[p * pixels + c], count);
        const cells = (img.edges[p + 1] - img.edges[p]) * (img.edges[c + 1] - img.edges[c]);
        assert.ok(Math.abs(img.fraction[p * pixels + c] - count / cells) < 1e-6);
      }
    }
  }
  for (const pattern of PATTERNS(8192)) {
    const img = core.patternDensityImage({ pattern, seqLen: 8192, pixels: 256 });
    const sum = img.allowed.reduce((a, b) => a + b, 0);
    assert.equal(sum, core.patternStats({ pattern, seqLen: 8192 }).entries, JSON.stringify(pattern));
  }
});

test('timing at N = 8192: patternStats and patternDensityImage (reported, not asserted)', (t) => {
  for (const pattern of PATTERNS(8192).slice(2)) {
    const stats = timeCalls(() => core.patternStats({ pattern, seqLen: 8192 }), 200);
    const img256 = timeCalls(() => core.patternDensityImage({ pattern, seqLen: 8192, pixels: 256 }), 40);
    const img512 = timeCalls(() => core.patternDensityImage({ pattern, seqLen: 8192, pixels: 512 }), 20);
    const f = (x) => x.toFixed(3);
    const show = (x) => `median ${f(x.median)} ms, p95 ${f(x.p95)} ms, cpu ${f(x.cpu)} ms`;
    t.diagnostic(`${pattern.kind}${pattern.dilation ? ' dilated' : ''}: patternStats ${show(stats)}; ` +
      `density image 256 px ${show(img256)}; 512 px ${show(img512)}`);
  }
});

test('sparseAttention: covering patterns match dense attention, sparse ones report error and cost', () => {
  const n = 33, shape = [1, 2, n, 8];
  const input = {
    q: core.randomNormal(shape, 1, 1), qShape: shape,
    k: core.randomNormal(shape, 2, 1), kShape: shape,
    v: core.randomNormal(shape, 3, 1), vShape: shape,
  };
  const dense = core.sparseAttention({ ...input, pattern: { kind: 'dense' } });
  assert.deepEqual(dense.outputShape, shape);
  assert.ok(dense.error.relativeFrobenius < 1e-6);
  assert.equal(dense.cost.scoreEntries, 2 * n * n);
  const strided = core.sparseAttention({ ...input, pattern: { kind: 'strided', stride: 6 } });
  assert.ok(strided.error.relativeFrobenius > 1e-3);
  const entries = core.patternStats({ pattern: { kind: 'strided', stride: 6 }, seqLen: n }).entries;
  assert.equal(strided.cost.scoreEntries, 2 * entries);
  assert.equal(strided.cost.peakBytes, 2 * entries * 8);
  const covering = core.sparseAttention({ ...input, pattern: { kind: 'strided', stride: n } });
  assert.ok(covering.error.relativeFrobenius < 1e-6);  // compared with causal dense attention
  throwsThenRecovers(() => core.sparseAttention({ ...input, kShape: [1, 2, n - 1, 8],
    k: core.randomNormal([1, 2, n - 1, 8], 2, 1), pattern: { kind: 'dense' } }), /key: sparse patterns are self-attention/);
});

test('complexityCurves and complexityPoint: six methods up to a million tokens', () => {
  const curves = core.complexityCurves({ nMin: 256, nMax: 1000000, points: 40 });
  assert.deepEqual(curves.map((c) => c.method), ['dense', 'sparse', 'lsh', 'linformer', 'performer', 'flash']);
  assert.deepEqual(curves.map((c) => c.bigO), ['N^2', 'N sqrt N', 'N log N', 'N', 'N', 'N^2 FLOPs, N memory']);
  for (const c of curves) {
    assert.equal(c.seqLen[0], 256);
    assert.equal(c.seqLen[c.seqLen.length - 1], 1000000);
    for (let s = 1; s < c.seqLen.length; s++) assert.ok(c.flops[s] > c.flops[s - 1]);
  }
  assert.equal(curves[0].peakBytes[curves[0].peakBytes.length - 1], 2e12);  // 10^12 scores at FP16
  const dense2k = core.complexityPoint({ method: 'dense', seqLen: 2048 });
  assert.equal(dense2k.peakBytes, 8 * 1024 * 1024);
  assert.equal(dense2k.scoreEntries, 2048 * 2048);
  const lsh = core.complexityPoint({ method: 'lsh', seqLen: 1024, lshRounds: 2 });
  assert.equal(lsh.sortComparisons, 2 * 1024 * 10);
  throwsThenRecovers(() => core.complexityPoint({ method: 'window', seqLen: 10 }), /method: must be 'dense', .* or 'flash'/);
  throwsThenRecovers(() => core.complexityCurves({ lshBuckets: 3 }), /lsh_buckets: must be 1 or an even number/);
  throwsThenRecovers(() => core.complexityCurves({ nMin: 10, nMax: 5 }), /nMin: must be an integer in \[1, 5\]/);
});

test('flash: dense attention\'s FLOPs and scores, memory of the row statistics and one tile', () => {
  for (const seqLen of [1, 17, 64, 1000, 1000000]) {
    const flash = core.complexityPoint({ method: 'flash', seqLen, headDim: 96, valueDim: 80 });
    const dense = core.complexityPoint({ method: 'dense', seqLen, headDim: 96, valueDim: 80 });
    assert.equal(flash.flops, dense.flops);
    assert.equal(flash.scoreEntries, dense.scoreEntries);
    const side = Math.min(seqLen, 64);
    assert.equal(flash.peakBytes, (2 * seqLen + side * side) * 2, `N = ${seqLen}`);
  }
  const tiles = core.complexityPoint({ method: 'flash', seqLen: 4096, flashBlockQ: 128, flashBlockK: 32, bytesPerElement: 4 });
  assert.equal(tiles.peakBytes, (2 * 4096 + 128 * 32) * 4);
  const curve = core.complexityCurves({ nMin: 1000, nMax: 1000000, points: 4 }).find((c) => c.method === 'flash');
  assert.deepEqual([...curve.seqLen], [1000, 10000, 100000, 1000000]);
  assert.deepEqual([...curve.peakBytes], [1000, 10000, 100000, 1000000].map((n) => (2 * n + 4096) * 2));
  throwsThenRecovers(() => core.complexityPoint({ method: 'flash', seqLen: 10, flashBlockQ: 0 }), /flashBlockQ: must be an integer in \[1, 4096\]/);
  throwsThenRecovers(() => core.complexityCurves({ flashBlockK: 4097 }), /flashBlockK: must be an integer in \[1, 4096\]/);
});

test('memoryReference: one A100 80GB from the GPU presets, with its datasheet', () => {
  const ref = core.memoryReference();
  assert.equal(ref.label, '80 GB: one A100');
  assert.equal(ref.bytes, 80e9);
  assert.match(ref.source, /A100 Tensor Core GPU datasheet/);
});

// The attended pairs of lshAttention on the same seeded queries, rebuilt from its buckets.
function lshReferenceMask(run, n) {
  const rounds = run.buckets.length / n, m = run.chunkLength;
  const mask = new Uint8Array(n * n);
  for (let r = 0; r < rounds; r++) {
    const b = run.buckets.subarray(r * n, (r + 1) * n);
    const order = [...Array(n).keys()].sort((x, y) => b[x] - b[y] || x - y);
    const chunk = new Array(n);
    order.forEach((pos, s) => { chunk[pos] = Math.floor(s / m); });
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (i !== j && b[i] === b[j] && (chunk[j] === chunk[i] || chunk[j] + 1 === chunk[i])) mask[i * n + j] = 1;
      }
    }
  }
  for (let i = 0; i < n; i++) if (!mask.subarray(i * n, (i + 1) * n).some((x) => x)) mask[i * n + i] = 1;
  return mask;
}

test('lshPattern counts the pairs lshAttention attends on the same seeded queries', () => {
  for (const [n, headDim, numBuckets, numRounds, chunkLength, seed] of [[37, 6, 4, 2, 8, 3], [129, 16, 8, 1, 16, 11], [64, 4, 2, 3, 64, 0]]) {
    const shape = [1, 1, n, headDim];
    const q = core.randomNormal(shape, seed, 1);  // the vectors lshPattern draws from `seed`
    const run = core.lshAttention({ q, qShape: shape, k: q, kShape: shape, v: q, vShape: shape, numBuckets, numRounds, chunkLength, seed });
    const mask = lshReferenceMask(run, n);
    const full = core.lshPattern({ seqLen: n, headDim, numBuckets, numRounds, chunkLength, seed, pixels: n });
    assert.deepEqual([...full.allowed], [...mask], `N = ${n}`);
    assert.equal(full.attendedPairs, mask.reduce((a, b) => a + b, 0));
    assert.equal(full.cost.scoreEntries, run.cost.scoreEntries);
    assert.equal(full.chunkLength, run.chunkLength);
  }
  const big = core.lshPattern({ seqLen: 8192, pixels: 256, numBuckets: 8 });
  assert.equal(big.allowed.reduce((a, b) => a + b, 0), big.attendedPairs);
  assert.equal(big.cost.scoreEntries, core.complexityPoint({ method: 'lsh', seqLen: 8192, lshBuckets: 8, lshRounds: 1, lshChunk: 64 }).scoreEntries);
  throwsThenRecovers(() => core.lshPattern({ seqLen: 16, pixels: 17 }), /pixels: must be in \[1, min\(seq_len, 2048\)\] = \[1, 16\], got 17/);
  throwsThenRecovers(() => core.lshPattern({ seqLen: 70000, pixels: 8 }), /seqLen: must be an integer in \[1, 65536\]/);
  throwsThenRecovers(() => core.lshPattern({ seqLen: 65536, pixels: 8, numBuckets: 4096, headDim: 16 }), /numRounds\/numBuckets\/chunkLength: .* exceeds the in-browser limit/);
  throwsThenRecovers(() => core.lshPattern({ seqLen: 65536, pixels: 8, headDim: 64 }), /seqLen\/headDim: seqLen \* headDim = 4194304 query values exceed the in-browser limit of 2097152/);
  throwsThenRecovers(() => core.lshPattern({ seqLen: 64, pixels: 8, numBuckets: 5 }), /num_buckets: must be 1 or an even number/);
  throwsThenRecovers(() => core.lshPattern(null), /seqLen: missing/);
  throwsThenRecovers(() => core.lshPattern({ pixels: 4 }), /seqLen: missing/);
  throwsThenRecovers(() => core.lshPattern({ seqLen: 64 }), /pixels: missing/);
});

test('lshPattern keeps its longest draw: a shorter N after a longer one, or another seed, hashes the queries a fresh draw gives', () => {
  const args = (seqLen, seed, headDim = 8) => ({ seqLen, headDim, numBuckets: 4, numRounds: 2, chunkLength: 8, seed, pixels: seqLen });
  const reference = (n, seed, headDim = 8) => {
    const shape = [1, 1, n, headDim], q = core.randomNormal(shape, seed, 1);
    return lshReferenceMask(core.lshAttention({ q, qShape: shape, k: q, kShape: shape, v: q, vShape: shape, ...args(n, seed, headDim) }), n);
  };
  const first = core.lshPattern(args(101, 21));  // drawn
  core.lshPattern(args(333, 21));                 // a longer draw replaces it
  const prefix = core.lshPattern(args(101, 21));  // a prefix of the 333 kept
  assert.deepEqual([...prefix.allowed], [...first.allowed]);
  assert.deepEqual([...prefix.allowed], [...reference(101, 21)]);
  assert.deepEqual([...core.lshPattern(args(101, 22)).allowed], [...reference(101, 22)]);       // another seed
  assert.deepEqual([...core.lshPattern(args(57, 22, 6)).allowed], [...reference(57, 22, 6)]);  // another width
});

test('timing at N = 8192: lshPattern at 256 px (reported, not asserted)', (t) => {
  for (const numBuckets of [8, 64]) {
    const x = timeCalls(() => core.lshPattern({ seqLen: 8192, pixels: 256, numBuckets }), 10);
    t.diagnostic(`lshPattern ${numBuckets} buckets: median ${x.median.toFixed(3)} ms, p95 ${x.p95.toFixed(3)} ms, cpu ${x.cpu.toFixed(3)} ms`);
  }
});

test('timelineMarkers: corrected years and context lengths, each with a source', () => {
  const markers = core.timelineMarkers();
  assert.deepEqual(markers.map((m) => [m.model, m.year, m.contextTokens]),
    [['GPT-2', 2019, 1024], ['Longformer', 2020, 4096], ['Gemini 1.5 Pro', 2024, 1000000]]);
  for (const m of markers) assert.ok(m.source.length > 20);
});

test('bad arguments throw named errors and the module keeps working', () => {
  throwsThenRecovers(() => core.patternStats({ pattern: { kind: 'star' }, seqLen: 4 }), /pattern.kind: must be 'dense'/);
  throwsThenRecovers(() => core.patternStats({ pattern: { kind: 'strided' }, seqLen: 4 }), /stride: must be in \[1, /);
  throwsThenRecovers(() => core.patternStats({ seqLen: 4 }), /pattern: must be an object/);
  throwsThenRecovers(() => core.patternStats({ pattern: { kind: 'dense' } }), /seqLen: missing/);
  throwsThenRecovers(() => core.patternMask({ pattern: { kind: 'dense' }, seqLen: 2000 }), /seqLen: must be an integer in \[1, 1024\]/);
  throwsThenRecovers(() => core.patternDensityImage({ pattern: { kind: 'dense' }, seqLen: 8, pixels: 9 }),
    /pixels: must be in \[1, min\(seq_len, 2048\)\] = \[1, 8\], got 9/);
  throwsThenRecovers(() => core.patternStats({ pattern: { kind: 'bigbird', block: 4, randomBlocks: 65 }, seqLen: 64 }),
    /randomBlocks: must be an integer in \[0, 64\]/);
  throwsThenRecovers(() => core.patternStats({ pattern: { kind: 'fixed', stride: 4, summary: 5 }, seqLen: 64 }),
    /summary: must be in \[1, 4\], got 5/);
});
