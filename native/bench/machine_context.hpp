#pragma once
// Adds what the binary itself knows about the machine and build to the benchmark context (and so
// to the JSON output): CPU model, hardware threads, the compiler that built it, the attention
// code's build type and flags (with the CUDA kernels' nvcc flags and architectures in a CUDA
// build), the vector ISA it was compiled for and the CPU's, OpenBLAS's kernel, and in a CUDA build
// the GPU, its clocks and CUDA versions (gpu_device.hpp, add_gpu_context).
// The run script adds what only the shell knows (commit, date, command, GPU driver) through
// ATTN_BENCH_CONTEXT_<KEY> environment variables, which this function copies in as <key>.
namespace attn::bench {

void add_machine_context();

}  // namespace attn::bench
