#!/usr/bin/env node
// Computes the tables of the Part 2 post (content/posts/attention-approximation-era/) with the
// WebAssembly core the figures run, and the measured crossover table from the benchmark run
// committed in site/data/bench/, and writes them to site/data/generated/part2.json.
//
//   node scripts/post-data/part2.mjs           rewrite site/data/generated/part2.json
//   node scripts/post-data/part2.mjs --check   exit 1 if the committed file differs from a fresh run

import { POSTS_CPU_RUN, benchRun, benchSource, loadModule, reportErrorsBriefly, writeGenerated, bytes, fixed, integer } from './common.mjs';

reportErrorsBriefly('post-data/part2');

const classic = await loadModule('classic');
const flash = await loadModule('flash');
const tables = {};
const values = {};

const CORE = (what) => `Computed by the core: ${what}.`;
const flops = (n) => (n >= 1e12 ? `${fixed(n / 1e12, 1)} T` : n >= 1e9 ? `${fixed(n / 1e9, 1)} G` : `${fixed(n / 1e6, 1)} M`);

// --- 1. The N^2 wall: one attention matrix per head, and for a BERT-large-shaped model ----------
{
  const heads = 16, layers = 24;
  const rows = [512, 2048, 8192, 32768].map((N) => {
    const f = flash.scoreMatrixFootprint({ seqLen: N, heads, layers, elementBytes: 2 });
    if (N >= 8192) values[`wall.${N}.model`] = bytes(f.perModelBytes);
    return [integer(N), bytes(f.perHeadBytes), bytes(f.perLayerBytes), bytes(f.perModelBytes)];
  });
  tables['n2-wall'] = {
    caption: `The N × N wall: one attention matrix in FP16 per head, per layer (${heads} heads) and for a BERT-large-shaped model (${layers} layers), for one sequence`,
    columns: [{ label: 'N (tokens)' }, { label: 'One head', numeric: true }, { label: `One layer (${heads} heads)`, numeric: true }, { label: `${layers} layers`, numeric: true }],
    rows,
    notes: ['Training keeps these matrices for the backward pass. At 8,192 tokens one sequence\'s take most of an 80 GB GPU; at 32,768 tokens they would fill about ten.'],
    source: CORE('`scoreMatrixFootprint` (`attn/cost/attention_cost.hpp`), binary units'),
  };
}

// --- 2. Complexity: FLOPs and extra memory of each family at two lengths --------------------------
{
  const methods = [
    ['dense', 'Dense (exact)', 'N²'],
    ['sparse', 'Sparse Transformer (strided, l = √N)', 'N √N'],
    ['lsh', 'Reformer LSH (4 rounds, 64 buckets, chunks of 64)', 'N log N (the sort)'],
    ['linformer', 'Linformer (k = 256)', 'N'],
    ['performer', 'Performer (m = 256 features)', 'N'],
  ];
  const lengths = [4096, 65536];
  const rows = methods.map(([method, label, order]) => {
    const cells = lengths.flatMap((N) => {
      const p = classic.complexityPoint({ method, seqLen: N });
      if (N === 65536 && (method === 'dense' || method === 'sparse')) values[`complexity.${method}.${N}.flops`] = flops(p.flops);
      return [flops(p.flops), bytes(p.peakBytes)];
    });
    return [label, order, ...cells];
  });
  tables.complexity = {
    caption: 'What each family costs per head at d = 64: FLOPs and the largest working set beyond the inputs, at 4,096 and 65,536 tokens',
    columns: [
      { label: 'Method' }, { label: 'Grows as' },
      { label: 'FLOPs, N = 4,096', numeric: true }, { label: 'Memory, N = 4,096', numeric: true },
      { label: 'FLOPs, N = 65,536', numeric: true }, { label: 'Memory, N = 65,536', numeric: true },
    ],
    rows,
    notes: ['Memory in FP16 (2 bytes per stored element). Reformer\'s FLOPs are linear in N at a fixed bucket size: the log N is in sorting the tokens by bucket, which costs comparisons, not FLOPs.'],
    source: CORE('`complexityPoint` (`attn/approx/complexity.hpp`), with each method\'s own cost count (the same counts its implementation reports)'),
  };
}

// --- 3. What approximation costs in accuracy: random inputs vs a retrieval task --------------------
{
  const N = 512, d = 64, shape = [1, 1, N, d];
  const draw = classic.randomNormal([1, 1, 3 * N, d], 5, 1);
  const random = { q: draw.slice(0, N * d), k: draw.slice(N * d, 2 * N * d), v: draw.slice(2 * N * d), qShape: shape, kShape: shape, vShape: shape };
  const retrieval = classic.retrievalInputs({ qShape: shape, seed: 5 });
  const methods = [
    ['Longformer sliding window (w = 32 per side)', (x) => classic.sparseAttention({ pattern: { kind: 'longformer', oneSidedWindow: 32 }, ...x })],
    ['BigBird (blocks of 32: window, 1 global, 2 random)', (x) => classic.sparseAttention({ pattern: { kind: 'bigbird', block: 32, oneSidedWindow: 1, global: 1, randomBlocks: 2, seed: 1 }, ...x })],
    ['Reformer LSH (16 buckets, 2 rounds)', (x) => classic.lshAttention({ ...x, numBuckets: 16, numRounds: 2, chunkLength: 64, seed: 1 })],
    ['Linformer (k = 128)', (x) => classic.linformer({ ...x, projectedLength: 128, seed: 1 })],
    ['Performer (m = 256)', (x) => classic.performer({ ...x, numFeatures: 256, seed: 1 })],
    ['Linear Transformer (elu + 1)', (x) => classic.linearAttention(x)],
    ['Routing (32 clusters)', (x) => classic.routingAttention({ ...x, numClusters: 32, seed: 1 })],
  ];
  // Reformer shares queries and keys (its keys are the unit queries), so a task built on separate
  // keys cannot be posed to it.
  const sharedQk = (label) => label.startsWith('Reformer');
  const rows = methods.map(([label, run]) => {
    const a = run(random).error;
    if (sharedQk(label)) return [label, fixed(a.relativeFrobenius, 2), 'n/a', 'n/a'];
    const b = run(retrieval).error;
    return [label, fixed(a.relativeFrobenius, 2), fixed(b.relativeFrobenius, 2), `${fixed(100 * b.top1Preserved, 0)}%`];
  });
  tables['error'] = {
    caption: `Error against exact attention at N = ${integer(N)}, d = ${d}, untrained: on random inputs, and on a retrieval task where each query has one matching key`,
    columns: [{ label: 'Method' }, { label: 'Relative error, random inputs', numeric: true }, { label: 'Relative error, retrieval', numeric: true }, { label: 'Queries that still find their key', numeric: true }],
    rows,
    notes: [
      'Relative error is ‖O − O_exact‖ / ‖O_exact‖. On random inputs exact attention averages hundreds of random values into a small output, so an error near or above 1 means the method returns mostly something else. On the retrieval task each query is a noisy copy of one key (`retrievalInputs`: sharpness 2, noise 0.1), so exact attention puts almost all weight on it; the last column counts queries whose output is still nearest that key\'s value. Reformer shares queries and keys (its keys are the queries, normalised), so the task cannot be posed to it; on random inputs it is compared with exact shared-QK attention.',
      'Projections, features, hashes and clusters are random and untrained, as the core draws them: trained models learn theirs, which helps the low-rank and kernel methods, but cannot make a fixed pattern see a key outside it.',
    ],
    source: CORE('`sparseAttention`, `lshAttention`, `linformer`, `performer`, `linearAttention`, `routingAttention` against `sdpa` in double, seed 5'),
  };
}

// --- 4. Performer's reordering: the same output, N^2 or N work ---------------------------------------
{
  const N = 4, d = 2, shape = [N, d];
  const draw = classic.randomNormal([1, 1, 3 * N, d], 9, 1);
  const x = { q: draw.slice(0, N * d), k: draw.slice(N * d, 2 * N * d), v: draw.slice(2 * N * d), qShape: [1, 1, ...shape], kShape: [1, 1, ...shape], vShape: [1, 1, ...shape] };
  const quadratic = classic.linearAttention({ ...x, form: 'parallel' });
  const linear = classic.linearAttention({ ...x, form: 'recurrent' });
  const row = (a, i) => `(${fixed(a[2 * i], 3)}, ${fixed(a[2 * i + 1], 3)})`;
  const difference = Math.max(...quadratic.output.map((o, i) => Math.abs(o - linear.output[i])));
  tables['associativity'] = {
    caption: 'The kernel trick at N = 4, d = 2: (φ(Q) φ(K)ᵀ) V and φ(Q) (φ(K)ᵀ V) give the same output, at different cost',
    columns: [{ label: 'Query' }, { label: 'Output, N × N order first', numeric: true }, { label: 'Output, d × d order first', numeric: true }],
    rows: Array.from({ length: N }, (_, i) => [`q${i + 1}`, row(quadratic.output, i), row(linear.output, i)]),
    notes: [
      `The two columns agree to ${difference < 1e-6 ? 'within 10⁻⁶' : fixed(difference, 6)} (float rounding). Cost counted by the core: the N × N order does ${integer(quadratic.cost.flops)} FLOPs and holds ${integer(quadratic.cost.peakBytes / 8)} numbers; the reordered one ${integer(linear.cost.flops)} FLOPs and ${integer(linear.cost.peakBytes / 8)} numbers. The reordered form's cost grows as N d², the other's as N² d: it wins whenever N is larger than d, as it is by orders of magnitude in practice.`,
      'Shown with the Linear Transformer\'s feature map φ(x) = elu(x) + 1, which is deterministic; Performer uses the same reordering with random features whose dot products estimate exp(q·k).',
    ],
    source: CORE('`linearAttention` in its parallel (N × N) and recurrent forms, `randomNormal` seed 9'),
  };
  values['assoc.quadratic.flops'] = integer(quadratic.cost.flops);
  values['assoc.linear.flops'] = integer(linear.cost.flops);
}

// --- 5. The measured price: crossover against exact flash attention on this project's CPU ------------
{
  const run = await benchRun(POSTS_CPU_RUN, 'approx');
  const labels = { performer: 'Performer (m = 256)', linformer: 'Linformer (k = 256)', linear: 'Linear Transformer', sliding_window: 'Longformer window (256 per side)', lsh: 'Reformer LSH (1 round)' };
  const lengths = run.approx.methods[0].runs.map((r) => r.N);
  tables.crossover = {
    caption: 'Measured: time of each approximate method divided by exact FlashAttention\'s (flash_fast) for one head, d = 64, FP32 on a CPU, and the N from which the method is faster',
    columns: [{ label: 'Method' }, ...lengths.map((N) => ({ label: `N = ${integer(N)}`, numeric: true })), { label: 'Faster from', numeric: true }, { label: 'Its error there', numeric: true }],
    rows: run.approx.methods.map((m) => [
      labels[m.name] ?? m.name,
      ...m.runs.map((r) => `${Number(r.time_vs_flash.toPrecision(2))}×`),
      m.crossover_N ? integer(m.crossover_N) : 'never',
      m.crossover_N ? fixed(m.rel_error_at_crossover, 2) : '—',
    ]),
    notes: [
      `Exact flash_fast took ${run.approx.methods[0].runs.map((r) => `${fixed(r.flash_seconds * 1e3, r.flash_seconds < 0.1 ? 1 : 0)} ms`).join(', ')} at these N; standard attention on OpenBLAS ${run.approx.methods[0].runs.map((r) => `${fixed(r.standard_seconds * 1e3, r.standard_seconds < 0.1 ? 1 : 0)} ms`).join(', ')}.`,
      'Every method is FP32 on OpenBLAS with the same vectorised exponential and threading as the exact baselines, and checked against the core\'s double-precision version before timing. Error as in the table above, on the timed random inputs (LSH against exact shared-QK attention).',
    ],
    source: benchSource(run, 'native/bench/approx_benchmarks.cpp'),
  };
  for (const m of run.approx.methods) values[`crossover.${m.name}`] = m.crossover_N ? integer(m.crossover_N) : 'never';
}

await writeGenerated('part2', 'scripts/post-data/part2.mjs', { tables, values });
