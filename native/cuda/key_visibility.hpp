#pragma once
// Which keys a query row may attend to, for device code: the causal bound is core's
// attn::causal_key_end (ATTN_HD), the boolean mask is read from device memory.
#include <cstdint>

#include "attention_kernels.hpp"
#include "attn/attention/causal.hpp"
#include "attn/host_device.hpp"

namespace attn::cuda {

// One past the last key `row` may see under the causal rule (kv_len when not causal).
ATTN_HD inline int visible_key_end(int row, int q_len, int kv_len, Causal causal) {
    return static_cast<int>(causal_key_end(static_cast<std::size_t>(row), static_cast<std::size_t>(q_len),
                                           static_cast<std::size_t>(kv_len), causal));
}

// Whether the boolean mask (if any) lets query `row` of (batch b, head h) attend to key `key`.
ATTN_HD inline bool mask_allows(const DeviceBoolMask& mask, int b, int h, int row, int key) {
    if (mask.allowed == nullptr) return true;
    return mask.allowed[b * mask.batch_stride + h * mask.head_stride + row * mask.row_stride + key] != 0;
}

}  // namespace attn::cuda
