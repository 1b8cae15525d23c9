#include "attn/approx/linear_attention.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "method_args.hpp"

namespace attn::approx {
namespace {

// phi(x) = elu(x) + 1: x + 1 for x > 0, exp(x) otherwise -- always positive.
void feature_map(const double* x, std::size_t d, double* out) {
    for (std::size_t c = 0; c < d; ++c) out[c] = x[c] > 0 ? x[c] + 1.0 : std::exp(x[c]);
}

void check_form(const LinearAttentionOptions& o) {
    if (o.form != LinearForm::parallel && o.form != LinearForm::recurrent) throw Error("form: must be parallel or recurrent");
}

}  // namespace

CostCounts linear_attention_cost(std::size_t batch_heads, std::size_t l, std::size_t s, std::size_t d, std::size_t dv,
                                 const LinearAttentionOptions& o) {
    check_form(o);
    if (batch_heads == 0 || l == 0 || s == 0 || d == 0 || dv == 0) throw Error("linear_attention_cost: sizes must be >= 1");
    if (o.causal && l != s) throw Error("kv_len: causal linear attention needs L == S, got " + std::to_string(l) + " and " + std::to_string(s));
    const std::uint64_t L = l, S = s, D = d, Dv = dv, bh = batch_heads;
    const std::uint64_t phi = 2 * D * (L + S);
    if (o.form == LinearForm::recurrent) {
        const std::uint64_t flops = phi + S * (2 * D * Dv + D) + L * (2 * D * Dv + 2 * D + Dv);
        return {0, bh * flops, 8 * (D * Dv + 3 * D)};
    }
    const std::uint64_t entries = o.causal ? L * (L + 1) / 2 : L * S;
    const std::uint64_t flops = phi + entries * (2 * D + 2 * Dv + 1) + L * Dv;
    return {bh * entries, bh * flops, 8 * (L * D + S * D + L * S)};
}

ApproxResult linear_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                              const LinearAttentionOptions& o) {
    check_form(o);
    const AttentionProblem p = detail::check_qkv(q, k, v, {});
    const std::size_t L = p.q_len, S = p.kv_len, d = p.head_dim, dv = p.value_dim;
    ApproxResult r{Tensor4<double>(p.output_shape()), {}, linear_attention_cost(p.batch * p.q_heads, L, S, d, dv, o)};

    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            if (o.form == LinearForm::recurrent) {
                std::vector<double> state(d * dv, 0.0), z(d, 0.0), phi_q(d), phi_k(d);
                auto absorb = [&](std::size_t j) {  // S += phi(k_j) v_j^T, z += phi(k_j)
                    feature_map(k.row(b, h, j), d, phi_k.data());
                    const double* vj = v.row(b, h, j);
                    for (std::size_t a = 0; a < d; ++a) {
                        z[a] += phi_k[a];
                        for (std::size_t c = 0; c < dv; ++c) state[a * dv + c] += phi_k[a] * vj[c];
                    }
                };
                if (!o.causal) {
                    for (std::size_t j = 0; j < S; ++j) absorb(j);
                }
                for (std::size_t i = 0; i < L; ++i) {
                    if (o.causal) absorb(i);
                    feature_map(q.row(b, h, i), d, phi_q.data());
                    double* out = r.output.row(b, h, i);
                    const double denominator = detail::dot(phi_q.data(), z.data(), d);
                    for (std::size_t a = 0; a < d; ++a) {
                        for (std::size_t c = 0; c < dv; ++c) out[c] += phi_q[a] * state[a * dv + c];
                    }
                    for (std::size_t c = 0; c < dv; ++c) out[c] /= denominator;
                }
            } else {
                std::vector<double> phi_q(L * d), phi_k(S * d), kernel(L * S, 0.0);
                for (std::size_t i = 0; i < L; ++i) feature_map(q.row(b, h, i), d, phi_q.data() + i * d);
                for (std::size_t j = 0; j < S; ++j) feature_map(k.row(b, h, j), d, phi_k.data() + j * d);
                for (std::size_t i = 0; i < L; ++i) {
                    const std::size_t end = o.causal ? i + 1 : S;
                    double* out = r.output.row(b, h, i);
                    double denominator = 0;
                    for (std::size_t j = 0; j < end; ++j) {
                        const double w = kernel[i * S + j] = detail::dot(phi_q.data() + i * d, phi_k.data() + j * d, d);
                        denominator += w;
                        const double* vj = v.row(b, h, j);
                        for (std::size_t c = 0; c < dv; ++c) out[c] += w * vj[c];
                    }
                    for (std::size_t c = 0; c < dv; ++c) out[c] /= denominator;
                }
            }
        }
    }
    SdpaOptions dense;
    dense.causal = o.causal ? Causal::top_left : Causal::none;
    r.error = compare_with_dense(r.output, q, k, v, dense);
    return r;
}

}  // namespace attn::approx
