#!/usr/bin/env node
// Computes the tables of the Part 3 post (content/posts/flash-attention-deep-dive/) with the same
// WebAssembly core the figures run, and writes them to site/data/generated/part3.json for the
// `data-table` shortcode (site/layouts/shortcodes/data-table.html).
//
//   node scripts/post-data/part3.mjs           rewrite site/data/generated/part3.json
//   node scripts/post-data/part3.mjs --check   exit 1 if the committed file differs from a fresh run
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

import {
  loadModule, reportErrorsBriefly, writeGenerated,
  bytes, decimalGB, bandwidth, tflops, perCent, times, fixed, perCentRange, integer, trim,
} from './common.mjs';

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

reportErrorsBriefly('post-data/part3');

const core = await loadModule('flash');
const tables = {};
const values = {};

// The two GPUs the post follows: FlashAttention and FlashAttention-2 were measured on the A100, FlashAttention-3 on the H100.
const HARDWARE_IDS = ['a100-sxm-80gb', 'h100-sxm'];
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
  const documents = [...new Set(HARDWARE_IDS.flatMap((id) => fields.map(([key]) => documentOf(presets[id][key].source))))].filter(Boolean);
  tables.hardware = {
    caption: 'The GPUs FlashAttention was written for, as the vendors specify them',
    columns: [
      { label: 'GPU' }, { label: 'Architecture' },
      ...fields.map(([, label]) => ({ label, numeric: true })),
    ],
    rows,
    notes: [
      'Tensor-core rates are dense (without 2:4 sparsity). Shared memory: the most one SM gives its thread blocks. sm_XY is the CUDA compute capability, the instruction set a kernel is compiled for.',
    ],
    // Each value's own source (document, table, page) is in the presets; the line names the documents.
    source: `${CORE_PRESETS}, from: ${documents.join('; ')}.`,
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
}

// --- Roofline ridge points --------------------------------------------------------------------
{
  const ids = ['v100-sxm2-32gb', 'a100-sxm-80gb', 'h100-sxm', 'b200', 'rtx-4090'];
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
      { label: 'Standard: FLOP/byte', numeric: true }, { label: 'Standard: no-L2-reuse bound, % of peak', numeric: true },
      { label: 'Flash: FLOP/byte', numeric: true }, { label: 'Flash: no-L2-reuse bound, % of peak', numeric: true },
      { label: 'Predicted speed-up', numeric: true },
    ],
    rows,
    notes: [
      'Model prediction, FP16 forward pass, batch 2 × 16 heads. Standard: FA1 Algorithm 0. Flash: Algorithm 1 with block sizes from the GPU\'s shared memory. Bound = attainable ÷ dense peak, every tile load charged to HBM (no L2 reuse): 100% means compute-bound.',
    ],
    source: `Computed by the core (\`predictAttention\`: core/include/attn/cost/attention_cost.hpp, traffic counted from ${FA1}, Algorithms 0 and 1) with the ${CORE_PRESETS}.`,
  };
}

// --- Where the time goes: unfused standard attention, kernel by kernel ------------------------
// FA1's Fig. 1 (right) measures PyTorch's attention on GPT-2 on an A100 split into matmul, mask,
// softmax and dropout. The core's breakdown runs the same chain through the roofline at a
// GPT-2-medium-like shape (16 heads of 64, 1,024 tokens, causal, dropout), batch 8 chosen here.
{
  const shape = { gpu: 'a100-sxm-80gb', batch: 8, heads: 16, qLen: 1024, headDim: 64, causal: 'top_left', precision: 'fp16' };
  // The products run in the row blocks predictAttention gives standard attention on this GPU.
  const { blockQ } = core.predictAttention({ ...shape, algorithm: 'standard', pass: 'forward' });
  const ops = core.standardAttentionBreakdown({ ...shape, blockQ, dropout: true });
  const labels = {
    matmul_qk: 'Matmul: S = QKᵀ', mask: 'Elementwise: causal mask', softmax: 'Elementwise: softmax', dropout: 'Elementwise: dropout', matmul_pv: 'Matmul: O = PV',
  };
  const total = ops.reduce((sum, op) => sum + op.timeS, 0);
  const elementwise = ops.filter((op) => op.kind === 'elementwise').reduce((sum, op) => sum + op.timeS, 0);
  const ms = (s) => `${fixed(s * 1e3, 3)} ms`;
  const rows = ops.map((op) => [labels[op.name],
    op.flops ? `${fixed(op.flops / 1e9, 1)} GFLOP` : '—', bytes(op.hbmBytes), ms(op.timeS), perCent(op.timeS / total)]);
  rows.push(['All five kernels', '', bytes(ops.reduce((sum, op) => sum + op.hbmBytes, 0)), ms(total), '100%']);
  values['breakdown.elementwise_share'] = perCent(elementwise / total);
  tables.breakdown = {
    caption: 'Where the time goes: unfused standard attention on an A100, forward pass, kernel by kernel',
    columns: [
      { label: 'Kernel' }, { label: 'FLOPs', numeric: true }, { label: 'HBM traffic', numeric: true },
      { label: 'Time (model)', numeric: true }, { label: 'Share', numeric: true },
    ],
    rows,
    notes: [
      `Model estimate, not a measurement: FP16, batch ${shape.batch} × ${shape.heads} heads, ${integer(shape.qLen)} tokens, head dimension ${shape.headDim}, causal mask and dropout. Each kernel reads its inputs from HBM and writes its output back; products take max(FLOPs ÷ peak, bytes ÷ bandwidth), elementwise passes bytes ÷ bandwidth. Launch overheads and caches are not counted.`,
    ],
    source: `Computed by the core (\`standardAttentionBreakdown\`, core/include/attn/cost/standard_breakdown.hpp) with the ${CORE_PRESETS}.`,
  };
}

// --- The N x N matrix: what materialising it costs ------------------------------------------------
// The "why" box quotes one head's and one layer's score matrix at 8,192 and 131,072 tokens for
// Llama 3.1 8B, against FlashAttention's one FP32 log-sum-exp per query row (FA2 §3.1.1).
{
  const model = core.modelPreset('llama3-8b');
  const heads = model.qHeads.value, layers = model.layers.value;
  for (const N of [8192, 131072]) {
    const fp = core.scoreMatrixFootprint({ seqLen: N, heads, layers, elementBytes: 2 });
    values[`scores.head.${N}`] = bytes(fp.perHeadBytes);
    values[`scores.layer.${N}`] = bytes(fp.perLayerBytes);
  }
  values['lse.head.8192'] = bytes(8192 * 4);
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
      ['Volta (sm_70)', 'V100', 'no: on the 0.2 roadmap, never released', 'no', 'no', `${fp8('v100-sxm2-32gb')} (V100)`],
      ['Turing (sm_75)', 'T4, RTX 2080', 'yes, FP16', 'no: the README points to a separate flash-attention-turing repository, "a core subset of FlashAttention features"', 'no', `${fp8('t4')} (T4)`],
      ['Ampere (sm_80, sm_86)', 'A100, RTX 3090', 'yes, FP16 and BF16', 'yes, FP16 and BF16', 'at release no; since March 2025 the hopper/ build, without Hopper\'s features', `${fp8('a100-sxm-80gb')} (A100)`],
      ['Ada (sm_89)', 'RTX 4090, L40S', 'yes, from 1.0', 'yes, FP16 and BF16', 'at release no; since March 2025 the hopper/ build, without Hopper\'s features', `${fp8('rtx-4090')} (RTX 4090)`],
      ['Hopper (sm_90)', 'H100, H800', 'yes, from 1.0, without Hopper\'s TMA and WGMMA', 'yes, without Hopper\'s TMA and WGMMA', 'yes: FP16/BF16 forward and backward, FP8 forward', `${fp8('h100-sxm')} (H100 SXM)`],
      ['Blackwell (sm_100)', 'B200', 'not listed', 'not listed', 'not listed', `${fp8('b200')} (B200)`],
    ],
    notes: [
      '"not listed": the release\'s README names neither support nor lack of it. FlashAttention-4 (CuTeDSL) targets Hopper and Blackwell.',
    ],
    source: `${README}: v0.2 ("Turing or Ampere GPUs"; V100 on the roadmap), 1.0–1.0.9 ("Turing, Ampere, Ada, or Hopper GPUs") and main branch (FA2: "Ampere, Ada, or Hopper GPUs", Turing in the separate flash-attention-turing repository; FA3: "H100 / H800"); FA3 on Ampere and Ada: flash-attention issues #1049 (2025-03-03) and #1481; FA2 on Hopper: ${FA2}, §4.1. FP8: ${CORE_PRESETS}.`,
  };
}

// --- FA1 vs FA2 work partition ----------------------------------------------------------------
{
  const HEADS = 16, SEQ_LEN = 8192, BLOCK_Q = 128, BLOCK_K = 128;
  values['partition.heads'] = integer(HEADS);
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
      if (batch === 1 && gpu === 'a100-sxm-80gb') values['partition.a100.b1.speedup'] = times(a.makespanTiles / b.makespanTiles, 1);
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
      'Model prediction. FA1: one thread block per (batch, head); FA2: one per (batch, head, 128 queries), handed to SMs in launch order. Counts only this effect.',
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
      if (s.name === 'pingpong') values[`fa3.${precision}.pingpong`] = times(s.steadySpeedup, 2);
    }
    values[`fa3.${precision}.gemm_ns`] = fixed(result.opTimes.gemm0S * 1e9, 0);
    values[`fa3.${precision}.softmax_ns`] = fixed(result.opTimes.softmaxS * 1e9, 0);
  }
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
      'Model prediction, steady state: two consumer warpgroups of 64 query rows, a producer loading K and V with TMA. Softmax time counts the exponentials only; latencies and register pressure are not modelled, so these are upper bounds.',
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
    fp8_flash_per_tensor: 'FP8, one scale per tensor, FlashAttention loop',
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
      'Model (N = 512): inputs N(0, 1) plus, with probability 0.001, an N(0, 100) outlier (FA3 §4.3), with the roundings of FP16 and FP8 kernels emulated. Reported: the paper\'s measurement; "—": no matching row. Block quantisation compares with the per-tensor row on the same loop: with outliers in 0.1% of entries every block holds several, so its scales are barely finer; which of the two is lower changes with the seed.',
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
  // What the papers report (FLOP/s, measured figures only); the rows below cite where. FA1's best on
  // the A100 is the FA2 blog's "up to 124 TFLOP/s" (25–40% of peak); FA2 §1 adds that FA1's forward
  // pass reached 30–50%, a range, so no TFLOP/s figure is derived from it. FlashAttention-2's best is
  // 230 TFLOP/s. The FA2 paper's 335 TFLOP/s on the H100 is forward + backward (its Fig. 7).
  const reported = { fa1A100: 124e12, fa2A100: 230e12, fa2EndToEndA100: 225e12, fa2FwdBwdH100: 335e12, fa3H100: 740e12, fa3Fp8H100: 1.2e15 };

  values['bench.fa2.a100.ceiling'] = tflops(fa2CeilingA100);
  values['bench.fa2.h100.ceiling'] = tflops(fa2CeilingH100);
  values['bench.fa2.h100.reported.share'] = perCent(reported.fa2FwdBwdH100 / h100Peak, 1);
  values['bench.fa3.h100.reported.share'] = perCent(reported.fa3H100 / h100Peak, 1);
  values['bench.fa3fp8.h100.reported.share'] = perCent(reported.fa3Fp8H100 / h100Fp8, 0);
  values['bench.e2e.a100.share'] = perCent(reported.fa2EndToEndA100 / a100Peak, 1);
  values['bench.fa1.a100.ceiling'] = tflops(fa1A.attainedFlopsPerS);
  values['bench.fa3.h100.cluster_ceiling'] = tflops(fa3CeilingH100);
  values['bench.fa3fp8.h100.over_ceiling'] = times(reported.fa3Fp8H100 / fa2CeilingH100Fp8, 2);

  tables.benchmarks = {
    caption: 'No-L2-reuse bounds from the model beside what the papers measured (attention forward pass unless stated, FP16/BF16)',
    columns: [
      { label: 'Kernel and GPU' },
      { label: 'Model: no-L2-reuse bound (% of dense peak)', numeric: true },
      { label: 'Reported (% of dense peak, computed)' },
      { label: 'Reported in' },
    ],
    rows: [
      ['Standard attention, A100 80GB', ceilingCell(stdA.attainedFlopsPerS, a100Peak), 'FA2 is "3–10× faster than a standard attention implementation"', `${FA2}, §4.1`],
      ['FlashAttention-1, A100', ceilingCell(fa1A.attainedFlopsPerS, a100Peak), `up to ${reportedCell(reported.fa1A100, a100Peak)}; 25–40% of the theoretical maximum, forward pass 30–50%`, `Dao 2023, FlashAttention-2 blog post (124 TFLOP/s, 25–40%); ${FA2}, §1 (forward pass, 30–50%)`],
      ['FlashAttention-2, A100', ceilingCell(fa2CeilingA100, a100Peak), `up to ${reportedCell(reported.fa2A100, a100Peak)}; "50–73% of the theoretical maximum"`, `${FA2}, abstract, §1 and §4`],
      ['FlashAttention-2, GPT-style training end to end, A100', 'not modelled (whole model)', `${reportedCell(reported.fa2EndToEndA100, a100Peak)} per GPU; "72% model FLOPs utilization"`, `${FA2}, abstract`],
      ['Standard attention, H100 SXM5', ceilingCell(stdH.attainedFlopsPerS, h100Peak), 'not reported as a single figure', '—'],
      ['FlashAttention-2, H100 SXM5', ceilingCell(fa2CeilingH100, h100Peak), `up to ${reportedCell(reported.fa2FwdBwdH100, h100Peak)} for forward and backward together; "only 35% utilization"`, `${FA2}, §4.1 and Fig. 7 (335 TFLOP/s, forward + backward); ${FA3}, abstract (35%)`],
      ['FlashAttention-3, H100 SXM5', ceilingCell(fa3CeilingH100, h100Peak), `up to ${reportedCell(reported.fa3H100, h100Peak)}`, `${FA3}, abstract`],
      ['FlashAttention-3 FP8, H100 SXM5', ceilingCell(fa2CeilingH100Fp8, h100Fp8), `close to ${tflops(reported.fa3Fp8H100)} (${perCent(reported.fa3Fp8H100 / h100Fp8)} of the dense FP8 peak)`, `${FA3}, abstract`],
    ],
    notes: [
      `Model: the roofline at N = 8,192, head dimension 128, batch 2 × 16 heads (FA2's benchmark shape at 8k). FlashAttention-2 and -3 use FA2's loop order, queries in blocks of 128 (256 for FA3 FP16, whose kernel pairs thread blocks and multicasts K/V to both: hopper/flash_fwd_launch_template.h), so the intensity approaches 128 FLOP/byte: ${fixed(fa2Intensity, 1)} in FP16, ${fixed(fa2IntensityFp8, 1)} in FP8. Every tile load is charged to HBM: a no-L2-reuse bound, which kernels whose re-reads hit the ${bytes(H100.l2Bytes.value)} L2 can exceed, as FA3 FP8 does.`,
      'Percentages: reported FLOP/s ÷ the dense peak (A100 312, H100 SXM5 989.5 FP16 / 1,979 FP8 TFLOP/s). FA3 figures are the arXiv version\'s; the NeurIPS 2024 version reports up to 840 TFLOP/s (BF16) and 1.3 PFLOP/s (FP8).',
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
      { label: 'Key\u00a0\\(j\\)', numeric: true }, { label: 'Tile', numeric: true }, { label: 'Score\u00a0\\(s_j\\)', numeric: true }, { label: 'Value\u00a0\\(v_j\\)', numeric: true },
      { label: 'Weight \\(e^{s_j - m}\\) when its tile arrives', numeric: true }, { label: 'Final probability\u00a0\\(p_j\\)', numeric: true },
    ],
    rows: keyRows,
    notes: ['Scores are \\(q \\cdot k_j / \\sqrt{4}\\). The weight column uses the running maximum \\(m\\) right after the key\'s own tile; the last column is the dense softmax over all 8 keys.'],
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
      { label: 'Step' }, { label: 'Tile max', numeric: true }, { label: 'Running max\u00a0\\(m\\)', numeric: true }, { label: 'Rescale \\(\\alpha = e^{m_\\text{old} - m_\\text{new}}\\)', numeric: true },
      { label: 'Running sum ℓ', numeric: true }, { label: 'Accumulator acc', numeric: true }, { label: 'Output acc / ℓ', numeric: true },
    ],
    rows: stateRows,
    notes: [`The query is q = ${vec(input.q)}. At tile 1 the rescale factor is 0: nothing had been accumulated, so there is nothing to convert (the core's convention for \\(m_\\text{old} = -\\infty\\)). The log-sum-exp m + log ℓ = ${f3(trace.lse[0])} matches the dense ${f3(dense.lse[0])}.`],
    source: `Computed by the core: \`flashForwardTrace\` (FlashAttention-2 loop, Br = 1, Bc = 4) and \`sdpa\`, seed ${SEED} as in the online-softmax figure.`,
  };
}

// ---------------------------------------------------------------------------------------------

await writeGenerated('part3', 'scripts/post-data/part3.mjs', { tables, values });
