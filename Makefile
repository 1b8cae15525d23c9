# One entry point for building, serving, testing and benchmarking. See README.md.
#   make serve   build everything (core -> WASM -> visualizations -> site), serve on :1313
#   make test    build and run every test: C++ (native + sanitizers), WASM API, site, browser
#   make bench   benchmarks of this machine (CPU; CUDA with a GPU) -> site/data/bench/<machine>.json
SHELL := /bin/bash
.DEFAULT_GOAL := site
NPM_BIN := node_modules/.bin
export NODE_PATH := /usr/share/nodejs

.PHONY: setup native asan tsan fuzz soak wasm viz math data vendor site serve preview posters frame-heights interaction-times bench cuda train \
        test test-native test-asan test-tsan test-fuzz test-wasm test-site test-e2e check-fresh clean

setup:
	@scripts/setup.sh

native: setup
	cmake --preset native
	cmake --build --preset native

asan: setup
	cmake --preset asan
	cmake --build --preset asan

# The emulated CUDA kernel tests and the threaded core code (worker pool, optimised CPU paths)
# under ThreadSanitizer (only those targets are built).
tsan: setup
	cmake --preset tsan
	cmake --build --preset tsan

# The core's public functions under libFuzzer with ASan and UBSan, for FUZZ_SECONDS (default 50),
# starting from the committed corpus tests/fuzz/corpus/; inputs that reach new code go to
# build/fuzz/corpus/ (fold them into the committed one with `fuzz_core -merge=1`). A finding stops
# the run with the input saved in build/fuzz/ (tests/fuzz/README.md).
FUZZ_SECONDS ?= 50
fuzz: setup
	cmake --preset fuzz
	cmake --build --preset fuzz --target fuzz_core
	mkdir -p build/fuzz/corpus
	build/fuzz/tests/fuzz/fuzz_core -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	  -print_final_stats=1 -artifact_prefix=build/fuzz/ build/fuzz/corpus tests/fuzz/corpus

# Hostile-input soak of the WebAssembly modules: CALLS (default 10000) per module on SEEDS
# (default 1,2,3); `make test` runs a short one (tests/wasm/soak.test.mjs).
soak: wasm
	node scripts/soak.mjs

# The shared WebAssembly module, copied into static/wasm/ (committed).
wasm: setup
	cmake --preset wasm
	cmake --build --preset wasm

# The visualizations, built into static/visualizations/ (committed). Type-checked first.
viz: setup
	$(NPM_BIN)/tsc -p site/viz/tsconfig.json
	$(NPM_BIN)/vite build --config site/viz/vite.config.ts --logLevel warn

# Math pre-rendered with KaTeX into site/data/katex.json, KaTeX's CSS and fonts into static/vendor/.
# After data: the computed tables may hold inline math too.
math: setup data
	node scripts/render-math.mjs

vendor: setup
	node scripts/vendor-katex.mjs

# Post tables computed by the WebAssembly core into site/data/generated/ (committed).
data: wasm
	node scripts/post-data/part3.mjs
	node scripts/post-data/part1.mjs
	node scripts/post-data/part2.mjs
	node scripts/post-data/part4.mjs

site: wasm viz math vendor data
	hugo --source site --gc --minify

serve: site
	hugo server --source site --port 1313 --bind 127.0.0.1

# The built site as production serves it, on :1313: built like the Netlify build, with absolute
# URLs (canonical, og:url, sitemap) for this address, into build/preview so that public/ keeps
# the local build; netlify.toml's headers applied.
PREVIEW_URL ?= http://127.0.0.1:1313/
preview: site
	hugo --source site --gc --minify --quiet --baseURL "$(PREVIEW_URL)" --destination ../build/preview
	node scripts/serve-static.mjs build/preview 1313

# Poster stills of the visualizations (static/posters/), shown when scripts are off.
posters: wasm viz vendor
	node scripts/capture-posters.mjs

# Each embedded visualization's height by frame width (site/data/frame_heights.json), which the viz
# shortcode gives its frame so that the post does not move when the figure loads.
frame-heights: wasm viz vendor
	node scripts/measure-frame-heights.mjs

# Each visualization's interaction time (median and p95 over its scripted sweep) on this machine,
# printed as a table; WARM_PASSES=n for more passes, ROUNDS=n to pool n loads of each page,
# CPU_SLOWDOWN=k to run the pages' main thread k times slower (CPU_SLOWDOWN=3 is about an AVX2-only
# AMD host). Not part of `make test`: a number, not a check.
interaction-times: wasm viz vendor
	node scripts/measure-interactions.mjs $(if $(CPU_SLOWDOWN),--cpu-slowdown $(CPU_SLOWDOWN)) $(ARGS)

# Benchmarks of this machine -> site/data/bench/<machine>.json (README "Benchmarks"): the cuda
# preset when nvcc and a GPU are present, native otherwise.
bench: setup
	@scripts/bench.sh

# Part 1's translation models, trained natively by the core (native/tools/train_translation.cpp):
# int8 weights -> static/models/, BLEU by source length -> site/data/generated/bahdanau_training.json
# (both committed). Deterministic on a given machine; about 10 minutes on 2 cores.
train: setup
	cmake --preset native
	cmake --build --preset native --target train_translation
	build/native/native/tools/train_translation --commit "$$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- core native || echo -dirty)"

# CUDA sources, compiled for sm_80 and sm_90 when nvcc is installed (no GPU is needed to compile).
# ptxas reports registers and spills per kernel; a kernel that spills fails the build, and so does
# a tensor-core kernel without its tensor-core and data-movement instructions (check-hmma.sh).
# cuda-resources.mjs prints registers, shared memory per block and occupancy on sm_80 and sm_90 of
# the kernels this (incremental) build compiled. The benchmark binary is built too (compile and
# link check of its CUDA benchmarks; running them needs a GPU).
cuda: setup
	@if [ -x /usr/local/cuda/bin/nvcc ]; then \
	  set -o pipefail; cmake --preset cuda >/dev/null && cmake --build --preset cuda --target attn_cuda bench_attention 2>&1 | tee build/cuda/build.log || exit 1; \
	  cat build/cuda/build.log >> build/cuda/ptxas.log; \
	  node scripts/cuda-resources.mjs build/cuda/ptxas.log || exit 1; \
	  scripts/check-hmma.sh build/cuda || exit 1; \
	else echo "nvcc not found at /usr/local/cuda/bin: skipping the CUDA build"; fi

test: test-native test-asan test-tsan test-fuzz test-wasm cuda check-fresh test-site test-e2e
	@echo "All tests passed."

test-native: native
	ctest --preset native

test-asan: asan
	ctest --preset asan

# A race between the threads of an emulated block (a missing __syncthreads or __syncwarp; emulated
# shuffles order no memory here) or of the worker pool is reported by ThreadSanitizer and fails
# the run.
test-tsan: tsan
	ctest --preset tsan

test-fuzz: fuzz

test-wasm: wasm
	node --test tests/wasm/

test-site: site
	node --test tests/site/

test-e2e: site
	node --test --test-concurrency=1 tests/e2e/

# The committed build output must be what the sources build to now.
check-fresh: site
	@changed=$$(git status --porcelain -- static site/data); \
	if [ -n "$$changed" ]; then \
	  echo "Committed build output differs from a fresh build (rebuild and commit it):"; echo "$$changed"; \
	  git --no-pager diff --stat -- static site/data; exit 1; \
	fi

clean:
	rm -rf build public site/resources
