// Seeded hostile-input soak of one WebAssembly module: valid calls with one field corrupted
// (wrong types, NaN, ±Infinity, -1, 0, 2^31, 2^53, empty and oversized arrays, BigInt, Symbol,
// Proxy, null-prototype objects, missing and unknown fields), random argument lists, and
// OnlineSoftmax and ServingStepper misuse after delete(). Every 500 calls a known-good call must return what it
// returned at the start. Counts what each call ended in, the slowest call (CPU time of this
// process, so that other builds on the host do not count), the wasm memory size and the Embind
// handle count. Used by soak.test.mjs (make test) and scripts/soak.mjs (make soak).
import { isDeepStrictEqual } from 'node:util';
import { readFileSync } from 'node:fs';
import { loadModule } from './load.mjs';

// The committed RNNsearch weights (make train), which the translation functions read from bytes.
const TRANSLATION_MODEL = new Uint8Array(readFileSync(new URL('../../static/models/bahdanau-rnnsearch.bin', import.meta.url)));

// SplitMix32-style generator: the same seed gives the same sequence of calls everywhere.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

const qkv = (m, L, S, D, Dv = D, H = 1) => ({
  q: m.randomNormal([1, H, L, D], 1, 1), qShape: [1, H, L, D],
  k: m.randomNormal([1, H, S, D], 2, 1), kShape: [1, H, S, D],
  v: m.randomNormal([1, H, S, Dv], 3, 1), vShape: [1, H, S, Dv],
});

// A small valid ServingStepper workload (the inference module's class misuse starts from it).
const STEPPER_INPUT = { numRequests: 6, numBlocks: 12, blockSize: 4, maxOutputTokens: 24, meanOutputTokens: 6, maxPromptTokens: 12, parallelFraction: 0.5 };

// Valid calls of each module: [function name, argument list]. The soak corrupts their fields.
function templates(name, m) {
  const common = [['randomNormal', [[1, 1, 3, 5], 7, 1]]];
  if (name === 'flash') {
    const p = qkv(m, 9, 7, 5, 3);
    const o = m.sdpa(p);
    return [...common,
      ['sdpa', [{ ...p, causal: 'bottom_right' }]],
      ['sdpa', [{ ...p, mask: { kind: 'boolean', shape: [1, 1, 9, 7], data: new Uint8Array(63).fill(1) } }]],
      ['flashForwardTrace', [{ ...p, blockQ: 4, blockK: 3 }]],
      ['standardAttentionTrace', [{ ...p, blockQ: 4, blockK: 3 }]],
      ['chunkedAttention', [{ ...p }]],
      ['flashBackward', [{ ...p, o: o.output, dO: o.output, lse: o.lse, trace: true, blockQ: 4, blockK: 4 }]],
      ['gpuWorkPartition', [{ gpu: 'h100-sxm', partition: 'fa2', batch: 1, heads: 8, qLen: 4096, blockQ: 128, blockK: 128 }]],
      ['fa3Pipeline', [{ gpu: 'h100-sxm', iterations: 16 }]],
      ['fp8Experiment', [{ seqLen: 128, headDim: 32, evalRows: 16, seed: 1 }]],
      ['predictAttention', [{ gpu: 'a100-sxm-80gb', batch: 1, heads: 8, qLen: 1024, headDim: 64, algorithm: 'flash', precision: 'fp16' }]],
      ['attentionHbmTraffic', [{ algorithm: 'flash', qLen: 100, kvLen: 90, headDim: 16, blockQ: 8, blockK: 6, elementBytes: 2 }]],
      ['scoreMatrixFootprint', [{ heads: 16, seqLen: 4096 }]],
      ['peakFlops', [{ gpu: 'h100-sxm' }]],
      ['roundToE4m3', [1.7]],
    ];
  }
  if (name === 'inference') {
    const p = qkv(m, 5, 17, 4);
    return [...common,
      ['splitKvAttention', [{ ...p, numPartitions: 3 }]],
      ['chunkedPrefill', [{ ...qkv(m, 12, 12, 4), chunkLengths: [5, 7] }]],
      ['slidingWindowMask', [{ seqLen: 9, window: 3 }]],
      ['slidingWindowReceptiveField', [{ layers: 32, window: 4096 }]],
      ['slidingWindowInfluence', [{ layers: 3, window: 4, seqLen: 16, source: 1 }]],
      ['ringAttentionSchedule', [{ devices: 4, qLen: 10 }]],
      ['ringAttentionTiming', [{ devices: 4, seqLen: 65536, linkBytesPerS: 50e9, gpu: 'h100-sxm' }]],
      ['ringAttentionTrace', [{ devices: 3, qLen: 13, kvLen: 11, headDim: 8, causal: 'top_left', seed: 5 }]],
      ['simulateSpeculativeDecoding', [{ alpha: 0.7, gamma: 4, runs: 2000, seed: 3 }]],
      ['speculativeDecoding', [{ alpha: 0.7, gamma: 4 }]],
      ['kvSchemeComparison', [{ contextTokens: 4096 }]],
      ['gqaConversion', [{ modelDim: 32, heads: 8, headDim: 8, seqLen: 16, similarity: 0.5, seed: 2 }]],
      ['ropeVector', [{ x: [1, 2, 3, 4, 5, 6], position: 3, layout: 'half_split' }]],
      ['pagedReplay', [{ allocator: 'paged' }]],
      ['pagedSummary', [{}]],
      ['decodeRoofline', [{ model: 'llama3-8b', scheme: 'gqa', gqaGroups: 8, contextTokens: 4096, batch: 4, dtype: 'fp16', weights: true, gpu: 'h100-sxm' }]],
      ['modelPreset', ['deepseek-v2']],
      ['gpuPresets', []],
    ];
  }
  const p = qkv(m, 12, 12, 4);
  return [...common,
    ['lshAttention', [{ ...p, numBuckets: 2, chunkLength: 4, numRounds: 2, seed: 1, recordAttended: true }]],
    ['lshSectors2d', [{ numBuckets: 8, numRounds: 2, seed: 4 }]],
    ['linformer', [{ ...p, projectedLength: 4, seed: 3 }]],
    ['performer', [{ ...p, numFeatures: 8, seed: 2 }]],
    ['linearAttention', [{ ...p }]],
    ['routingAttention', [{ ...p, numClusters: 2 }]],
    ['sparseAttention', [{ ...p, pattern: { kind: 'strided', stride: 3 } }]],
    ['patternStats', [{ pattern: { kind: 'bigbird', block: 4, global: 1, oneSidedWindow: 1, randomBlocks: 1, seed: 2 }, seqLen: 64 }]],
    ['patternDensityImage', [{ pattern: { kind: 'longformer', oneSidedWindow: 2, global: 1 }, seqLen: 256, pixels: 16 }]],
    ['patternMask', [{ pattern: { kind: 'fixed', stride: 4, summary: 1 }, seqLen: 12 }]],
    ['complexityPoint', [{ method: 'dense', seqLen: 2048 }]],
    ['complexityPoint', [{ method: 'flash', seqLen: 4096, flashBlockQ: 32 }]],
    ['lshPattern', [{ seqLen: 256, pixels: 32, numBuckets: 4, chunkLength: 16, seed: 5 }]],
    ['memoryReference', []],
    ['positionalEncoding', [{ numPositions: 7, dModel: 8 }]],
    ['scoreFlops', [{ kind: 'dot', queryDim: 3 }]],
    ['multiHeadAttention', [{ mode: 'self', x: m.randomNormal([1, 1, 4, 6], 4, 1), xShape: [1, 4, 6], numHeads: 3, headDim: 2, weightsSeed: 1 }]],
    ['translationVocabulary', []],
    ['translationModelInfo', [{ model: TRANSLATION_MODEL }]],
    ['translateSentence', [{ model: TRANSLATION_MODEL, sentence: 'the agreement on the european economic area was signed in august 1992' }]],
    // Given projections next to a seed (the rest drawn), as the multi-head figure calls it.
    ['multiHeadAttention', [{ mode: 'self', x: m.randomNormal([1, 1, 4, 6], 4, 1), xShape: [1, 4, 6], numHeads: 3, headDim: 2, weightsSeed: 1, wQ: m.randomNormal([1, 3, 6, 2], 5, 1) }]],
  ];
}

// Values a hostile caller puts in place of a valid one.
const HOSTILE = [
  () => NaN, () => Infinity, () => -Infinity, () => -1, () => 0, () => 0.5, () => 2 ** 31, () => 2 ** 32, () => 2 ** 53,
  () => 1e300, () => 1024, () => 1025, () => 4096, () => 4097, () => 2 ** 20, () => 2 ** 20 + 1, () => 2 ** 24, () => 2 ** 24 + 1,
  () => 1n, () => 2n ** 64n, () => Symbol('x'), () => 'x', () => '', () => '12', () => true, () => null, () => undefined,
  () => ({}), () => [], () => [1], () => [1, 1, 1, 1], () => [2 ** 31, 1, 1, 1], () => [1, 1, 1, -1], () => [1, 1, 1n, 1],
  () => Object.create(null), () => new Proxy({}, {}), () => new Proxy([1, 2, 3], {}), () => new Proxy(new Float32Array(4), {}),
  () => new Proxy({}, { get() { throw new Error('hostile getter'); } }), () => () => 1,
  () => new Float32Array(0), () => new Float32Array(3), () => new Float32Array(2 ** 20 + 1), () => new Float64Array(5).fill(NaN),
  () => new BigInt64Array(4), () => new Uint8Array(7).fill(255), () => [1, 2n, 3], () => [1, Symbol('y')], () => [Object.create(null)],
];

// The paths of a template's argument tree a corruption may target: every property of every
// object and every array entry up to a few levels deep (typed arrays as one leaf).
function paths(value, prefix = [], out = [], depth = 0) {
  if (depth > 3 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return out;
  for (const key of Object.keys(value)) {
    out.push([...prefix, key]);
    paths(value[key], [...prefix, key], out, depth + 1);
  }
  return out;
}

function cloneArgs(value) {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map(cloneArgs);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneArgs(v)]));
}

// One corrupted copy of `args`: a field replaced, deleted, or an unknown field added.
function corrupt(args, random) {
  const copy = cloneArgs(args);
  const targets = paths(copy);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const hostile = pick(HOSTILE)();
  const mode = random();
  if (targets.length === 0 || mode < 0.1) {
    copy[Math.floor(random() * Math.max(1, copy.length))] = hostile;
    return copy;
  }
  const path = pick(targets);
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key];
  const leaf = path[path.length - 1];
  if (mode < 0.2) delete parent[leaf];
  else if (mode < 0.25 && !Array.isArray(parent)) parent.unknownField = hostile;
  else parent[leaf] = hostile;
  return copy;
}

function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

// What a call's outcome counts as: ok, the module's own Error (message names an argument),
// Embind's own error (wrong argument count, a deleted instance), the caller's own exception, or a
// failure of the soak:
// a trap (RuntimeError), an engine error (TypeError, RangeError) or an Error with no argument name.
function kindOf(e) {
  if (e instanceof WebAssembly.RuntimeError) return 'trap';
  // The caller's own exception (a throwing getter or Proxy trap) passes through unchanged.
  if (e?.message === 'hostile getter') return 'caller';
  if (e?.name === 'BindingError' || e?.name === 'InternalError') return 'embind';
  if (e?.constructor === Error && /^[\w.[\]/* ]+:/.test(e.message)) return 'named';
  return `engine:${e?.name}`;
}

export async function soak(moduleName, { seed, calls, timeBoundMs = 1000, checkEvery = 500 }) {
  const m = await loadModule(moduleName);
  const random = rng(seed);
  const list = templates(moduleName, m);
  const names = Object.keys(m).filter((k) => typeof m[k] === 'function' && /^[a-z]/.test(k) && k !== 'count_emval_handles');
  const reference = list.map(([fn, args]) => m[fn](...args));  // each template must succeed as given
  const knownGood = () => list.forEach(([fn, args], i) => {
    if (!isDeepStrictEqual(m[fn](...args), reference[i])) throw new Error(`${moduleName}.${fn}: known-good result changed`);
  });
  const handlesBefore = m.count_emval_handles();
  const memoryBefore = m.HEAP8.length;
  const counts = { ok: 0, named: 0, embind: 0, caller: 0 };
  const failures = [];
  let slowest = { ms: 0, what: '' };
  let knownGoodChecks = 0;
  for (let i = 0; i < calls; i++) {
    const r = random();
    let what, call;
    if (r < 0.85) {
      const [fn, args] = list[Math.floor(random() * list.length)];
      const bad = corrupt(args, random);
      what = fn; call = () => m[fn](...bad);
    } else if (r < 0.95) {
      const fn = names[Math.floor(random() * names.length)];
      const args = Array.from({ length: Math.floor(random() * 4) }, () => HOSTILE[Math.floor(random() * HOSTILE.length)]());
      what = `${fn}(random arguments)`; call = () => m[fn](...args);
    } else if (moduleName === 'flash') {
      what = 'OnlineSoftmax misuse';
      call = () => {
        const a = new m.OnlineSoftmax(2), b = new m.OnlineSoftmax(2);
        a.update([0.5, -Infinity], [1, 2, 3, 4]);
        b.delete();
        try { a.merge(b); } finally { a.delete(); }
      };
    } else if (moduleName === 'inference' && random() < 0.5) {
      // A stepper built from corrupted arguments, queried at a corrupted step, deleted, then used.
      what = 'ServingStepper misuse';
      const [input, allocator, step] = corrupt([STEPPER_INPUT, 'paged', 3], random);
      call = () => {
        const s = new m.ServingStepper(input);
        try { s.stateAtStep(allocator, step); } finally { s.delete(); }
        s.stateAtStep('paged', 0);
      };
    } else {
      what = 'no arguments'; call = () => m[names[Math.floor(random() * names.length)]]();
    }
    const t0 = cpuMs();
    let kind = 'ok';
    try { call(); } catch (e) { kind = kindOf(e); if (!(kind in counts)) failures.push(`${what}: ${kind}: ${e?.message}`); }
    const ms = cpuMs() - t0;
    counts[kind] = (counts[kind] ?? 0) + 1;
    if (ms > slowest.ms) slowest = { ms, what };
    if (ms > timeBoundMs) failures.push(`${what}: ${ms.toFixed(0)} ms of CPU, over the ${timeBoundMs} ms bound`);
    if ((i + 1) % checkEvery === 0) { knownGood(); knownGoodChecks++; }
  }
  knownGood();
  const handlesAfter = m.count_emval_handles();
  if (handlesAfter !== handlesBefore) failures.push(`Embind handles ${handlesBefore} -> ${handlesAfter}`);
  // The memory may grow to the largest accepted call's working set, never past the caps' bound.
  const memoryAfter = m.HEAP8.length;
  return { module: moduleName, seed, calls, counts, failures, slowest, knownGoodChecks, handlesBefore, handlesAfter,
    memoryBeforeMiB: memoryBefore / 2 ** 20, memoryAfterMiB: memoryAfter / 2 ** 20 };
}

export function summary(r) {
  const kinds = Object.entries(r.counts).map(([k, n]) => `${k} ${n}`).join(', ');
  const traps = r.counts.trap ?? 0;
  return `${r.module} seed ${r.seed}: ${r.calls} calls (${kinds}); traps ${traps}; slowest ${r.slowest.ms.toFixed(0)} ms ` +
    `(${r.slowest.what}); known-good checks ${r.knownGoodChecks}; memory ${r.memoryBeforeMiB} -> ${r.memoryAfterMiB} MiB; ` +
    `handles ${r.handlesBefore} -> ${r.handlesAfter}`;
}
