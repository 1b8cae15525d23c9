#pragma once
// Where unfused standard attention spends its forward-pass time, one kernel at a time: the
// picture FlashAttention's Figure 1 (Dao et al., NeurIPS 2022) measures for PyTorch's attention
// on GPT-2, where the elementwise kernels (mask, softmax, dropout) take most of the time although
// the two matrix products hold all of the FLOPs. Each operation is a separate launch that reads
// its inputs from HBM and writes its output back:
//   matmul_qk  S = Q K^T          reads Q, and K once per block of block_q query rows; writes S
//   mask       S = mask(S)        reads S, writes S       (only under a causal mask)
//   softmax    P = softmax(S)     reads S, writes P       (a row fits on chip: one read, one write)
//   dropout    P = dropout(P)     reads P, writes P       (only when dropout is on; the random
//                                                          mask PyTorch keeps for backward is not counted)
//   matmul_pv  O = P V            reads P, and V once per block of block_q rows; writes O
// Without mask and dropout the byte total is standard_attention_io's forward count. Times come
// from the roofline: a product takes max(FLOPs / peak, bytes / bandwidth); an elementwise pass
// takes bytes / bandwidth (its few FLOPs per byte are far below any ridge point, and are not
// counted). Launch overheads and caches are not modelled: a bound from below, per operation.
#include <string_view>
#include <vector>

#include "attn/cost/attention_cost.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"

namespace attn::cost {

enum class OperationKind { matmul, elementwise };
std::string_view operation_kind_name(OperationKind kind);  // "matmul", "elementwise"

struct OperationCost {
    std::string_view name;  // "matmul_qk", "mask", "softmax", "dropout", "matmul_pv"
    OperationKind kind;
    double flops;           // 0 for the elementwise passes
    double hbm_bytes;       // read + written, all batches and heads
    double time_s;          // roofline time of this launch alone
};

// Operations in execution order. Throws attn::Error for an invalid shape or block_q (outside
// [1, 2^24]), a precision the GPU does not support, or a GPU without a published bandwidth.
std::vector<OperationCost> standard_attention_forward_breakdown(const AttentionShape& shape, const GpuPreset& gpu,
                                                                Precision precision, std::size_t block_q,
                                                                bool dropout);

}  // namespace attn::cost
