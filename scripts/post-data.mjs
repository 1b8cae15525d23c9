#!/usr/bin/env node
// Computes the tables of the Part 3 post (content/posts/flash-attention-deep-dive/) with the same
// WebAssembly core the figures run, and writes them to site/data/generated/part3.json for the
// `data-table` shortcode (site/layouts/shortcodes/data-table.html).
//
//   node scripts/post-data.mjs           rewrite site/data/generated/part3.json
//   node scripts/post-data.mjs --check   exit 1 if the committed file differs from a fresh run
//
// Why a script: Hugo 0.111 cannot run the core, and a post may print only what the core computes
// or a primary source states. Every number below is either returned by the core (GPU presets with
// their sources, roofline, traffic model, traces, work partition, FA3 pipeline, FP8 experiment) or
// quoted from a paper or README with the place it appears; the two kinds sit in separate, labelled
// columns. Numbers are formatted here, so the shortcode only lays out strings. The output holds no
// dates or timings: the same core gives the same bytes.
//
// Besides `tables`, the file carries `values`: the few computed numbers the prose quotes, so the
// post's test can check that the text still says what the core computes.

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const outFile = join(repoRoot, 'site', 'data', 'generated', 'part3.json');

// The module the site ships, loaded as tests/wasm/load.mjs does (Node's fetch cannot read a file
// path, so the .wasm bytes are passed in).
async function loadFlash() {
  const { default: create } = await import(join(repoRoot, 'static', 'wasm', 'attn_flash.js'));
  const wasmBinary = await readFile(join(repoRoot, 'static', 'wasm', 'attn_flash.wasm'));
  return create({ wasmBinary });
}

// ---------------------------------------------------------------------------------------------
// Formatting (every string the page shows is made here)

const KiB = 1024, MiB = KiB ** 2, GiB = KiB ** 3, TiB = KiB ** 4;

// Binary units, as many digits as the value needs up to three significant ones ("32 MiB", "1.5 GiB").
function bytes(n) {
  const units = [['TiB', TiB], ['GiB', GiB], ['MiB', MiB], ['KiB', KiB]];
  for (const [name, size] of units) if (n >= size) return `${trim(n / size)} ${name}`;
  return `${n} B`;
}
// Vendor (decimal) units for capacities and bandwidths as datasheets print them.
const decimalGB = (n) => `${trim(n / 1e9)} GB`;
const bandwidth = (n) => (n >= 1e12 ? `${trim(n / 1e12)} TB/s` : `${trim(n / 1e9)} GB/s`);
// Datasheets print peaks to one decimal at most (989.5, 1,979): keep that precision.
const tflops = (n) => `${Number((n / 1e12).toFixed(1)).toLocaleString('en-US', { maximumFractionDigits: 1 })} TFLOP/s`;
const perCent = (x, digits = 0) => `${(100 * x).toFixed(digits)}%`;
const times = (x, digits = 2) => `${x.toFixed(digits)}×`;
const fixed = (x, digits) => x.toFixed(digits);
const perCentRange = (lo, hi, digits = 0) => `${fixed(100 * lo, digits)}–${perCent(hi, digits)}`;
const gigahertz = (hz) => `${fixed(hz / 1e9, 2)} GHz`;
const integer = (n) => n.toLocaleString('en-US');
// Three significant digits, trailing zeros dropped, thousands separated.
function trim(x) {
  const digits = x >= 100 ? 0 : x >= 10 ? 1 : 2;
  const rounded = Number(x.toFixed(digits));
  return rounded.toLocaleString('en-US', { maximumFractionDigits: digits });
}

// A preset number: its value formatted, "not published" or "—" (not supported) otherwise.
function sourced(field, format) {
  if (field.value === null) return 'not published';
  if (field.value === 0) return '—';
  return format(field.value);
}

// ---------------------------------------------------------------------------------------------
// Citations used in table source lines and notes (full entries are in the post's front matter).

const FA1 = 'Dao et al. 2022, FlashAttention (arXiv:2205.14135)';
const FA2 = 'Dao 2023, FlashAttention-2 (arXiv:2307.08691)';
const FA3 = 'Shah et al. 2024, FlashAttention-3 (arXiv:2407.08608)';
const README = 'Dao-AILab/flash-attention README';
const CORE_PRESETS = 'GPU presets of the project core (`core/src/cost/gpu_presets.cpp`)';

// ---------------------------------------------------------------------------------------------

// A core error carries the whole minified loader in its stack: report the message only.
process.on('uncaughtException', (error) => {
  console.error(`post-data: ${error.message}`);
  process.exit(1);
});

const core = await loadFlash();
const tables = {};
const values = {};

const HARDWARE_IDS = ['v100-sxm2-32gb', 'a100-sxm-40gb', 'a100-sxm-80gb', 'h100-pcie', 'h100-sxm', 'h200-sxm', 'b200', 'rtx-4090'];
const presets = Object.fromEntries(core.gpuPresets().map((g) => [g.id, g]));
const A100 = presets['a100-sxm-80gb'];
// Table rows drop the vendor's name: every GPU here is NVIDIA's.
const shortName = (g) => g.name.replace(/^NVIDIA (Tesla |GeForce )?/, '');
const H100 = presets['h100-sxm'];

// The document a preset number comes from: its source string up to the first table/column detail.
// Sources that say a value is unpublished or unsupported name no document of their own.
function documentOf(source) {
  if (/^not (published|supported)/.test(source)) return null;
  return source.replace(/^derived: /, '').split(/, (?:Table|specifications|product|technical|Appendix|H100|H200|HGX|V100|A100|section|')|: /)[0];
}

// --- Hardware ---------------------------------------------------------------------------------
{
  const fields = [
    ['smCount', 'SMs', (v) => integer(v)],
    ['sramPerSmBytes', 'Shared memory per SM', (v) => bytes(v)],
    ['l2Bytes', 'L2 cache', (v) => bytes(v)],
    ['hbmBytes', 'Device memory', null],
    ['hbmBytesPerS', 'Memory bandwidth', (v) => bandwidth(v)],
    ['fp16Flops', 'FP16/BF16 tensor (dense)', (v) => tflops(v)],
    ['fp8Flops', 'FP8 tensor (dense)', (v) => tflops(v)],
  ];
  const rows = HARDWARE_IDS.map((id) => {
    const g = presets[id];
    return [
      shortName(g),
      g.architecture,
      ...fields.map(([key, , format]) =>
        key === 'hbmBytes' ? sourced(g.hbmBytes, (v) => `${decimalGB(v)} ${g.memoryType}`) : sourced(g[key], format)),
    ];
  });
  const details = HARDWARE_IDS.flatMap((id) => {
    const g = presets[id];
    return fields.map(([key, label]) => `${g.name}, ${label.toLowerCase()}: ${g[key].source}`);
  });
  const documents = [...new Set(HARDWARE_IDS.flatMap((id) => fields.map(([key]) => documentOf(presets[id][key].source))))].filter(Boolean);
  tables.hardware = {
    caption: 'The GPUs FlashAttention was written for, as the vendors specify them',
    columns: [
      { label: 'GPU' }, { label: 'Architecture' },
      ...fields.map(([, label]) => ({ label, numeric: true })),
    ],
    rows,
    notes: [
      'Tensor-core rates are dense (without the 2:4 structured-sparsity feature); where a datasheet prints only the sparse figure the preset halves it, and says so in its source.',
      'Shared memory per SM is the largest amount one SM can give its thread blocks (binary KB); device memory is in vendor gigabytes (10⁹ bytes).',
      '"not published": the vendor documents cited give no value. "—": the GPU has no tensor cores for that format.',
      'sm_XY is the CUDA compute capability X.Y: the instruction set a kernel is compiled for. A kernel built for sm_90 uses Hopper\'s instructions and runs only on Hopper.',
    ],
    source: `${CORE_PRESETS}, from: ${documents.join('; ')}.`,
    details,
  };
  values['a100.sms'] = integer(A100.smCount.value);
  values['h100.sms'] = integer(H100.smCount.value);
  values['a100.sram'] = bytes(A100.sramPerSmBytes.value);
  values['h100.sram'] = bytes(H100.sramPerSmBytes.value);
  values['a100.l2'] = bytes(A100.l2Bytes.value);
  values['h100.l2'] = bytes(H100.l2Bytes.value);
  values['a100.hbm'] = bandwidth(A100.hbmBytesPerS.value);
  values['a100.fp16'] = tflops(A100.fp16Flops.value);
  values['h100.fp16'] = tflops(H100.fp16Flops.value);
  values['a100.fp32'] = tflops(A100.fp32Flops.value);
  // FA1 Algorithm 1's block sizes on an A100 at d = 64, FP16: M = shared memory / 2 bytes.
  const a100Elements = A100.sramPerSmBytes.value / 2;
  const blocks = core.fa1BlockSizes({ sramElements: a100Elements, headDim: 64 });
  values['a100.sram_fp16_elements'] = integer(a100Elements);
  values['fa1.a100.64.bc'] = integer(blocks.blockK);
  values['fa1.a100.64.br'] = integer(blocks.blockQ);
  // FA2 §3.1: a non-matmul FP32 FLOP costs (tensor rate / FP32 rate) matmul FLOPs.
  values['a100.nonmatmul_ratio'] = trim(A100.fp16Flops.value / A100.fp32Flops.value);
  values['h100.nonmatmul_ratio'] = trim(H100.fp16Flops.value / H100.fp32Flops.value);
}

// --- Roofline ridge points --------------------------------------------------------------------
{
  const ids = ['v100-sxm2-32gb', 'a100-sxm-40gb', 'a100-sxm-80gb', 'h100-pcie', 'h100-sxm', 'h200-sxm', 'b200', 'rtx-4090'];
  const rows = ids.map((id) => {
    const g = presets[id];
    const ridge16 = core.ridgePoint({ gpu: id, precision: 'fp16' });
    const hasFp8 = g.fp8Flops.value > 0;
    return [
      shortName(g),
      tflops(g.fp16Flops.value),
      bandwidth(g.hbmBytesPerS.value),
      fixed(ridge16, 1),
      hasFp8 ? fixed(core.ridgePoint({ gpu: id, precision: 'fp8' }), 1) : '—',
    ];
  });
  tables.ridge = {
    caption: 'Ridge points: the arithmetic intensity a kernel needs before its GPU\'s tensor cores, not its memory, set the pace',
    columns: [
      { label: 'GPU' }, { label: 'FP16/BF16 peak', numeric: true }, { label: 'Memory bandwidth', numeric: true },
      { label: 'Ridge point, FP16/BF16 (FLOP/byte)', numeric: true }, { label: 'Ridge point, FP8 (FLOP/byte)', numeric: true },
    ],
    rows,
    notes: ['Ridge point = dense tensor-core peak ÷ memory bandwidth. A kernel doing fewer FLOPs per byte of device-memory traffic than this is memory-bound on that GPU. "—": no FP8 tensor cores.'],
    source: `Computed by the core's roofline model (\`ridgePoint\`, core/include/attn/cost/roofline.hpp; Williams, Waterman & Patterson 2009) from the ${CORE_PRESETS}.`,
  };
  values['a100.ridge'] = fixed(core.ridgePoint({ gpu: 'a100-sxm-80gb' }), 0);
  values['a100_40.ridge'] = fixed(core.ridgePoint({ gpu: 'a100-sxm-40gb' }), 0);
  values['h100.ridge'] = fixed(core.ridgePoint({ gpu: 'h100-sxm' }), 0);
  values['v100.ridge'] = fixed(core.ridgePoint({ gpu: 'v100-sxm2-32gb' }), 0);
  values['h200.ridge'] = fixed(core.ridgePoint({ gpu: 'h200-sxm' }), 0);
}

// --- Arithmetic intensity: standard vs FlashAttention -----------------------------------------
// Forward pass, FP16, no mask. Batch and heads scale FLOPs and bytes alike, so the intensity is
// a property of (N, d) and the blocking; 2 x 16 heads is FA2's benchmark shape at hidden size 2048.
{
  const rows = [];
  for (const gpu of ['a100-sxm-80gb', 'h100-sxm']) {
    for (const N of [1024, 4096, 16384]) {
      for (const d of [64, 128]) {
        const shape = { gpu, qLen: N, headDim: d, batch: 2, heads: 16, pass: 'forward', precision: 'fp16' };
        const s = core.predictAttention({ ...shape, algorithm: 'standard' });
        const f = core.predictAttention({ ...shape, algorithm: 'flash' });
        rows.push([
          shortName(presets[gpu]), integer(N), String(d),
          fixed(s.arithmeticIntensity, 1), perCent(s.attainedFlopsPerS / s.peakFlopsPerS),
          fixed(f.arithmeticIntensity, 1), perCent(f.attainedFlopsPerS / f.peakFlopsPerS),
          times(s.timeS / f.timeS, 1),
        ]);
        if (gpu === 'a100-sxm-80gb' && N === 4096 && d === 64) {
          values['intensity.std.a100.4k.64'] = fixed(s.arithmeticIntensity, 1);
          values['intensity.flash.a100.4k.64'] = fixed(f.arithmeticIntensity, 1);
          values['ceiling.std.a100.4k.64'] = perCent(s.attainedFlopsPerS / s.peakFlopsPerS);
          values['speedup.a100.4k.64'] = times(s.timeS / f.timeS, 1);
        }
      }
    }
  }
  tables.intensity = {
    caption: 'Arithmetic intensity of one attention forward pass, and the roofline\'s verdict',
    columns: [
      { label: 'GPU' }, { label: 'N', numeric: true }, { label: 'd', numeric: true },
      { label: 'Standard: FLOP/byte', numeric: true }, { label: 'Standard: ceiling, % of peak', numeric: true },
      { label: 'Flash: FLOP/byte', numeric: true }, { label: 'Flash: ceiling, % of peak', numeric: true },
      { label: 'Predicted speed-up', numeric: true },
    ],
    rows,
    notes: [
      'Model prediction, not a measurement. FP16, forward pass, no mask, batch 2 × 16 heads. Standard attention is FlashAttention paper Algorithm 0 (S and P written to and read back from HBM); "Flash" is its Algorithm 1 with block sizes from the GPU\'s shared memory (Bc = ⌈M/4d⌉, Br = min(Bc, d)), which re-reads and re-writes O once per K/V block.',
      'Ceiling = the roofline\'s attainable FLOP/s ÷ dense peak: an upper bound, and real kernels land below it. 100% means compute-bound (intensity at or above the ridge point); anything less, memory-bound. The model counts every tile load as HBM traffic and ignores the L2 cache.',
    ],
    source: `Computed by the core (\`predictAttention\`: core/include/attn/cost/attention_cost.hpp, traffic counted from ${FA1}, Algorithms 0 and 1) with the ${CORE_PRESETS}.`,
  };
}

// --- The N x N matrix: memory and traffic ------------------------------------------------------
{
  const model = core.modelPreset('llama3-8b');
  const heads = model.qHeads.value, layers = model.layers.value, d = model.headDim.value;
  const rows = [2048, 8192, 32768, 131072].map((N) => {
    const fp = core.scoreMatrixFootprint({ seqLen: N, heads, layers, elementBytes: 2 });
    const std = core.attentionHbmTraffic({ qLen: N, headDim: d, algorithm: 'standard', pass: 'forward_backward', elementBytes: 2 });
    // The prose follows 8,192 tokens through, and quotes 131,072 for the size of the matrix.
    if (N === 8192 || N === 131072) {
      values[`scores.head.${N}`] = bytes(fp.perHeadBytes);
      values[`scores.layer.${N}`] = bytes(fp.perLayerBytes);
    }
    if (N === 8192) {
      values[`traffic.std.${N}`] = bytes(std.hbmBytes);
      // Time the A100's HBM needs for that traffic: per head and layer, and for every head of every layer.
      values[`traffic.std.${N}.a100_ms`] = `${fixed(std.hbmBytes / A100.hbmBytesPerS.value * 1e3, 2)} ms`;
      values[`traffic.std.${N}.a100_model_s`] = `${fixed(std.hbmBytes * heads * layers / A100.hbmBytesPerS.value, 2)} s`;
      // FA2 keeps one fp32 log-sum-exp per query row for the backward pass (FA2 §3.1.1).
      values[`lse.head.${N}`] = bytes(N * 4);
    }
    return [integer(N), bytes(fp.perHeadBytes), bytes(fp.perLayerBytes), bytes(fp.perModelBytes), bytes(N * 4),
      bytes(std.hbmBytes)];
  });
  tables.scores = {
    caption: `What materialising the N × N matrix costs: ${model.name} (${heads} heads, ${layers} layers, head dimension ${d}), FP16, one sequence`,
    columns: [
      { label: 'N', numeric: true }, { label: 'S (or P), one head', numeric: true }, { label: `One layer (× ${heads} heads)`, numeric: true },
      { label: `Whole model (× ${layers} layers)`, numeric: true }, { label: 'Flash keeps per head: log-sum-exp', numeric: true },
      { label: 'Standard attention\'s HBM traffic per head, forward + backward', numeric: true },
    ],
    rows,
    notes: [
      'The first three columns are one N × N matrix in FP16 (2 bytes per entry); standard attention stores both S and P, and keeps P for the backward pass. The log-sum-exp column is one FP32 number per query row, what FlashAttention-2 saves for its backward pass instead.',
      'Traffic column: every byte standard attention reads from or writes to HBM in the forward and backward passes of one head (FlashAttention paper, Algorithms 0 and 3): S and P are each written once and read back, and the backward pass reads P again and writes and reads dP and dS, all N × N.',
    ],
    source: `Computed by the core (\`scoreMatrixFootprint\`, \`attentionHbmTraffic\`); model dimensions from the core's model presets (${model.headDim.source.split(':')[0]}).`,
  };
}

// --- Support matrix (primary sources only) ------------------------------------------------------
{
  const fp8 = (id) => (presets[id].fp8Flops.value > 0 ? `yes, ${tflops(presets[id].fp8Flops.value)}` : 'no');
  tables.support = {
    caption: 'Which FlashAttention runs where',
    columns: [
      { label: 'Architecture' }, { label: 'Examples' }, { label: 'FlashAttention 1.x' }, { label: 'FlashAttention-2' },
      { label: 'FlashAttention-3' }, { label: 'FP8 tensor cores (dense peak)' },
    ],
    rows: [
      ['Volta (sm_70)', 'V100', 'no: on the roadmap, never released', 'no', 'no', `${fp8('v100-sxm2-32gb')} (V100)`],
      ['Turing (sm_75)', 'T4, RTX 2080', 'yes, FP16', 'no: "use FlashAttention 1.x for Turing"', 'no', `${fp8('t4')} (T4)`],
      ['Ampere (sm_80, sm_86)', 'A100, RTX 3090', 'yes, FP16 and BF16', 'yes, FP16 and BF16', 'no', `${fp8('a100-sxm-80gb')} (A100)`],
      ['Ada (sm_89)', 'RTX 4090, L40S', 'not listed', 'yes, FP16 and BF16', 'no', `${fp8('rtx-4090')} (RTX 4090)`],
      ['Hopper (sm_90)', 'H100, H800', 'not listed', 'yes, without Hopper\'s TMA and WGMMA', 'yes: FP16/BF16 forward and backward, FP8 forward', `${fp8('h100-sxm')} (H100 SXM)`],
      ['Blackwell (sm_100)', 'B200', 'not listed', 'not listed', 'no (Hopper only)', `${fp8('b200')} (B200)`],
    ],
    notes: [
      '"not listed": the README of that release names neither support nor lack of it.',
      'FlashAttention-4, written in CuTeDSL, targets Hopper and Blackwell (e.g. H100, B200) in the same repository.',
    ],
    source: `FlashAttention 1.x column: ${README}, v0.2 / 1.x ("Turing or Ampere GPUs", V100 "Support SM70 GPUs" on the roadmap). FlashAttention-2 and -3 columns: ${README}, main branch (FA2: "Ampere, Ada, or Hopper GPUs"; Turing "coming soon, please use FlashAttention 1.x"; FA3 beta: "H100 / H800 GPU, CUDA >= 12.3"); FA2 on Hopper without its new instructions: ${FA2}, §4.1. FP8 column: ${CORE_PRESETS}.`,
  };
}

// --- FA1 vs FA2 work partition ----------------------------------------------------------------
{
  const HEADS = 16, SEQ_LEN = 8192, BLOCK_Q = 128, BLOCK_K = 128;
  values['partition.heads'] = integer(HEADS);
  values['partition.seqlen'] = integer(SEQ_LEN);
  values['partition.blockq'] = integer(BLOCK_Q);
  values['partition.qblocks'] = integer(SEQ_LEN / BLOCK_Q);
  const rows = [];
  for (const gpu of ['a100-sxm-80gb', 'h100-sxm']) {
    for (const batch of [1, 4, 16, 64]) {
      const launch = { gpu, batch, heads: HEADS, qLen: SEQ_LEN, blockQ: BLOCK_Q, blockK: BLOCK_K };
      const a = core.gpuWorkPartition({ ...launch, partition: 'fa1' });
      const b = core.gpuWorkPartition({ ...launch, partition: 'fa2' });
      rows.push([shortName(presets[gpu]), String(batch), integer(a.blocks.sm.length), perCent(a.smUtilization, 1),
        integer(b.blocks.sm.length), perCent(b.smUtilization, 1), times(a.makespanTiles / b.makespanTiles, 2)]);
      if (batch === 1 && gpu === 'a100-sxm-80gb') {
        values['partition.a100.b1.fa1'] = perCent(a.smUtilization, 1);
        values['partition.a100.b1.fa2'] = perCent(b.smUtilization, 1);
        values['partition.a100.b1.fa1blocks'] = integer(a.blocks.sm.length);
        values['partition.a100.b1.fa2blocks'] = integer(b.blocks.sm.length);
      }
      if (batch === 1) values[`partition.${gpu === 'h100-sxm' ? 'h100' : 'a100'}.b1.speedup`] = times(a.makespanTiles / b.makespanTiles, 1);
      if (batch === 64 && gpu === 'a100-sxm-80gb') values['partition.a100.b64.speedup'] = times(a.makespanTiles / b.makespanTiles, 2);
    }
  }
  tables.partition = {
    caption: `Keeping every SM busy: FlashAttention-1 vs FlashAttention-2 thread blocks, N = ${integer(SEQ_LEN)}, ${HEADS} heads`,
    columns: [
      { label: 'GPU' }, { label: 'Batch', numeric: true }, { label: 'FA1 thread blocks', numeric: true }, { label: 'FA1 SM utilisation', numeric: true },
      { label: 'FA2 thread blocks', numeric: true }, { label: 'FA2 SM utilisation', numeric: true }, { label: 'Predicted FA2 speed-up', numeric: true },
    ],
    rows,
    notes: [
      'Model prediction. FA1 launches one thread block per (batch, head); FA2 one per (batch, head, block of 128 queries). Blocks are handed to SMs in launch order, one per SM at a time, each taking time proportional to the K/V tiles it computes; utilisation = busy SM-time ÷ (SMs × total time). The speed-up counts only this effect, not FA2\'s other changes.',
    ],
    source: `Computed by the core (\`gpuWorkPartition\`, core/include/attn/cost/work_partition.hpp), following ${FA2}, §3.2; SM counts from the ${CORE_PRESETS}.`,
  };
}

// --- FA3 pipeline -------------------------------------------------------------------------------
{
  const rows = [];
  const labels = {
    sequential: 'FA2-style: each warpgroup waits for every step',
    intra_overlap: 'Intra-warpgroup overlap (FA3 §3.2)',
    pingpong: 'Ping-pong between two warpgroups (FA3 §3.1)',
    pingpong_intra_overlap: 'Both',
  };
  for (const precision of ['fp16', 'fp8']) {
    const result = core.fa3Pipeline({ gpu: 'h100-sxm', precision });
    for (const s of result.schedules) {
      const ns = integer(Math.round(s.steadyIterationS * 1e9));
      rows.push([precision.toUpperCase(), labels[s.name], `${ns} ns`, times(s.steadySpeedup, 2)]);
      if (s.name !== 'sequential') values[`fa3.${precision}.${s.name}`] = times(s.steadySpeedup, 2);  // the baseline is 1× by definition
      else if (precision === 'fp16') values['fa3.fp16.sequential_ns'] = ns;
    }
    values[`fa3.${precision}.gemm_ns`] = fixed(result.opTimes.gemm0S * 1e9, 0);
    values[`fa3.${precision}.softmax_ns`] = fixed(result.opTimes.softmaxS * 1e9, 0);
    // The clock the model runs the special-function units at: the one the tensor-core peak is
    // quoted at, which the FA3 paper fixes its GPU at (Appendix C.1).
    if (precision === 'fp16') values['h100.tensor_clock'] = gigahertz(result.rates.clockHz);
  }
  values['h100.boost_clock'] = gigahertz(H100.boostClockHz.value);
  // The paper's measured checks, FP16 forward at head dimension 128 (FA3 arXiv v2): Table 2's
  // ablation, 661 TFLOP/s with both kinds of overlap against 582 and 570 with one of them removed
  // (8,448 tokens), and §3.1's ping-pong alone, from 570 to 620–640 TFLOP/s (8,192 tokens).
  values['fa3.paper.ablation_gain'] = perCentRange(661 / 582 - 1, 661 / 570 - 1);
  values['fa3.paper.pingpong_gain'] = perCentRange(620 / 570 - 1, 640 / 570 - 1);
  tables.fa3 = {
    caption: 'FlashAttention-3\'s overlap on one H100 SXM5 SM: time per K/V block of 128 keys, head dimension 128',
    columns: [{ label: 'Operands' }, { label: 'Schedule' }, { label: 'Time per K/V block', numeric: true }, { label: 'Predicted speed-up over FA2-style', numeric: true }],
    rows,
    notes: [
      'Model prediction (steady state). Two consumer warpgroups of 64 query rows each; a producer warpgroup loads K and V with TMA into two-stage buffers. Softmax time counts the exponentials only, at the SM\'s special-function rate; latencies, register pressure and other instructions are not modelled, so these are upper bounds on the gain.',
    ],
    source: `Computed by the core (\`fa3Pipeline\`, core/include/attn/cost/fa3_pipeline.hpp), following ${FA3}, §3.1–3.2, with the H100 SXM5 preset.`,
  };
}

// --- FP8 error ----------------------------------------------------------------------------------
{
  const { results, paperSource } = core.fp8Experiment({ seed: 0 });
  const names = {
    fp16_standard: 'FP16, standard attention',
    fp16_flash: 'FP16, FlashAttention',
    fp8_standard_per_tensor: 'FP8, one scale per tensor (baseline)',
    fp8_flash_per_block: 'FP8, block quantisation only',
    fp8_flash_per_tensor_hadamard: 'FP8, Hadamard rotation only',
    fp8_flash_per_block_hadamard: 'FP8, block quantisation + Hadamard (FA3)',
  };
  const rows = results.filter((r) => names[r.method]).map((r) => [
    names[r.method], r.rmse.toExponential(1), r.paperRmse === undefined ? '—' : r.paperRmse.toExponential(1),
  ]);
  const byMethod = Object.fromEntries(results.map((r) => [r.method, r]));
  values['fp8.model.ratio'] = times(byMethod.fp8_standard_per_tensor.rmse / byMethod.fp8_flash_per_block_hadamard.rmse, 1);
  values['fp8.paper.ratio'] = times(byMethod.fp8_standard_per_tensor.paperRmse / byMethod.fp8_flash_per_block_hadamard.paperRmse, 1);
  tables.fp8 = {
    caption: 'FP8 attention error with outliers in Q, K and V: root-mean-square error against exact attention',
    columns: [{ label: 'Method' }, { label: 'Model (N = 512, d = 128, seed 0)', numeric: true }, { label: 'Reported (FA3 Table 3, on an H100)', numeric: true }],
    rows,
    notes: [
      'Model column: computed in the core on inputs drawn from N(0, 1) plus, with probability 0.001 per entry, an N(0, 100) outlier (the distribution FA3 §4.3 uses), emulating the roundings of FP16 and FP8 kernels at a size a browser can run. Reported column: the paper\'s measurement, whose sequence length §4.3 does not state; "—": the paper has no matching row.',
    ],
    source: `Model: the core's \`fp8Experiment\` (core/include/attn/attention/fp8_numerics.hpp). Reported: ${paperSource}.`,
  };
}

// --- Benchmarks: model beside the papers ----------------------------------------------------------
// FA2's benchmark shape at N = 8k: hidden size 2048 as 16 heads of 128, batch 16k / N = 2 (README).
{
  const shape = { qLen: 8192, headDim: 128, batch: 2, heads: 16, pass: 'forward', precision: 'fp16' };
  const predict = (gpu, algorithm) => core.predictAttention({ ...shape, gpu, algorithm });

  // FA2's loop order is not in predictAttention (which models FA1's Algorithm 1): its traffic is
  // the core's count of FA2's forward pass (attentionHbmTraffic, loopOrder 'fa2') at the same
  // shape, queries in blocks of 128 (FA2 §3.3 picks block sizes from {64, 128}). The K/V block size
  // does not change the count: each query block reads all of K and V once, in whatever blocks.
  const fa2IntensityAt = (elementBytes, blockQ = 128) => {
    const t = core.attentionHbmTraffic({ ...shape, algorithm: 'flash', loopOrder: 'fa2', blockQ, blockK: 128, elementBytes });
    return core.arithmeticIntensity(t.flops, t.hbmBytes);
  };
  const fa2Intensity = fa2IntensityAt(2), fa2IntensityFp8 = fa2IntensityAt(1);
  // The ceiling for that loop order with queries in blocks of `blockQ`.
  const fa2Ceiling = (gpu, precision, blockQ = 128) =>
    core.attainableFlops({ gpu, precision, intensityFlopsPerByte: fa2IntensityAt(precision === 'fp8' ? 1 : 2, blockQ) });
  values['fa2.intensity'] = fixed(fa2Intensity, 1);

  const a100Peak = A100.fp16Flops.value, h100Peak = H100.fp16Flops.value, h100Fp8 = H100.fp8Flops.value;
  const ceilingCell = (flops, peak) => `${tflops(flops)} (${perCent(flops / peak)})`;
  const reportedCell = (flops, peak) => `${tflops(flops)} (${perCent(flops / peak)} of dense peak)`;
  const stdA = predict('a100-sxm-80gb', 'standard'), fa1A = predict('a100-sxm-80gb', 'flash');
  const stdH = predict('h100-sxm', 'standard');
  // The model's ceilings for the FA2 loop order, each quoted in a value and a table row.
  const fa2CeilingA100 = fa2Ceiling('a100-sxm-80gb', 'fp16'), fa2CeilingH100 = fa2Ceiling('h100-sxm', 'fp16');
  const fa2CeilingH100Fp8 = fa2Ceiling('h100-sxm', 'fp8');
  // FlashAttention-3's FP16 kernel, without a causal mask at head dimension 128 or more, runs its
  // thread blocks of 128 queries in clusters of two and multicasts each K/V tile to both with one
  // TMA load (hopper/flash_fwd_launch_template.h, Enable_cluster; the mainloop's K/V copy atom is
  // SM90_TMA_LOAD_MULTICAST for a cluster of 2): for HBM traffic, one block of 256 queries.
  const fa3CeilingH100 = fa2Ceiling('h100-sxm', 'fp16', 256);
  // What the papers report (FLOP/s); the rows below cite where. The model's ceilings are for the
  // forward pass, so each A100 kernel is compared by its forward pass: FA2 §1 gives FlashAttention's
  // forward pass as "30–50% of the theoretical maximum" (the blog's 124 TFLOP/s names no pass) and
  // FlashAttention-2's as "up to 73%", 230 TFLOP/s. The FA2 paper's 335 TFLOP/s on the H100 is
  // forward + backward (its Fig. 7); the table says so.
  const reported = { fa1ForwardA100: 0.5 * a100Peak, fa2A100: 230e12, fa2EndToEndA100: 225e12, fa2FwdBwdH100: 335e12, fa3H100: 740e12, fa3Fp8H100: 1.2e15 };

  values['bench.fa2.a100.ceiling'] = tflops(fa2CeilingA100);
  values['bench.fa2.h100.ceiling'] = tflops(fa2CeilingH100);
  values['bench.fa2.h100.reported.share'] = perCent(reported.fa2FwdBwdH100 / h100Peak, 1);
  values['bench.fa3.h100.reported.share'] = perCent(reported.fa3H100 / h100Peak, 1);
  values['bench.fa3fp8.h100.reported.share'] = perCent(reported.fa3Fp8H100 / h100Fp8, 0);
  values['bench.e2e.a100.share'] = perCent(reported.fa2EndToEndA100 / a100Peak, 1);
  values['bench.fa1.a100.ceiling'] = tflops(fa1A.attainedFlopsPerS);
  values['bench.fa1.a100.forward'] = tflops(reported.fa1ForwardA100);
  values['bench.fa1.a100.of_ceiling'] = perCent(reported.fa1ForwardA100 / fa1A.attainedFlopsPerS);
  values['bench.fa2.a100.of_ceiling'] = perCent(reported.fa2A100 / fa2CeilingA100);
  // On the A100, how much FA2's loop order raises the ceiling against how much the measured speed rose.
  values['bench.fa2.a100.ceiling_gain'] = perCent(fa2CeilingA100 / fa1A.attainedFlopsPerS - 1);
  values['bench.fa2.a100.reported_gain'] = perCent(reported.fa2A100 / reported.fa1ForwardA100 - 1);
  values['bench.fa3.h100.over_ceiling'] = times(reported.fa3H100 / fa2CeilingH100, 2);
  values['bench.fa3.h100.cluster_ceiling'] = tflops(fa3CeilingH100);
  values['bench.fa3.h100.of_cluster_ceiling'] = perCent(reported.fa3H100 / fa3CeilingH100);
  values['bench.fa3fp8.h100.over_ceiling'] = times(reported.fa3Fp8H100 / fa2CeilingH100Fp8, 2);

  tables.benchmarks = {
    caption: 'The model\'s ceilings beside what the papers measured (attention forward pass unless stated, FP16/BF16)',
    columns: [
      { label: 'Kernel and GPU' },
      { label: 'Model prediction: roofline ceiling (% of dense peak)', numeric: true },
      { label: 'Reported (% of dense peak, computed)' },
      { label: 'Reported in' },
    ],
    rows: [
      ['Standard attention, A100 80GB', ceilingCell(stdA.attainedFlopsPerS, a100Peak), 'FA2 is "3–10× faster than a standard attention implementation"', `${FA2}, §4.1`],
      ['FlashAttention-1, A100', ceilingCell(fa1A.attainedFlopsPerS, a100Peak), `up to ${reportedCell(reported.fa1ForwardA100, a100Peak)}; "the forward pass only reaches 30–50% of the theoretical maximum"`, `${FA2}, §1, on its Fig. 5 (TFLOP/s computed from the 50%)`],
      ['FlashAttention-2, A100', ceilingCell(fa2CeilingA100, a100Peak), `up to ${reportedCell(reported.fa2A100, a100Peak)}; "50–73% of the theoretical maximum"`, `${FA2}, abstract (50–73%), §1 (73% in the forward pass) and §4 (230 TFLOP/s)`],
      ['FlashAttention-2, GPT-style training end to end, A100', 'not modelled (whole model)', `${reportedCell(reported.fa2EndToEndA100, a100Peak)} per GPU; "72% model FLOPs utilization"`, `${FA2}, abstract`],
      ['Standard attention, H100 SXM5', ceilingCell(stdH.attainedFlopsPerS, h100Peak), 'not reported as a single figure', '—'],
      ['FlashAttention-2, H100 SXM5', ceilingCell(fa2CeilingH100, h100Peak), `up to ${reportedCell(reported.fa2FwdBwdH100, h100Peak)} for forward and backward together; "only 35% utilization"`, `${FA2}, §4.1 and Fig. 7 (335 TFLOP/s, forward + backward); ${FA3}, abstract (35%)`],
      ['FlashAttention-3, H100 SXM5', ceilingCell(fa3CeilingH100, h100Peak), `up to ${reportedCell(reported.fa3H100, h100Peak)}`, `${FA3}, abstract`],
      ['FlashAttention-3 FP8, H100 SXM5', ceilingCell(fa2CeilingH100Fp8, h100Fp8), `close to ${tflops(reported.fa3Fp8H100)} (${perCent(reported.fa3Fp8H100 / h100Fp8)} of the dense FP8 peak)`, `${FA3}, abstract`],
    ],
    notes: [
      `Model column: the core's roofline at N = 8,192, head dimension 128, batch 2 × 16 heads (the shape of FA2's benchmarks at 8k: hidden size 2048, batch × N = 16k). Standard and FlashAttention-1 use \`predictAttention\` (FA1 paper, Algorithms 0 and 1). FlashAttention-2 and -3 share FA2's loop order, whose traffic is the core's count of FA2's forward pass (\`attentionHbmTraffic\` with \`loopOrder: 'fa2'\`, which matches its traced pass byte for byte) with queries in blocks of 128. Each block reads all of K and V once, so for long sequences the intensity approaches 128 FLOP/byte: ${fixed(fa2Intensity, 1)} FLOP/byte with 2-byte FP16 operands, ${fixed(fa2IntensityFp8, 1)} with 1-byte FP8 ones. A ceiling is an upper bound that counts every tile load as HBM traffic.`,
      `FlashAttention-3's FP16 row counts blocks of 256 queries: without a causal mask, at head dimension 128 and above, its kernel runs thread blocks of 128 queries in pairs (a thread-block cluster) and multicasts each K/V tile to both with one TMA load (the repository's hopper/flash_fwd_launch_template.h), so 256 queries share each load. The FP8 row keeps blocks of 128: the repository pairs FP8 blocks only at head dimension 192.`,
      `FlashAttention-3's FP8 figure is above its row's ceiling: the model charges every K/V re-read to HBM and ignores the ${bytes(H100.l2Bytes.value)} L2 cache, which probably serves many of those re-reads. The model's ceiling is a statement about HBM traffic alone.`,
      'Reported percentages are computed here as reported FLOP/s ÷ the dense peak in the presets (A100: 312, H100 SXM5: 989.5 FP16 / 1,979 FP8 TFLOP/s).',
      'The NeurIPS 2024 version of the FlashAttention-3 paper reports higher figures than its arXiv abstract (up to 840 TFLOP/s in BF16 and 1.3 PFLOP/s in FP8).',
    ],
    source: `Model: the core (\`predictAttention\`, \`attentionHbmTraffic\`, \`attainableFlops\`) with the ${CORE_PRESETS}. Reported: the papers cited in each row.`,
  };
}

// --- Worked example: online softmax over two tiles of four keys ---------------------------------
// The same example as the online-softmax figure (site/viz/online-softmax/model.ts, DEFAULT_SEED in
// state.ts): one query of dimension 4 against 8 keys, values of dimension 2, FA2 loop, Br = 1, Bc = 4.
{
  const SEED = 19, KEYS = 8, TILE = 4, HEAD_DIM = 4, VALUE_DIM = 2;
  const draw = core.randomNormal([1, 1, 1, HEAD_DIM + KEYS * HEAD_DIM + KEYS * VALUE_DIM], SEED, 1);
  const input = {
    q: draw.subarray(0, HEAD_DIM), qShape: [1, 1, 1, HEAD_DIM],
    k: draw.slice(HEAD_DIM, HEAD_DIM + KEYS * HEAD_DIM), kShape: [1, 1, KEYS, HEAD_DIM],
    v: draw.slice(HEAD_DIM + KEYS * HEAD_DIM), vShape: [1, 1, KEYS, VALUE_DIM],
  };
  const trace = core.flashForwardTrace({ ...input, blockQ: 1, blockK: TILE });
  const dense = core.sdpa({ ...input, returnProbs: true });
  const tiles = trace.steps.filter((s) => s.kind === 'tile');
  const f3 = (x) => (x === -Infinity ? '−∞' : x.toFixed(3).replace('-', '−'));
  const vec = (a) => `(${Array.from(a, f3).join(', ')})`;
  const v = input.v;

  // Per key: its score, its value, its weight when its tile was folded in, and the final probability.
  const keyRows = [];
  tiles.forEach((t, i) => {
    for (let j = t.colBegin; j < t.colEnd; j++) {
      keyRows.push([String(j + 1), String(i + 1), f3(t.scores[j - t.colBegin]), `(${f3(v[2 * j])}, ${f3(v[2 * j + 1])})`,
        f3(t.weights[j - t.colBegin]), f3(dense.probs[j])]);
    }
  });
  tables['worked-keys'] = {
    caption: 'The worked example, key by key: one query against 8 keys in two tiles of 4',
    columns: [
      { label: 'Key j', numeric: true }, { label: 'Tile', numeric: true }, { label: 'Score s_j', numeric: true }, { label: 'Value v_j', numeric: true },
      { label: 'Weight e^(s_j − m) when its tile arrives', numeric: true }, { label: 'Final probability p_j', numeric: true },
    ],
    rows: keyRows,
    notes: ['Scores are q · k_j / √4. The weight column uses the running maximum m right after the key\'s own tile; the last column is the dense softmax over all 8 keys.'],
    source: `Computed by the core: \`flashForwardTrace\` (FlashAttention-2 loop, Br = 1, Bc = 4) and \`sdpa\` on the seeded example of the online-softmax figure (\`randomNormal\`, seed ${SEED}).`,
  };

  const stateRows = [];
  let previousM = -Infinity;
  tiles.forEach((t, i) => {
    const tileMax = Math.max(...t.scores);
    stateRows.push([`After tile ${i + 1} (keys ${t.colBegin + 1}–${t.colEnd})`, f3(tileMax), `${f3(previousM)} → ${f3(t.m[0])}`,
      f3(t.rescale[0]), f3(t.l[0]), vec(t.acc), vec(t.output)]);
    values[`worked.tile${i + 1}.max`] = f3(tileMax);
    values[`worked.tile${i + 1}.m`] = f3(t.m[0]);
    values[`worked.tile${i + 1}.rescale`] = f3(t.rescale[0]);
    values[`worked.tile${i + 1}.l`] = f3(t.l[0]);
    values[`worked.tile${i + 1}.acc`] = vec(t.acc);
    values[`worked.tile${i + 1}.out`] = vec(t.output);
    previousM = t.m[0];
  });
  stateRows.push(['Dense softmax over all 8 keys', '', '', '', '', '', vec(dense.output)]);
  values['worked.dense.out'] = vec(dense.output);
  values['worked.lse'] = f3(trace.lse[0]);
  values['worked.dense.lse'] = f3(dense.lse[0]);
  // The tile-1 contribution after the rescale, for the walk-through.
  const last = tiles[tiles.length - 1];
  values['worked.tile1.l.rescaled'] = f3(tiles[0].l[0] * last.rescale[0]);
  tables['worked-state'] = {
    caption: 'The worked example, tile by tile: the running state (m, ℓ, acc) of the query row',
    columns: [
      { label: 'Step' }, { label: 'Tile max', numeric: true }, { label: 'Running max m', numeric: true }, { label: 'Rescale α = e^(m_old − m_new)', numeric: true },
      { label: 'Running sum ℓ', numeric: true }, { label: 'Accumulator acc', numeric: true }, { label: 'Output acc / ℓ', numeric: true },
    ],
    rows: stateRows,
    notes: [`The query is q = ${vec(input.q)}. At tile 1 the rescale factor is 0: nothing had been accumulated, so there is nothing to convert (the core's convention for m_old = −∞). The log-sum-exp m + log ℓ = ${f3(trace.lse[0])} matches the dense ${f3(dense.lse[0])}.`],
    source: `Computed by the core: \`flashForwardTrace\` (FlashAttention-2 loop, Br = 1, Bc = 4) and \`sdpa\`, seed ${SEED} as in the online-softmax figure.`,
  };
}

// ---------------------------------------------------------------------------------------------

const json = `${JSON.stringify({ generatedBy: 'scripts/post-data.mjs', tables, values }, null, 2)}\n`;
if (process.argv.includes('--check')) {
  const current = await readFile(outFile, 'utf8').catch(() => '');
  if (current !== json) {
    console.error(`${outFile} is stale: run node scripts/post-data.mjs`);
    process.exit(1);
  }
} else {
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, json);
  console.log(`Wrote ${outFile} (${Object.keys(tables).length} tables, ${Object.keys(values).length} values)`);
}
