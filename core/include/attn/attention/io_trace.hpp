#pragma once
// The vocabulary the IO-aware algorithms (standard attention, FlashAttention-1/2 forward, the
// recomputing backward) use to say which bytes moved between HBM and on-chip SRAM in one step of
// a trace. FlashAttention's argument (Dao et al. 2022, arXiv:2205.14135, Section 3.2) is about
// exactly these transfers: a visualization draws one arrow per HbmTransfer.
#include <cstddef>
#include <cstdint>

namespace attn {

// The HBM-resident arrays of one (batch, head) that the algorithms read or write.
enum class HbmMatrix {
    q, k, v, o,      // inputs and output, one row per sequence position
    s, p,            // standard attention's L x S scores and probabilities
    row_max,         // FlashAttention-1's running m, one fp32 per query row
    row_sum,         // FlashAttention-1's running l, one fp32 per query row
    lse,             // log-sum-exp per query row (FlashAttention-2 forward output, backward input)
    d_o, d_q, d_k, d_v,  // gradients of the output and the inputs
    delta,           // D = rowsum(dO o O), one fp32 per query row (FlashAttention-2 backward)
};

enum class HbmDirection { read, write };

// One block moved between HBM and SRAM. Rows are sequence positions of the matrix (query rows for
// Q, O, S, P and the per-row statistics; key rows for K, V, dK, dV); columns are the key range of
// an S or P block and the feature range [0, width) otherwise.
struct HbmTransfer {
    HbmMatrix matrix;
    HbmDirection direction;
    std::size_t row_begin, row_end;
    std::size_t col_begin, col_end;
    std::uint64_t bytes;
};

}  // namespace attn
