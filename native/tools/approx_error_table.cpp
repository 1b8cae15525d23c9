// Prints, as Markdown, the error of every approximate-attention method in the core against dense
// attention (attn::sdpa in double) and what each one computed, on two inputs of one head:
//   random     Q, K, V i.i.d. N(0, 1)
//   retrieval  K, V i.i.d. N(0, 1), q_i = 2 (k_t(i) + 0.1 e_i) (retrieval_inputs.hpp): dense
//              attention puts ~0.999 of its weight on one target key per query
// and, for Reformer (whose keys are the unit queries), a shared-QK retrieval input; with every
// method's parameters and the seed, so the issue note can quote it and anyone can re-run it.
//
//   approx_error_table [--seq-len N] [--head-dim D] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "attn/approx/approx_report.hpp"
#include "attn/approx/linear_attention.hpp"
#include "attn/approx/linformer.hpp"
#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/performer.hpp"
#include "attn/approx/retrieval_inputs.hpp"
#include "attn/approx/routing_attention.hpp"
#include "attn/approx/sparse_patterns.hpp"
#include "attn/approx/synthesizer.hpp"
#include "attn/attention/chunked_attention.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace {

using namespace attn;
using namespace attn::approx;

struct Inputs {
    Tensor4<double> q, k, v;
};

struct Method {
    std::string name, parameters;
    std::function<ApproxResult(const Inputs&)> run;
};

std::size_t parse_count(const std::string& flag, const char* text) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || text[0] == '-') throw Error(flag + ": expects a non-negative integer, got '" + text + "'");
    return static_cast<std::size_t>(v);
}

std::vector<Method> methods(std::size_t n, std::uint64_t seed) {
    const std::size_t l = 32;  // Sparse Transformer stride, ~sqrt(N) at N = 1024 (Child et al. Sec. 4.2)
    LshOptions lsh1;
    lsh1.num_buckets = 32;
    lsh1.chunk_length = 64;  // 2N / n_buckets: twice the average bucket size
    lsh1.seed = seed;
    LshOptions whole = lsh1;  // the special case equal to LSH's exact counterpart
    whole.num_buckets = 1;
    whole.chunk_length = n;
    LshOptions lsh4 = lsh1;
    lsh4.num_rounds = 4;
    auto lsh = [](const LshOptions& o) {
        return [o](const Inputs& in) { return lsh_attention(in.q, in.k, in.v, o).approx; };
    };
    auto lsh_params = [](const LshOptions& o) {
        return "shared-QK, buckets " + std::to_string(o.num_buckets) + ", chunk " + std::to_string(o.chunk_length) +
               ", rounds " + std::to_string(o.num_rounds);
    };
    auto linformer_k = [n, seed](std::size_t k) {
        return [n, k, seed](const Inputs& in) {
            return linformer(in.q, in.k, in.v, linformer_random_projections(k, n, seed));
        };
    };
    auto performer_m = [seed](std::size_t m) {
        return [m, seed](const Inputs& in) { return performer(in.q, in.k, in.v, {m, true, seed, {}}); };
    };
    auto sparse = [](SparsePattern p) {
        return [p](const Inputs& in) { return sparse_attention(in.q, in.k, in.v, p); };
    };
    RoutingOptions routing;
    routing.num_clusters = 32;  // ~sqrt(N), as the paper
    routing.iterations = 4;
    routing.seed = seed;

    return {
        {"Rabe & Staats (exact, chunked)", "query chunk 64, key chunk 32",
         [](const Inputs& in) {
             ChunkedAttentionOptions o;
             o.query_chunk = 64;
             o.key_chunk = 32;
             o.element_bytes = 8;
             const auto r = chunked_attention(in.q, in.k, in.v, o);
             const std::uint64_t heads = in.q.shape.batch * in.q.shape.heads;
             return ApproxResult{r.output, compare_with_dense(r.output, in.q, in.k, in.v),
                                 {heads * r.stats.dense_score_elements, r.stats.flops, r.stats.peak_intermediate_bytes}};
         }},
        {"Sparse Transformer, strided", "l = 32 (causal; vs causal dense)", sparse(strided_pattern(l))},
        {"Sparse Transformer, fixed", "l = 32, c = 8 (causal; vs causal dense)", sparse(fixed_pattern(l, 8))},
        {"Longformer", "window 2 x 64, 2 global tokens", sparse(longformer_pattern(64, 2))},
        {"BigBird", "block 64, window 3 blocks, 2 global, 3 random", sparse(bigbird_pattern(64, 1, 2, 3, seed))},
        {"Reformer reference: LSH, 1 bucket", lsh_params(whole) + " (= dense shared-QK)", lsh(whole)},
        {"Reformer LSH", lsh_params(lsh1), lsh(lsh1)},
        {"Reformer LSH", lsh_params(lsh4), lsh(lsh4)},
        {"Linformer", "k = 64, E, F ~ N(0, 1/N)", linformer_k(64)},
        {"Linformer", "k = 256, E, F ~ N(0, 1/N)", linformer_k(256)},
        {"Performer (FAVOR+)", "m = 64 orthogonal features", performer_m(64)},
        {"Performer (FAVOR+)", "m = 256 orthogonal features", performer_m(256)},
        {"Linear Transformer", "elu + 1, non-causal",
         [](const Inputs& in) { return linear_attention(in.q, in.k, in.v, {false, LinearForm::recurrent}); }},
        {"Synthesizer, dense", "2-layer ReLU MLP, hidden 64, random weights",
         [seed](const Inputs& in) { return synthesizer(in.q, in.k, in.v, {SynthesizerKind::dense, 64, seed}); }},
        {"Synthesizer, random", "fixed N x N ~ N(0, 1)",
         [seed](const Inputs& in) { return synthesizer(in.q, in.k, in.v, {SynthesizerKind::random, 0, seed}); }},
        {"Routing Transformer", "32 clusters, 4 Lloyd iterations",
         [routing](const Inputs& in) { return routing_attention(in.q, in.k, in.v, routing).approx; }},
    };
}

void print_table(const char* title, const Inputs& in, std::uint64_t seed) {
    const std::size_t n = in.q.shape.seq, d = in.q.shape.dim;
    std::printf("### %s\n\n", title);
    std::printf("| method | parameters | rel. Frobenius | max abs | top-1 preserved | score entries | FLOPs | peak bytes |\n");
    std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    const CostCounts dense = dense_cost(in.q.shape, in.k.shape, in.v.shape.dim);
    const ErrorVsDense self = compare_with_dense(sdpa(in.q, in.k, in.v).output, in.q, in.k, in.v);
    std::printf("| dense (sdpa) | N = %zu, d = %zu | %.3g | %.3g | %.3f | %llu | %llu | %llu |\n", n, d,
                self.relative_frobenius, self.max_abs, self.top1_preserved,
                static_cast<unsigned long long>(dense.score_entries), static_cast<unsigned long long>(dense.flops),
                static_cast<unsigned long long>(dense.peak_bytes));
    for (const Method& m : methods(n, seed)) {
        const ApproxResult r = m.run(in);
        std::printf("| %s | %s | %.3g | %.3g | %.3f | %llu | %llu | %llu |\n", m.name.c_str(), m.parameters.c_str(),
                    r.error.relative_frobenius, r.error.max_abs, r.error.top1_preserved,
                    static_cast<unsigned long long>(r.cost.score_entries), static_cast<unsigned long long>(r.cost.flops),
                    static_cast<unsigned long long>(r.cost.peak_bytes));
    }
    std::printf("\n");
}

// Reformer's keys are the unit queries, so its retrieval input must make queries find each other:
// q_i = 12 (k_t(i) + 0.1 e_i) with targets among N/2 keys, so most queries share their target with
// another query (the partner), and unit keys still give that partner a dominant score.
void print_shared_qk_table(std::size_t n, std::size_t d, std::uint64_t seed) {
    const RetrievalInputs pairs = retrieval_inputs({1, 1, n, d}, n / 2, d, 0.1, 12.0, seed);
    const Inputs in{pairs.q, pairs.q, random_normal({1, 1, n, d}, splitmix64(seed ^ 4))};
    std::printf("### Shared-QK retrieval inputs (Reformer): q_i = 12 (k_t(i) + 0.1 e), targets among N/2 keys, "
                "keys = unit queries, V ~ N(0, 1)\n\n");
    std::printf("| method | parameters | rel. Frobenius | max abs | top-1 preserved | score entries | FLOPs | peak bytes |\n");
    std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (std::size_t rounds : {0u, 1u, 2u, 4u, 8u}) {
        LshOptions o;
        o.num_buckets = rounds == 0 ? 1 : 32;
        o.chunk_length = rounds == 0 ? n : 64;
        o.num_rounds = rounds == 0 ? 1 : rounds;
        o.seed = seed;
        const ApproxResult r = lsh_attention(in.q, in.k, in.v, o).approx;
        std::printf("| %s | buckets %zu, chunk %zu, rounds %zu | %.3g | %.3g | %.3f | %llu | %llu | %llu |\n",
                    rounds == 0 ? "dense shared-QK (LSH, 1 bucket)" : "Reformer LSH", o.num_buckets, o.chunk_length,
                    o.num_rounds, r.error.relative_frobenius, r.error.max_abs, r.error.top1_preserved,
                    static_cast<unsigned long long>(r.cost.score_entries), static_cast<unsigned long long>(r.cost.flops),
                    static_cast<unsigned long long>(r.cost.peak_bytes));
    }
    std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::size_t n = 1024, d = 64;
        std::uint64_t seed = 2024;
        for (int i = 1; i < argc; ++i) {
            const std::string flag = argv[i];
            if (flag == "--help" || flag == "-h") {
                std::printf("usage: approx_error_table [--seq-len N] [--head-dim D] [--seed S]\n");
                return 0;
            }
            if (i + 1 >= argc) throw Error(flag + ": missing value");
            const std::size_t v = parse_count(flag, argv[++i]);
            if (flag == "--seq-len") n = v;
            else if (flag == "--head-dim") d = v;
            else if (flag == "--seed") seed = v;
            else throw Error("unknown option '" + flag + "' (see --help)");
        }
        if (n < 64 || n > 4096) throw Error("--seq-len: must be in [64, 4096], got " + std::to_string(n));
        if (d < 1 || d > 512) throw Error("--head-dim: must be in [1, 512], got " + std::to_string(d));

        std::printf("## Approximate attention vs dense sdpa (double), one head, N = %zu, d = Dv = %zu, seed %llu\n\n", n, d,
                    static_cast<unsigned long long>(seed));
        std::printf("Error: relative Frobenius ||O - O_dense|| / ||O_dense||, max |O - O_dense|, fraction of rows whose\n"
                    "output is nearest the value row of the key dense attention weights most. Reformer's reference is\n"
                    "dense shared-QK attention (keys = unit queries, no self-attention); the causal Sparse Transformer\n"
                    "patterns are compared with causal dense attention; every other method with full dense attention.\n"
                    "Rabe & Staats counts FLOPs as its own stats do (multiply-adds only, no exp/normalisation).\n"
                    "Costs: score entries formed, FLOPs (multiply-add = 2, exp/div = 1), peak working set in bytes\n"
                    "(8 per element, beyond inputs and output). Performer and the Linear Transformer form no scores.\n\n");
        const Shape4 shape{1, 1, n, d};
        const Inputs random{random_normal(shape, splitmix64(seed ^ 1)), random_normal(shape, splitmix64(seed ^ 2)),
                            random_normal(shape, splitmix64(seed ^ 3))};
        print_table("Random inputs: Q, K, V ~ N(0, 1)", random, seed);
        const RetrievalInputs retrieval = retrieval_inputs(shape, n, d, 0.1, 2.0, seed);
        print_table("Retrieval inputs: q_i = 2 (k_t(i) + 0.1 e), K, V ~ N(0, 1)", {retrieval.q, retrieval.k, retrieval.v},
                    seed);
        print_shared_qk_table(n, d, seed);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "approx_error_table: %s\n", e.what());
        return 1;
    }
}
