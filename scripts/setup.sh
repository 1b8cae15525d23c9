#!/usr/bin/env bash
# Installs everything the build and the tests need on a fresh Debian 12 machine, idempotently:
# Debian packages (only those missing) and the npm packages pinned by package-lock.json.
# Runs as root, or through sudo when not root.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake            # native build
  doctest-dev libbenchmark-dev     # C++ unit tests, benchmarks
  libopenblas-dev pkg-config       # the benchmarks' standard-attention baseline (OpenBLAS sgemm)
  emscripten                       # WebAssembly build (3.1.6)
  clang-14 libclang-rt-14-dev      # the core's libFuzzer target (make fuzz)
  hugo                             # static site (0.111.3)
  chromium                         # browser tests (driven by playwright-core)
  nodejs npm                       # visualizations, WASM tests (only installed if node is absent)
)
missing=()
for p in "${packages[@]}"; do
  case "$p" in
    nodejs|npm) command -v node >/dev/null && command -v npm >/dev/null && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing Debian packages: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

# npm ci is exact but slow; skip it when node_modules was installed from this very lockfile.
stamp=node_modules/.installed-from-lock
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_sum" ]; then
  npm ci --no-audit --no-fund
  echo "$lock_sum" > "$stamp"
fi
