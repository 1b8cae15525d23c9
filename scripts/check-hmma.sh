#!/usr/bin/env bash
# Checks that the tensor-core flash kernels use the instructions they are written for, in every
# instantiation (FP16/BF16 x head dim 64/128) and for every architecture built (sm_80, sm_90):
#   v2 flash_forward_tensor_core_kernel  SASS: HMMA                   PTX: wmma.mma.sync
#   v3 flash_forward_mma_kernel          SASS: HMMA, LDSM, LDGSTS     PTX: mma.sync m16n8k16, ldmatrix, cp.async
# (LDSM is ldmatrix's SASS, LDGSTS cp.async's.) SASS comes from `cuobjdump -sass` on the objects
# nvcc produced.
#
# Usage: scripts/check-hmma.sh [BUILD_DIR]   (default build/cuda, the `make cuda` build)
#
# Some CUDA installations (the pip wheels this project's machines use) ship nvcc and ptxas but
# not cuobjdump. There the script says so and checks one level up instead: the PTX that nvcc
# hands to ptxas. That is weaker (it trusts ptxas to lower mma.sync to HMMA, ldmatrix to LDSM and
# cp.async to LDGSTS, the only way it can on sm_80/sm_90) and is labelled as such in the output.
set -euo pipefail

build_dir=${1:-build/cuda}
root=$(cd "$(dirname "$0")/.." && pwd)
cuda_bin=${CUDA_BIN:-/usr/local/cuda/bin}
expected_per_arch=4  # {__half, __nv_bfloat16} x {64, 128}
archs=(80 90)

# Reads "ARCH n" / "FUNCTION name" headers and instruction lines on stdin; prints one line per
# instantiation of $kernel with its count of instructions matching $pattern; fails if any has
# none or if an architecture lacks instantiations.
count_per_kernel() {
    local kernel=$1 pattern=$2 label=$3
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
        }' | sort
    return "${PIPESTATUS[0]}"
}

cuobjdump=$(command -v cuobjdump || true)
[[ -n $cuobjdump ]] || cuobjdump=$cuda_bin/cuobjdump

# SASS (or PTX) listing of one kernel source with ARCH / FUNCTION headers, on stdout.
listing() {
    local source=$1
    if [[ -x $cuobjdump ]]; then
        # "code for sm_80" opens an architecture, "Function : <name>" a kernel.
        "$cuobjdump" -sass "$build_dir/native/cuda/CMakeFiles/attn_cuda.dir/$source.o" |
            sed -E -e 's/^[[:space:]]*code for sm_([0-9]+).*/ARCH \1/' \
                   -e 's/^[[:space:]]*Function : ([^[:space:]]+).*/FUNCTION \1/'
    else
        for arch in "${archs[@]}"; do
            "$cuda_bin/nvcc" -std=c++20 --expt-relaxed-constexpr -arch="sm_$arch" -ptx \
                -I"$root/core/include" -I"$root/native/cuda" "$root/native/cuda/$source" -o - |
                sed -E -e "1i ARCH $arch" -e 's/^[[:space:]]*(\.visible[[:space:]]+)?\.entry[[:space:]]+([^(]+)\(.*/FUNCTION \2/'
        done
    fi
}

# check SOURCE KERNEL "SASS_PATTERN ..." "PTX_PATTERN ...": every pattern in every instantiation.
check() {
    local source=$1 kernel=$2 patterns
    [[ -f $build_dir/native/cuda/CMakeFiles/attn_cuda.dir/$source.o ]] || { echo "check-hmma: $source.o not found in $build_dir (build attn_cuda first)"; exit 1; }
    if [[ -x $cuobjdump ]]; then patterns=$3; else patterns=$4; fi
    local text
    text=$(listing "$source")
    for pattern in $patterns; do
        count_per_kernel "$kernel" "$pattern" "${pattern//\\/}" <<<"$text" ||
            { echo "check-hmma: FAILED: an instantiation of $kernel has no $pattern"; exit 1; }
    done
}

if [[ -x $cuobjdump ]]; then
    echo "check-hmma: SASS from $cuobjdump -sass"
else
    echo "check-hmma: cuobjdump not found (PATH, $cuda_bin): checking the PTX instead of the SASS"
    echo "check-hmma: (weaker than the SASS check: install cuobjdump to see HMMA, LDSM and LDGSTS themselves)"
fi
check flash_forward_tensor_core.cu flash_forward_tensor_core_kernel "HMMA" 'wmma\.mma\.sync'
check flash_forward_mma.cu flash_forward_mma_kernel "HMMA LDSM LDGSTS" \
    'mma\.sync\.aligned\.m16n8k16 ldmatrix\.sync\.aligned\.m8n8\.x4\.shared ldmatrix\.sync\.aligned\.m8n8\.x4\.trans cp\.async\.cg\.shared\.global cp\.async\.wait_group'
if [[ -x $cuobjdump ]]; then
    echo "check-hmma: every tensor-core kernel contains its tensor-core and data-movement instructions (SASS)"
else
    echo "check-hmma: every tensor-core kernel contains its tensor-core and data-movement instructions (PTX; SASS not checked)"
fi
