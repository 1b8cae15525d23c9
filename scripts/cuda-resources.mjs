#!/usr/bin/env node
// Registers, spills, shared memory per block and theoretical occupancy of every CUDA kernel, per
// architecture, from the `ptxas -v` output of `make cuda` (build/cuda/ptxas.log). No GPU is needed:
// occupancy is computed as the CUDA occupancy calculator does, from the per-SM limits of the
// architecture and the kernel's registers, shared memory and threads per block.
// `make cuda` appends each build's output to the log, and an incremental build compiles only the
// kernels whose sources changed, so a kernel may appear more than once: its newest entry counts.
//
// Usage: node scripts/cuda-resources.mjs [build/cuda/ptxas.log]
// Fails (exit 1) if any kernel spills registers or lacks a launch configuration below.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

// Per-SM limits (CUDA Programming Guide, "Compute Capabilities", technical specifications):
// 64K 32-bit registers allocated per warp in units of 256; shared memory per SM (the largest
// carve-out) with 1 KB reserved by the system per block, allocated in 128-byte units.
const ARCHS = {
  80: { name: 'sm_80 (A100)', registers: 65536, sharedBytes: 164 * 1024, maxWarps: 64, maxBlocks: 32 },
  90: { name: 'sm_90 (H100)', registers: 65536, sharedBytes: 228 * 1024, maxWarps: 64, maxBlocks: 32 },
};
const REGISTER_UNIT = 256;
const RESERVED_SHARED_PER_BLOCK = 1024;
const SHARED_UNIT = 128;

// How the launchers in native/cuda/ start each kernel: threads per block and dynamic shared
// memory by head dim (the SharedLayout sizes the kernels' header comments state; the emulated
// launcher tests assert the d = 128 figures). merge_partial_states uses up to 128 threads.
const LAUNCHES = {
  flash_forward_fp32_kernel: { threads: 128, dynamicBytes: () => 0 },
  flash_forward_tensor_core_kernel: { threads: 128, dynamicBytes: (d) => ({ 64: 54272, 128: 78848 })[d] },
  flash_forward_mma_kernel: { threads: 128, dynamicBytes: (d) => ({ 64: 40960, 128: 81920 })[d] },
  paged_decode_split_kernel: { threads: 128, dynamicBytes: () => 0 },
  masked_softmax_kernel: { threads: 128, dynamicBytes: () => 0 },
  merge_partial_states_kernel: { threads: 128, dynamicBytes: () => 0 },
};

const log = readFileSync(process.argv[2] ?? 'build/cuda/ptxas.log', 'utf8');
const kernels = [];
let current = null;
for (const line of log.split('\n')) {
  let m = line.match(/Compiling entry function '([^']+)' for 'sm_(\d+)'/);
  if (m) {
    current = { mangled: m[1], arch: Number(m[2]), registers: 0, staticBytes: 0, spillStores: 0, spillLoads: 0 };
    kernels.push(current);
    continue;
  }
  if (!current) continue;
  if ((m = line.match(/(\d+) bytes spill stores, (\d+) bytes spill loads/))) {
    current.spillStores = Number(m[1]);
    current.spillLoads = Number(m[2]);
  } else if ((m = line.match(/Used (\d+) registers/))) {
    current.registers = Number(m[1]);
    const smem = line.match(/(\d+) bytes smem/);
    current.staticBytes = smem ? Number(smem[1]) : 0;
  }
}
// The newest entry of each (kernel, architecture), in the order of first appearance.
const newest = new Map();
for (const k of kernels) newest.set(`${k.mangled} ${k.arch}`, k);
kernels.splice(0, kernels.length, ...newest.values());
if (kernels.length === 0) {
  console.error('cuda-resources: no "Compiling entry function" lines in the ptxas log');
  process.exit(1);
}

const demangled = spawnSync('c++filt', { input: kernels.map((k) => k.mangled).join('\n'), encoding: 'utf8' });
const names = demangled.status === 0 ? demangled.stdout.trim().split('\n') : kernels.map((k) => k.mangled);
kernels.forEach((k, i) => {
  const full = names[i];
  k.base = Object.keys(LAUNCHES).find((name) => full.includes(name)) ?? full;
  const args = full.match(/<([^<>]*)>\(/);
  k.label = args ? `${k.base}<${args[1].replace(/\(int\)/g, '')}>` : k.base;
  const headDim = args ? Number(args[1].split(',').pop()) : NaN;
  k.headDim = headDim;
});

const ceilTo = (x, unit) => Math.ceil(x / unit) * unit;
let failed = false;
const rows = [];
for (const k of kernels) {
  const arch = ARCHS[k.arch];
  const launch = LAUNCHES[k.base];
  if (!arch || !launch) {
    console.error(`cuda-resources: no ${arch ? 'launch configuration' : 'limits'} for ${k.label} on sm_${k.arch}`);
    failed = true;
    continue;
  }
  const warps = Math.ceil(launch.threads / 32);
  const dynamicBytes = launch.dynamicBytes(k.headDim) ?? 0;
  const blockShared = ceilTo(k.staticBytes + dynamicBytes + RESERVED_SHARED_PER_BLOCK, SHARED_UNIT);
  const limits = {
    threads: Math.floor(arch.maxWarps / warps),
    registers: Math.floor(Math.floor(arch.registers / ceilTo(k.registers * 32, REGISTER_UNIT)) / warps),
    shared: Math.floor(arch.sharedBytes / blockShared),
    blocks: arch.maxBlocks,
  };
  const blocks = Math.min(...Object.values(limits));
  const limiter = Object.keys(limits).filter((name) => limits[name] === blocks).join(', ');
  if (k.spillStores > 0 || k.spillLoads > 0) failed = true;
  rows.push([
    `sm_${k.arch}`, k.label, String(k.registers), `${k.spillStores}/${k.spillLoads}`,
    String(k.staticBytes + dynamicBytes), String(launch.threads), `${blocks} (${limiter})`,
    `${blocks * warps}/${arch.maxWarps} = ${Math.round((100 * blocks * warps) / arch.maxWarps)} %`,
  ]);
}
const header = ['arch', 'kernel', 'regs', 'spill st/ld B', 'smem/block B', 'threads', 'blocks/SM (limit)', 'warps/SM occupancy'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const format = (r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ');
console.log('cuda-resources: ptxas -v figures and theoretical occupancy (no GPU: computed, not measured)');
console.log(format(header));
rows.sort((a, b) => (a[1] + a[0]).localeCompare(b[1] + b[0])).forEach((r) => console.log(format(r)));
if (failed) {
  console.error('cuda-resources: FAILED (register spills, or a kernel without limits or a launch configuration)');
  process.exit(1);
}
