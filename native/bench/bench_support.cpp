#include "bench_support.hpp"

#include <cmath>
#include <sstream>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/flash_forward_fast.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/random.hpp"
#include "standard_attention_blas.hpp"

namespace attn::bench {

Inputs make_inputs(const Problem& p, std::uint64_t seed) {
    auto draw = [&](std::size_t heads, std::uint64_t s) {
        return tensor_cast<float>(random_normal({p.batch, heads, p.seq, p.head_dim}, s));
    };
    return {draw(p.heads, seed), draw(p.kv_heads, seed + 1), draw(p.kv_heads, seed + 2)};
}

const char* causal_name(Causal c) {
    return c == Causal::none ? "none" : c == Causal::top_left ? "top_left" : "bottom_right";
}

std::vector<Implementation> cpu_implementations() {
    std::vector<Implementation> impls;
    impls.push_back({"flash_fast",
                     "attn::flash_forward_fast: FA2 forward, FP32, multithreaded, cache-blocked, vectorised",
                     [](const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v, Causal c) {
                         FastFlashOptions o;
                         o.causal = c;
                         return flash_forward_fast(q, k, v, o).output;
                     },
                     [](const Problem& p) {
                         return cost::flash2_forward_io(p.cost_shape(), 4, {kFastFlashBlockQ, kFastFlashBlockK}).bytes();
                     }});
    impls.push_back({"standard_blas",
                     "standard attention: OpenBLAS sgemm, row softmax, sgemm (S and P in memory)",
                     [](const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v, Causal c) {
                         return standard_attention_blas(q, k, v, c);
                     },
                     [](const Problem& p) {
                         // Each sgemm reads its operands once (block_q = L): Algorithm 0's count.
                         return cost::standard_attention_io(p.cost_shape(), cost::Pass::forward, 4, p.seq).bytes();
                     }});
    impls.push_back({"flash_readable",
                     "attn::flash_forward: the traced, single-threaded teaching version (64 x 64 tiles)",
                     [](const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v, Causal c) {
                         FlashOptions o;
                         o.causal = c;
                         return flash_forward(q, k, v, o).output;
                     },
                     [](const Problem& p) { return cost::flash2_forward_io(p.cost_shape(), 4, {64, 64}).bytes(); }});
    return impls;
}

CheckResult check_against_reference(const Implementation& impl, std::size_t head_dim, Causal causal) {
    constexpr std::size_t kQueries = 257, kKeys = 301;
    const std::uint64_t seed = 0x5eed0000 + head_dim * 3 + static_cast<std::uint64_t>(causal);
    // Float inputs, and the same values in double for the reference.
    const auto q = tensor_cast<float>(random_normal({1, 4, kQueries, head_dim}, seed));
    const auto k = tensor_cast<float>(random_normal({1, 2, kKeys, head_dim}, seed + 1));
    const auto v = tensor_cast<float>(random_normal({1, 2, kKeys, head_dim}, seed + 2));
    SdpaOptions so;
    so.causal = causal;
    const auto ref = sdpa(tensor_cast<double>(q), tensor_cast<double>(k), tensor_cast<double>(v), so);
    const auto out = impl.forward(q, k, v, causal);

    CheckResult r;
    r.implementation = impl.name;
    std::ostringstream problem;
    problem << "B=1 Hq=4 Hkv=2 L=" << kQueries << " S=" << kKeys << " d=" << head_dim << " causal=" << causal_name(causal);
    r.problem = problem.str();
    if (out.shape != ref.output.shape) return r;
    for (std::size_t n = 0; n < out.data.size(); ++n) {
        const double e = std::abs(static_cast<double>(out.data[n]) - ref.output.data[n]);
        r.max_abs_error = std::isnan(e) ? INFINITY : std::max(r.max_abs_error, e);
    }
    r.passed = r.max_abs_error <= kCheckTolerance;
    return r;
}

}  // namespace attn::bench
