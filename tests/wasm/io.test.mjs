// Node tests of the IO-aware attention API (wasm/flash/bind_io.cpp, io.d.ts) and of flashForwardTrace's
// loop-order and SRAM options: results against the core's semantics, bad arguments, and the
// in-browser speed of the traces. Run: node --test tests/wasm/   (needs static/wasm/ built)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxAbsDiff, qkvProblem } from './fixtures.mjs';
import { loadModule } from './load.mjs';

const core = await loadModule('flash');

const problem = (shape = {}) => qkvProblem(core, { B: 1, H: 2, Hkv: 1, L: 9, S: 13, D: 8, Dv: 5, seed: 21, ...shape });

// Every step's transfers add up to its counter increments; returns the final counters.
function checkTransfers(steps) {
  let read = 0, written = 0;
  for (const s of steps) {
    for (const t of s.transfers) {
      assert.ok(t.direction === 'read' || t.direction === 'write');
      if (t.direction === 'read') read += t.bytes; else written += t.bytes;
    }
    assert.equal(s.hbmBytesRead, read, s.kind);
    assert.equal(s.hbmBytesWritten, written, s.kind);
  }
  return { read, written };
}

// Dense backward in double: P = softmax(scale Q K^T) (no mask), dV = P^T dO, dP = dO V^T,
// dS = P o (dP - rowsum(P o dP)), dQ = scale dS K, dK = scale dS^T Q. One batch, GQA by h / group.
function denseBackward(p, dO) {
  const [, H, L, D] = p.qShape, [, Hkv, S] = p.kShape, Dv = p.vShape[3], group = H / Hkv, scale = 1 / Math.sqrt(D);
  const dQ = new Float64Array(H * L * D), dK = new Float64Array(Hkv * S * D), dV = new Float64Array(Hkv * S * Dv);
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / group);
    for (let i = 0; i < L; i++) {
      const s = [];
      for (let j = 0; j < S; j++) {
        let dot = 0;
        for (let c = 0; c < D; c++) dot += p.q[(h * L + i) * D + c] * p.k[(g * S + j) * D + c];
        s.push(scale * dot);
      }
      const mx = Math.max(...s), e = s.map((x) => Math.exp(x - mx)), sum = e.reduce((a, b) => a + b, 0);
      const P = e.map((x) => x / sum);
      const dP = [];
      for (let j = 0; j < S; j++) {
        let dot = 0;
        for (let c = 0; c < Dv; c++) dot += dO[(h * L + i) * Dv + c] * p.v[(g * S + j) * Dv + c];
        dP.push(dot);
      }
      const delta = P.reduce((a, x, j) => a + x * dP[j], 0);
      for (let j = 0; j < S; j++) {
        const dS = P[j] * (dP[j] - delta);
        for (let c = 0; c < Dv; c++) dV[(g * S + j) * Dv + c] += P[j] * dO[(h * L + i) * Dv + c];
        for (let c = 0; c < D; c++) {
          dQ[(h * L + i) * D + c] += scale * dS * p.k[(g * S + j) * D + c];
          dK[(g * S + j) * D + c] += scale * dS * p.q[(h * L + i) * D + c];
        }
      }
    }
  }
  return { dQ, dK, dV };
}

test('flashForwardTrace, loopOrder fa1: same output as sdpa and fa2; K/V outer, O re-read and re-written', () => {
  for (const causal of ['none', 'top_left', 'bottom_right']) {
    const p = problem({ H: 2, L: 13, S: 21 });
    const ref = core.sdpa({ ...p, causal });
    const fa2 = core.flashForwardTrace({ ...p, causal, blockQ: 4, blockK: 6 });
    const fa1 = core.flashForwardTrace({ ...p, causal, blockQ: 4, blockK: 6, loopOrder: 'fa1', elementBytes: 2 });
    assert.ok(maxAbsDiff(fa1.output, ref.output) < 2e-6, causal);
    assert.ok(maxAbsDiff(fa1.lse, ref.lse) < 2e-6, causal);
    assert.equal(fa1.stats.tilesComputed, fa2.stats.tilesComputed);
    assert.equal(fa1.stats.flops, fa2.stats.flops);
    assert.equal(fa1.steps[0].kind, 'init_o');
    assert.equal(fa1.steps[1].kind, 'load_kv');
    assert.deepEqual(fa1.steps[1].transfers.map((t) => t.matrix), ['K', 'V']);
    const tile = fa1.steps.find((s) => s.kind === 'tile');
    assert.deepEqual(tile.transfers.map((t) => `${t.direction} ${t.matrix}`),
      ['read Q', 'read O', 'read l', 'read m', 'write O', 'write l', 'write m']);
    const { read, written } = checkTransfers(fa1.steps);
    // FA1 Algorithm 1 per head (L = 13, D = 8, Dv = 5, fp16, fp32 m and l): O, l, m initialised;
    // each needed K/V block read once; Q, O, l, m read and O, l, m written per computed tile.
    const rowsComputed = fa1.steps.filter((s) => s.kind === 'tile').reduce((n, s) => n + s.rowEnd - s.rowBegin, 0);
    const kvCols = fa1.steps.filter((s) => s.kind === 'load_kv').reduce((n, s) => n + s.colEnd - s.colBegin, 0);
    assert.equal(read, kvCols * 13 * 2 + rowsComputed * (13 * 2 + 8));
    assert.equal(written, 13 * (5 * 2 + 8) + rowsComputed * (5 * 2 + 8));
    assert.equal(fa1.stats.hbmBytesRead, 2 * read);  // two heads, same pattern
    if (causal === 'none') assert.equal(kvCols, 21);
  }
  // The FA2 steps list their transfers too.
  const fa2 = core.flashForwardTrace({ ...problem(), blockQ: 4, blockK: 6 });
  const { read } = checkTransfers(fa2.steps);
  assert.equal(fa2.stats.hbmBytesRead, 2 * read);
  assert.deepEqual(fa2.steps[0].transfers.map((t) => t.matrix), ['Q']);
  assert.equal(fa2.blockQ, 4);
});

test('flashForwardTrace, sramElements: blocks follow Bc = ceil(M / 4d), Br = min(Bc, d)', () => {
  const p = problem({ L: 30, S: 40, D: 8, Dv: 12 });
  // d = max(8, 12) = 12; M = 200 -> Bc = ceil(200 / 48) = 5, Br = min(5, 12) = 5.
  const r = core.flashForwardTrace({ ...p, sramElements: 200, blockQ: 1 });
  assert.equal(r.blockK, 5);
  assert.equal(r.blockQ, 5);
  assert.equal(r.numQBlocks, 6);
  assert.equal(r.numKBlocks, 8);
  const big = core.flashForwardTrace({ ...p, sramElements: 48 * 100, loopOrder: 'fa1' });
  assert.equal(big.blockK, 100);
  assert.equal(big.blockQ, 12);
  assert.ok(maxAbsDiff(big.output, core.sdpa(p).output) < 2e-6);
});

test('standardAttentionTrace: Algorithm 0 output equals sdpa; S and P round-trip through HBM', () => {
  for (const causal of ['none', 'top_left', 'bottom_right']) {
    const p = problem({ H: 2, Hkv: 2, L: 10, S: 13, D: 4, Dv: 3 });
    const ref = core.sdpa({ ...p, causal });
    const r = core.standardAttentionTrace({ ...p, causal, blockQ: 4, blockK: 5, elementBytes: 2, traceHead: 1 });
    assert.ok(maxAbsDiff(r.output, ref.output) < 2e-6, causal);
    assert.ok(maxAbsDiff(r.lse, ref.lse) < 2e-6, causal);
    const tr = 3, tc = 3;
    assert.equal(r.steps.length, tr * (1 + tc) + tr + tr * (tc + 1));
    assert.deepEqual([...new Set(r.steps.map((s) => s.kind))], ['load_q', 'score_tile', 'softmax_rows', 'pv_tile', 'write_o']);
    const { read, written } = checkTransfers(r.steps);
    // Per head: Q once, K and V once per Q block, S and P written and read once, O written (fp16).
    assert.equal(read, (10 * 4 + tr * 13 * 4 + 2 * 10 * 13 + tr * 13 * 3) * 2);
    assert.equal(written, (2 * 10 * 13 + 10 * 3) * 2);
    assert.equal(r.stats.hbmBytesRead, 2 * read);
    assert.equal(r.stats.hbmIntermediateBytes, 2 * 2 * 10 * 13 * 2);
    assert.equal(r.steps.at(-1).hbmBytesStored, 2 * 10 * 13 * 2);
    const softmax = r.steps.find((s) => s.kind === 'softmax_rows');
    assert.equal(softmax.probs.length, 4 * 13);
    assert.deepEqual(softmax.transfers.map((t) => `${t.direction} ${t.matrix}`), ['read S', 'write P']);
  }
  const derived = core.standardAttentionTrace({ ...problem(), sramElements: 4 * 8 * 3 });
  assert.equal(derived.blockK, 3);
  assert.equal(derived.blockQ, 3);
});

test('flashBackward: gradients equal a dense backward; bytes not stored vs recomputation FLOPs', () => {
  const p = problem({ H: 4, Hkv: 2, L: 7, S: 11, D: 6, Dv: 4 });
  const fwd = core.flashForwardTrace({ ...p, blockQ: 3, blockK: 4 });
  const dO = core.randomNormal([1, 4, 7, 4], 99, 1);
  const r = core.flashBackward({ ...p, o: fwd.output, dO, lse: fwd.lse, blockQ: 3, blockK: 4, elementBytes: 2 });
  const ref = denseBackward(p, dO);
  // float inputs and float accumulation against a double reference on O(1) gradients
  assert.ok(maxAbsDiff(r.dQ, ref.dQ) < 2e-5);
  assert.ok(maxAbsDiff(r.dK, ref.dK) < 2e-5);
  assert.ok(maxAbsDiff(r.dV, ref.dV) < 2e-5);
  assert.deepEqual(r.dKShape, [1, 2, 11, 6]);
  assert.deepEqual(r.dVShape, [1, 2, 11, 4]);
  assert.equal(r.stats.bytesNotStored, 2 * 4 * 7 * 11 * 2);       // S and P, fp16
  assert.equal(r.stats.recomputeFlops, 4 * 2 * 7 * 11 * 6);       // S = Q K^T once more, no causal skipping
  assert.equal(r.stats.flops, 4 * (2 * 7 * 4 + 2 * 7 * 11 * (3 * 6 + 2 * 4)));
  assert.deepEqual(r.steps, []);

  // Causal bottom-right with L > S: rows without keys get zero gradients, not NaN; the trace.
  const tall = problem({ H: 2, Hkv: 1, L: 12, S: 5, D: 4, Dv: 3 });
  const f = core.flashForwardTrace({ ...tall, causal: 'bottom_right' });
  const g = core.flashBackward({ ...tall, causal: 'bottom_right', o: f.output, dO: core.randomNormal([1, 2, 12, 3], 5, 1),
    lse: f.lse, blockQ: 4, blockK: 2, trace: true, traceHead: 1 });
  assert.ok(g.dQ.every(Number.isFinite) && g.dK.every(Number.isFinite) && g.dV.every(Number.isFinite));
  for (let i = 0; i < 7 * 4; i++) assert.equal(g.dQ[i], 0);  // head 0, rows 0..6
  const kinds = g.steps.map((s) => s.kind);
  assert.equal(kinds.filter((k) => k === 'compute_delta').length, 2 * 3);
  assert.equal(kinds.filter((k) => k === 'write_dkdv').length, 3);
  assert.ok(kinds.includes('skip'));
  checkTransfers(g.steps);
  const tile = g.steps.find((s) => s.kind === 'tile');
  assert.equal(tile.probs.length, (tile.rowEnd - tile.rowBegin) * (tile.colEnd - tile.colBegin));
  assert.deepEqual(tile.transfers.map((t) => `${t.direction} ${t.matrix}`),
    ['read Q', 'read dO', 'read dQ', 'read lse', 'read D', 'write dQ']);
});

test('chunkedAttention: equals sdpa; peak intermediate memory of sqrt(S) key chunks', () => {
  for (const causal of ['none', 'top_left', 'bottom_right']) {
    const p = problem({ H: 2, L: 17, S: 50 });
    const ref = core.sdpa({ ...p, causal });
    const r = core.chunkedAttention({ ...p, causal, queryChunk: 4 });
    assert.ok(maxAbsDiff(r.output, ref.output) < 2e-6, causal);
    assert.ok(maxAbsDiff(r.lse, ref.lse) < 2e-6, causal);
    assert.equal(r.keyChunk, 8);   // ceil(sqrt(50))
    assert.equal(r.numKChunks, 7);
    // Last key chunk (2 keys) is live with all 7 summaries of 4 rows x (Dv + 2): 7 * 4 * 7 + 4 * 2 = 204;
    // the sixth (8 keys) with 6 summaries: 6 * 28 + 32 = 200.
    assert.equal(r.stats.peakIntermediateElements, 204);
    assert.equal(r.stats.peakIntermediateBytes, 204 * 4);
    assert.equal(r.stats.denseScoreElements, 17 * 50);
  }
  const d = core.chunkedAttention(problem({ L: 30 }));
  assert.equal(d.queryChunk, 30);  // min(1024, L)
  const t = core.chunkedAttention({ ...problem({ L: 10, S: 23 }), queryChunk: 4, keyChunk: 6, trace: true, traceHead: 1 });
  assert.equal(t.steps.length, 3 * (4 + 1));
  assert.equal(t.steps[4].kind, 'combine');
  assert.equal(Math.max(...t.steps.map((s) => s.liveElements)), t.stats.peakIntermediateElements);
});

// Traces at in-browser sizes must be ready within 5 ms: N = 64, d = 64, blocks of 16, median of 20.
test('traces for N = 64, d = 64, blocks of 16 take under 5 ms (median of 20 runs)', (t) => {
  const p = problem({ B: 1, H: 1, Hkv: 1, L: 64, S: 64, D: 64, Dv: 64 });
  const median = (fn) => {
    const times = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      fn();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return (times[9] + times[10]) / 2;
  };
  const input = { ...p, blockQ: 16, blockK: 16 };
  for (let i = 0; i < 3; i++) {  // warm up
    core.standardAttentionTrace(input);
    core.flashForwardTrace({ ...input, loopOrder: 'fa1' });
    core.flashForwardTrace(input);
  }
  const ms = {
    standard: median(() => core.standardAttentionTrace(input)),
    fa1: median(() => core.flashForwardTrace({ ...input, loopOrder: 'fa1' })),
    fa2: median(() => core.flashForwardTrace(input)),
  };
  t.diagnostic(`median trace time (ms): standard ${ms.standard.toFixed(3)}, FA1 ${ms.fa1.toFixed(3)}, FA2 ${ms.fa2.toFixed(3)}`);
  for (const [name, value] of Object.entries(ms)) assert.ok(value < 5, `${name}: ${value} ms`);
});

const bad = [
  ['loop order name', () => core.flashForwardTrace({ ...problem(), loopOrder: 'fa3' }), /loopOrder: must be 'fa2'/],
  ['sram zero', () => core.flashForwardTrace({ ...problem(), sramElements: 0 }), /sramElements: must be an integer in \[1, 16777216\], got 0/],
  ['sram above Bc cap', () => core.flashForwardTrace({ ...problem(), sramElements: 4 * 8 * 4096 + 1 }), /sram_elements: must be in \[1, 131072\] for head_dim 8/],
  ['sram too small for a trace', () => core.flashForwardTrace({ ...problem({ L: 1024, S: 1024, D: 1, Dv: 1 }), sramElements: 1 }), /sramElements: 1048576 tiles exceed/],
  ['standard block size', () => core.standardAttentionTrace({ ...problem(), blockK: 0 }), /blockK: must be an integer in \[1, 1024\], got 0/],
  ['standard element bytes', () => core.standardAttentionTrace({ ...problem(), elementBytes: 3 }), /element_bytes: must be 1, 2, 4 or 8/],
  ['standard trace too long', () => core.standardAttentionTrace({ q: new Float32Array(2000), qShape: [1, 1, 2000, 1], k: new Float32Array(2), kShape: [1, 1, 2, 1], v: new Float32Array(2), vShape: [1, 1, 2, 1] }), /traced run allows sequence lengths up to 1024/],
  ['standard too many tiles', () => core.standardAttentionTrace({ ...problem({ L: 1024, S: 1024, D: 1, Dv: 1 }), blockQ: 8, blockK: 8 }), /16384 tiles exceed the in-browser trace limit/],
  ['standard too much work', () => core.standardAttentionTrace({ q: new Float32Array(8 * 1024), qShape: [1, 8, 1024, 1], k: new Float32Array(1024), kShape: [1, 1, 1024, 1], v: new Float32Array(1024), vShape: [1, 1, 1024, 1] }), /batch \* heads \* L \* S = 8388608 exceeds/],
  ['standard traced head', () => core.standardAttentionTrace({ ...problem(), traceHead: 2 }), /traceHead: must be an integer in \[0, 1\]/],
  ['standard mask with causal', () => core.standardAttentionTrace({ ...problem(), causal: 'top_left', mask: { kind: 'boolean', shape: [1, 1, 9, 13], data: new Uint8Array(117) } }), /cannot be combined/],
  ['backward o length', () => core.flashBackward({ ...problem(), o: new Float32Array(3), dO: new Float32Array(90), lse: new Float32Array(18) }), /o: has 3 entries, expected 90/],
  ['backward dO missing', () => core.flashBackward({ ...problem(), o: new Float32Array(90), lse: new Float32Array(18) }), /dO: must be a Float32Array/],
  ['backward lse length', () => core.flashBackward({ ...problem(), o: new Float32Array(90), dO: new Float32Array(90), lse: new Float32Array(17) }), /lse: expected B \* Hq \* L = 18 entries, got 17/],
  ['backward lse NaN', () => core.flashBackward({ ...problem(), o: new Float32Array(90), dO: new Float32Array(90), lse: new Float32Array(18).fill(NaN) }), /lse: entry 0 is NaN or \+inf/],
  ['backward dO not finite', () => core.flashBackward({ ...problem(), o: new Float32Array(90), dO: new Float32Array(90).fill(Infinity), lse: new Float32Array(18) }), /d_o: element 0 is not finite/],
  ['backward too large', () => core.flashBackward({ q: new Float32Array(4096), qShape: [1, 1, 4096, 1], k: new Float32Array(4096), kShape: [1, 1, 4096, 1], v: new Float32Array(4096), vShape: [1, 1, 4096, 1], o: [], dO: [], lse: [] }), /batch \* heads \* L \* S = 16777216 exceeds/],
  ['backward trace flag', () => core.flashBackward({ ...problem(), o: new Float32Array(90), dO: new Float32Array(90), lse: new Float32Array(18), trace: 1 }), /trace: must be true or false/],
  ['chunk size', () => core.chunkedAttention({ ...problem(), keyChunk: 0 }), /keyChunk: must be an integer in \[1, 1048576\], got 0/],
  ['chunk trace steps', () => core.chunkedAttention({ ...problem({ L: 1024, S: 1024, D: 1, Dv: 1 }), queryChunk: 1, trace: true }), /queryChunk\/keyChunk: 33792 trace steps exceed/],
  ['chunked NaN input', () => core.chunkedAttention({ ...problem(), v: new Float32Array(65).fill(NaN) }), /value: element 0 is not finite/],
];

test('bad arguments throw Errors naming the problem, and the module keeps answering correctly', () => {
  const p = problem();
  const before = core.standardAttentionTrace(p).output;
  for (const [what, call, message] of bad) {
    assert.throws(call, (e) => e instanceof Error && message.test(e.message), what);
    assert.deepEqual(core.standardAttentionTrace(p).output, before, `wrong answer after: ${what}`);
  }
});
