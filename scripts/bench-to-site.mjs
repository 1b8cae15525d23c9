// Converts one benchmark run (Google Benchmark JSON with its context block, plus the binary's
// summary of ratios and roofline predictions) into site/data/bench/<machine>.json, the file the
// bench-table shortcode reads. Nothing is typed in: every field comes from the run's files.
//
//   node scripts/bench-to-site.mjs build/bench/run.json build/bench/summary.json [out-dir]
//
// The machine label is BENCH_MACHINE when set, otherwise derived from the hardware (never the host
// name): "gpu-<gpu name>" when the run saw a GPU, else "cpu-<cpu model>-family<F>-model<M>-<hardware
// threads>t", with the x86 family and model, since a virtual machine may give different CPUs one
// name ("AMD EPYC" for Zen 4 and Zen 5), whose runs would then overwrite each other's file.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [runPath, summaryPath, outDir = 'site/data/bench'] = process.argv.slice(2);
if (!runPath || !summaryPath) {
  console.error('usage: node scripts/bench-to-site.mjs <run.json> <summary.json> [out-dir]');
  process.exit(2);
}

const run = JSON.parse(readFileSync(runPath, 'utf8'));
const summary = JSON.parse(readFileSync(summaryPath, 'utf8'));
const ctx = run.context ?? {};

const slug = (text) =>
  text
    .toLowerCase()
    .replace(/\((r|tm)\)/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

// The GPU as nvidia-smi names it (scripts/bench.sh), else as the CUDA runtime does (a CUDA build of
// the binary run directly).
const gpu = ctx.gpu && ctx.gpu !== 'none' ? ctx.gpu : (ctx.gpu_name ?? null);
// "AuthenticAMD family 25 model 17 stepping 1" (native/bench/machine_context.cpp) -> "family25-model17".
const cpuGeneration = /family (\d+) model (\d+)/.exec(ctx.cpu_id ?? '');
const cpuLabel = [slug(ctx.cpu_model ?? 'unknown'), ...(cpuGeneration ? [`family${cpuGeneration[1]}`, `model${cpuGeneration[2]}`] : [])];
const machine =
  process.env.BENCH_MACHINE ||
  (gpu ? `gpu-${slug(gpu.split(',')[0])}` : `cpu-${cpuLabel.join('-')}-${ctx.hardware_threads ?? ctx.num_cpus}t`);
if (!/^[a-z0-9][a-z0-9-]*$/.test(machine)) {
  console.error(`BENCH_MACHINE must be lower-case letters, digits and '-', got '${machine}'`);
  process.exit(2);
}

// Names are "<device>/<implementation>/N:<n>/..." (decode: "<device>/<implementation>/<model>/N:<n>",
// N the context); sizes come from the counters.
const benchmarks = run.benchmarks
  .filter((b) => b.run_type === 'iteration' && !b.error_occurred)
  .map((b) => {
    const [device, implementation, third] = b.run_name.split('/');
    const seconds = b.real_time / { ns: 1e9, us: 1e6, ms: 1e3, s: 1 }[b.time_unit];
    const row = {
      name: b.run_name.replace(/\/(process_time|real_time|manual_time)/g, ''),
      device,
      implementation,
      N: b.N,
      d: b.d,
      time_ms: seconds * 1e3,
      iterations: b.iterations,
    };
    if (!third.startsWith('N:')) row.model = third;
    if (b['FLOP/s'] !== undefined) row.tflops = b['FLOP/s'] / 1e12;
    if (b.causal !== undefined) {
      Object.assign(row, {
        causal: b.causal === 1,
        batch: b.batch,
        heads: b.heads,
        gbps: b['bytes/s'] / 1e9,
        // CPU runs count heap bytes per call, CUDA runs device bytes per call (cuda_benchmarks.hpp).
        ...(b.peak_heap_bytes !== undefined && { peak_mib: b.peak_heap_bytes / 2 ** 20 }),
        ...(b.peak_device_bytes !== undefined && { peak_device_mib: b.peak_device_bytes / 2 ** 20 }),
        check_error: b.check_error,
        // CUDA runs: the spread of the timed regions (seconds per launch) and launches per region.
        ...(b.launch_s_median !== undefined && {
          launch_ms: { min: b.launch_s_min * 1e3, median: b.launch_s_median * 1e3, max: b.launch_s_max * 1e3 },
          launches_per_region: b.launches_per_region,
        }),
      });
    }
    // Prefill chunks against a longer cache (q_len != kv_len): S, the keys.
    if (b.S !== undefined && b.S !== b.N) row.S = b.S;
    // CUDA decode: the share of the GPU preset's HBM bandwidth, and how the kernel was launched.
    if (b.hbm_percent !== undefined) row.hbm_percent = b.hbm_percent;
    if (b.splits !== undefined) Object.assign(row, { splits: b.splits, block_size: b.block_size, kv_heads: b.kv_heads });
    if (b.roofline_percent !== undefined) row.roofline_percent = b.roofline_percent;
    if (b.rel_error !== undefined) row.rel_error = b.rel_error;
    return row;
  });

const failed = run.benchmarks.filter((b) => b.error_occurred).map((b) => `${b.name}: ${b.error_message}`);
if (failed.length) {
  console.error(`benchmarks that failed their check or errored (left out):\n  ${failed.join('\n  ')}`);
}

const data = {
  machine,
  provenance: {
    cpu: ctx.cpu_model,
    cpu_id: ctx.cpu_id ?? null,
    hardware_threads: Number(ctx.hardware_threads ?? ctx.num_cpus),
    gpu,
    compiler: ctx.compiler,
    nvcc: ctx.nvcc ?? null,
    gpu_compute_capability: ctx.gpu_compute_capability ?? null,
    gpu_driver: ctx.gpu_driver_release ?? null,
    gpu_clocks: ctx.gpu_clocks || null,
    gpu_peak_clocks: ctx.gpu_peak_clocks ?? null,
    cuda_runtime: ctx.cuda_runtime_version ?? null,
    gpu_roofline_preset: ctx.gpu_roofline_preset ?? null,
    blas: ctx.openblas,
    os: ctx.os,
    commit: ctx.commit,
    date: ctx.date,
    command: ctx.command,
    attention_build: ctx.attention_build ?? null,
    vector_isa: ctx.vector_isa ?? null,
    benchmark_library: `Google Benchmark (its library: ${ctx.library_build_type} build)`,
  },
  benchmarks,
  ratios: summary.ratios,
  // Decode (paged_decode_fast) GB/s beside the streaming read of the same bytes, per model shape
  // and context: the CPU decode table of Part 4.
  decode: summary.decode ?? [],
  // Part 2's approximate methods against exact flash_fast, per N, with each one's crossover N.
  approx: summary.approx ?? null,
  // CUDA paged decode GB/s, share of the preset's HBM bandwidth and of contiguous (CUDA runs only).
  gpu_decode: summary.gpu_decode ?? [],
  predictions: summary.predictions,
};

mkdirSync(outDir, { recursive: true });
const outPath = join(outDir, `${machine}.json`);
writeFileSync(outPath, `${JSON.stringify(data, null, 1)}\n`);
console.log(`Wrote ${outPath} (${benchmarks.length} benchmarks, ${summary.predictions.length} model predictions)`);
