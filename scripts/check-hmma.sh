#!/usr/bin/env bash
# Checks that the tensor-core flash kernel really runs on tensor cores: every instantiation of
# flash_forward_tensor_core_kernel (FP16/BF16 x head dim 64/128), for every architecture built
# (sm_80, sm_90), must contain HMMA instructions in its SASS, as shown by `cuobjdump -sass` on
# the object nvcc produced.
#
# Usage: scripts/check-hmma.sh [BUILD_DIR]   (default build/cuda, the `make cuda` build)
#
# Some CUDA installations (the pip wheels this project's machines use) ship nvcc and ptxas but
# not cuobjdump. There the script says so and checks one level up instead: the PTX that nvcc
# hands to ptxas must contain wmma.mma.sync in every instantiation, for each architecture. That
# is weaker (it trusts ptxas to lower wmma.mma.sync to HMMA, the only way it can on sm_80/sm_90)
# and is labelled as such in the output.
set -euo pipefail

build_dir=${1:-build/cuda}
root=$(cd "$(dirname "$0")/.." && pwd)
cuda_bin=${CUDA_BIN:-/usr/local/cuda/bin}
object=$build_dir/native/cuda/CMakeFiles/attn_cuda.dir/flash_forward_tensor_core.cu.o
kernel=flash_forward_tensor_core_kernel
expected_per_arch=4  # {__half, __nv_bfloat16} x {64, 128}
archs=(80 90)

[[ -f $object ]] || { echo "check-hmma: $object not found (build attn_cuda first)"; exit 1; }

# Reads "arch function" headers and instruction lines on stdin; prints one line per kernel
# instantiation with its count of matching instructions; fails if any has none or if an
# architecture lacks instantiations.
count_per_kernel() {
    local pattern=$1 label=$2
    awk -v pattern="$pattern" -v label="$label" -v kernel="$kernel" -v expected="$expected_per_arch" -v archs="${archs[*]}" '
        /^ARCH / { arch = $2; next }
        /^FUNCTION / { fn = $2; if (index(fn, kernel)) { key = arch " " fn; count[key] += 0; per_arch[arch]++ } else fn = ""; next }
        fn != "" && $0 ~ pattern { count[arch " " fn]++ }
        END {
            status = 0
            for (key in count) {
                split(key, part, " ")
                name = part[2]; sub(/.*_kernelI/, "<", name); sub(/EEEv.*/, ">", name)
                sub(/<[0-9]+/, "<", name); sub(/Li/, ", ", name)
                printf "  sm_%s %s%s: %d %s\n", part[1], kernel, name, count[key], label
                if (count[key] == 0) status = 1
            }
            n = split(archs, want, " ")
            for (i = 1; i <= n; i++) {
                if (per_arch[want[i]] != expected) {
                    printf "  sm_%s: %d instantiations of %s, expected %d\n", want[i], per_arch[want[i]], kernel, expected
                    status = 1
                }
            }
            exit status
        }'
}

cuobjdump=$(command -v cuobjdump || true)
[[ -n $cuobjdump ]] || cuobjdump=$cuda_bin/cuobjdump
if [[ -x $cuobjdump ]]; then
    echo "check-hmma: cuobjdump -sass $object"
    # SASS listing: "code for sm_80" opens an architecture, "Function : <name>" a kernel.
    if "$cuobjdump" -sass "$object" |
        sed -E -e 's/^[[:space:]]*code for sm_([0-9]+).*/ARCH \1/' \
               -e 's/^[[:space:]]*Function : ([^[:space:]]+).*/FUNCTION \1/' |
        count_per_kernel 'HMMA' 'HMMA instructions' | sort; then
        echo "check-hmma: every tensor-core kernel contains HMMA instructions"
    else
        echo "check-hmma: FAILED: a tensor-core kernel has no HMMA instruction"; exit 1
    fi
else
    echo "check-hmma: cuobjdump not found (PATH, $cuda_bin): checking the PTX for wmma.mma.sync instead"
    echo "check-hmma: (weaker than the SASS check: install cuobjdump to see the HMMA instructions themselves)"
    for arch in "${archs[@]}"; do
        "$cuda_bin/nvcc" -std=c++20 --expt-relaxed-constexpr -arch="sm_$arch" -ptx \
            -I"$root/core/include" -I"$root/native/cuda" "$root/native/cuda/flash_forward_tensor_core.cu" -o - |
            sed -E -e "1i ARCH $arch" -e 's/^[[:space:]]*(\.visible[[:space:]]+)?\.entry[[:space:]]+([^(]+)\(.*/FUNCTION \2/'
    done | count_per_kernel 'wmma\.mma\.sync' 'wmma.mma.sync instructions' | sort || { echo "check-hmma: FAILED: a tensor-core kernel has no wmma.mma.sync"; exit 1; }
    echo "check-hmma: every tensor-core kernel contains wmma.mma.sync (PTX; SASS not checked)"
fi
