#pragma once
// The argument checks paged_decode and paged_decode_fast share (paged_decode.hpp lists them).
// `check_rows` also reads every K/V row a walk will read and rejects a non-finite one: the
// reference does; the fast path, whose cost is one read of those rows, detects a non-finite score
// or output during its walk instead of reading the cache twice.
#include <optional>
#include <vector>

#include "attn/attention/paged_decode.hpp"

namespace attn::detail {

template <class T>
void validate_paged_decode(const Tensor4<T>& q, const Tensor4<T>& key_pool, const Tensor4<T>& value_pool,
                           const std::vector<PagedSequence>& sequences, std::optional<double> scale, bool check_rows);

}  // namespace attn::detail
