#!/usr/bin/env bash
# `make bench`: builds the benchmark binary, runs every benchmark with its provenance, and writes
# the site's data file site/data/bench/<machine>.json (scripts/bench-to-site.mjs).
#
#   - With nvcc at /usr/local/cuda/bin and a GPU that nvidia-smi lists, the `cuda` preset is built
#     (build/cuda) and the CUDA kernels are benchmarked next to the CPU ones; otherwise `native`.
#   - BENCH_BUILD_DIR=dir uses an already-configured build directory instead of the preset's.
#   - BENCH_MACHINE=label names the data file (default: gpu-<gpu name>, or cpu-<cpu model>-family<F>-model<M>-<threads>t).
#   - Extra arguments go to the binary (e.g. --benchmark_filter=flash).
# Raw outputs stay in build/bench/: run.json (Google Benchmark JSON with the context block) and
# summary.json (the ratios and the roofline model's predictions).
set -euo pipefail
cd "$(dirname "$0")/.."

gpu=""
if [ -x /usr/local/cuda/bin/nvcc ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n1)
fi
preset=$([ -n "$gpu" ] && echo cuda || echo native)
build=${BENCH_BUILD_DIR:-build/$preset}
if [ -z "${BENCH_BUILD_DIR:-}" ]; then cmake --preset "$preset" >/dev/null; fi
cmake --build "$build" --target bench_attention -j2

# OpenBLAS's runtime dispatch may not pick its best kernels for a recent CPU (this project's
# Sapphire Rapids VMs get the AVX2 "Haswell" ones, and their environment pins
# OPENBLAS_CORETYPE=Haswell). On an AVX-512 CPU the benchmark asks for the AVX-512 kernels, so the
# baseline and the sgemm ceiling are the fastest this library offers; BENCH_OPENBLAS_CORETYPE
# overrides the choice. The kernel used is recorded in the run's context.
if [ -n "${BENCH_OPENBLAS_CORETYPE:-}" ]; then
  export OPENBLAS_CORETYPE=$BENCH_OPENBLAS_CORETYPE
elif grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  export OPENBLAS_CORETYPE=SkylakeX
fi

mkdir -p build/bench
binary="$build/native/bench/bench_attention"
args=(--benchmark_out=build/bench/run.json --benchmark_out_format=json --summary_out=build/bench/summary.json "$@")
# Provenance the binary cannot know, handed over as ATTN_BENCH_CONTEXT_<KEY> variables (Google
# Benchmark's --benchmark_context cannot carry '=' or ',' in a value); the binary adds each to the
# JSON context block as <key>.
# A run is marked dirty when anything it is built from differs from the commit (bench-provenance.sh).
export ATTN_BENCH_CONTEXT_COMMIT="$(scripts/bench-provenance.sh)"
export ATTN_BENCH_CONTEXT_DATE="$(date -u +%FT%TZ)"
export ATTN_BENCH_CONTEXT_COMMAND="make bench: $(printf '%q ' ${OPENBLAS_CORETYPE:+OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE} "$binary" "${args[@]}")"
export ATTN_BENCH_CONTEXT_CMAKE_PRESET="$preset"
export ATTN_BENCH_CONTEXT_OS="$(uname -sr)"
export ATTN_BENCH_CONTEXT_GPU="${gpu:-none}"
if [ -n "$gpu" ]; then
  export ATTN_BENCH_CONTEXT_NVCC="$(/usr/local/cuda/bin/nvcc --version | tail -n1)"
  # Clocks before the run (current and maximum, SM and memory, MHz), where the driver reports them:
  # a GPU held at a lower application clock runs every kernel slower.
  export ATTN_BENCH_CONTEXT_GPU_CLOCKS="$(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem \
    --format=csv,noheader 2>/dev/null | head -n1 | sed 's/^/sm, max sm, memory, max memory: /' || true)"
fi
"$binary" "${args[@]}"
node scripts/bench-to-site.mjs build/bench/run.json build/bench/summary.json
