// Combines per-split online-softmax states into the final attention output: the reduction step of
// split-K decoding (Flash-Decoding), where the keys of one long row are divided among thread
// blocks that each produce a partial (m, l, acc) and this kernel merges them.
//
// What it demonstrates: the device code calls the very same attn::online_softmax::merge and
// finalize that the CPU reference, the tiled algorithm and the WebAssembly build use (ATTN_HD),
// so the merge rule is written, and tested, once.
// What it costs: one read of every partial state and one write of the output; no score is
// recomputed. One thread block per row, one thread per output column.
#include <cstddef>
#include <string>

#include "attention_kernels.hpp"
#include "attn/attention/online_softmax.hpp"
#include "attn/error.hpp"
#include "cuda_compat.hpp"

namespace attn::cuda {
namespace {

// partial_m/l: [rows, splits]; partial_acc: [rows, splits, value_dim]; out: [rows, value_dim];
// lse: [rows]. Thread c handles column c of every split of row blockIdx.x.
__global__ void merge_partial_states_kernel(const float* partial_m, const float* partial_l, const float* partial_acc,
                                            int splits, int value_dim, float* out, float* lse) {
    const int row = static_cast<int>(blockIdx.x);
    for (int c = threadIdx.x; c < value_dim; c += blockDim.x) {
        online_softmax::State<float> state;
        float acc = 0.0f;
        for (int s = 0; s < splits; ++s) {
            // In size_t: rows * splits may exceed 2^31 (rows up to 2^31 - 1, splits up to 1024).
            const std::size_t idx = static_cast<std::size_t>(row) * splits + s;
            const online_softmax::State<float> part{partial_m[idx], partial_l[idx]};
            const float part_acc = partial_acc[idx * value_dim + c];
            online_softmax::merge(state, &acc, part, &part_acc, 1);
        }
        const float row_lse = online_softmax::finalize(state, &acc, 1, &out[static_cast<std::size_t>(row) * value_dim + c]);
        if (c == 0) lse[row] = row_lse;
    }
}

}  // namespace

void merge_partial_states(const float* partial_m, const float* partial_l, const float* partial_acc, int rows,
                          int splits, int value_dim, float* out, float* lse, cudaStream_t stream) {
    if (rows < 1 || rows > 2147483647) throw Error("rows: must be in [1, 2^31 - 1], got " + std::to_string(rows));
    if (splits < 1 || splits > 1024) throw Error("splits: must be in [1, 1024], got " + std::to_string(splits));
    if (value_dim < 1 || value_dim > 1024) {
        throw Error("value_dim: must be in [1, 1024], got " + std::to_string(value_dim));
    }
    if (!partial_m || !partial_l || !partial_acc || !out || !lse) throw Error("pointers: must not be null");
    const int threads = value_dim < 128 ? ((value_dim + 31) / 32) * 32 : 128;
    launch_kernel("merge_partial_states", merge_partial_states_kernel, dim3(rows), dim3(threads), 0, stream,
                  partial_m, partial_l, partial_acc, splits, value_dim, out, lse);
}

}  // namespace attn::cuda
