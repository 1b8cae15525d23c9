// Every public function rejects bad arguments with an attn::Error that names the argument.
#include <string>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;

namespace {

const Tensor4<double> q(Shape4{1, 4, 5, 8}, 0.1), k(Shape4{1, 2, 7, 8}, 0.2), v(Shape4{1, 2, 7, 3}, 0.3);

}  // namespace

TEST_CASE("shapes: zero sizes, batch, heads, lengths and head_dim mismatches") {
    test::check_error([] { sdpa(Tensor4<double>(Shape4{1, 4, 0, 8}), k, v); }, "query: every dimension must be >= 1");
    test::check_error([] { sdpa(q, Tensor4<double>(Shape4{2, 2, 7, 8}), v); }, "key/value: batch size");
    test::check_error([] { sdpa(q, Tensor4<double>(Shape4{1, 3, 7, 8}), Tensor4<double>(Shape4{1, 3, 7, 3})); },
                "key: its head count (3) must divide the query's head count (4)");
    test::check_error([] { sdpa(q, k, Tensor4<double>(Shape4{1, 1, 7, 3})); }, "value: must have as many heads as key");
    test::check_error([] { sdpa(q, k, Tensor4<double>(Shape4{1, 2, 6, 3})); }, "value: sequence length");
    test::check_error([] { sdpa(q, Tensor4<double>(Shape4{1, 2, 7, 6}), v); }, "key: head_dim must equal the query's (8)");
    test::check_error([] { Tensor4<double>(Shape4{1, 1, 2, 2}, std::vector<double>(3)); }, "expected 4 elements");
}

TEST_CASE("values: non-finite inputs, scale and dropout") {
    Tensor4<double> bad = q;
    bad.data[3] = NAN;
    test::check_error([&] { sdpa(bad, k, v); }, "query: element 3 is not finite");
    SdpaOptions o;
    o.scale = NAN;
    test::check_error([&] { sdpa(q, k, v, o); }, "scale: must be a finite number");
    o.scale = INFINITY;
    test::check_error([&] { sdpa(q, k, v, o); }, "scale");
    SdpaOptions d;
    d.dropout_p = 1.0;
    test::check_error([&] { sdpa(q, k, v, d); }, "dropout_p: must be in [0, 1)");
    d.dropout_p = -0.1;
    test::check_error([&] { sdpa(q, k, v, d); }, "dropout_p");
    test::check_error([] { random_normal({1, 1, 1, 1}, 0, -1.0); }, "stddev");
}

TEST_CASE("masks: size, broadcast shape, values, and combination with causal") {
    test::check_error([] { AttentionMask::boolean({1, 1, 5, 7}, std::vector<std::uint8_t>(34)); },
                "attn_mask: expected 35 entries");
    test::check_error([] { AttentionMask::additive({1, 1, 5, 7}, std::vector<float>(35, NAN)); }, "attn_mask: additive entry 0");
    test::check_error([] { AttentionMask::additive({1, 1, 0, 7}, {}); }, "attn_mask: every dimension");
    SdpaOptions o;
    o.mask = AttentionMask::boolean({1, 1, 5, 6}, std::vector<std::uint8_t>(30, 1));
    test::check_error([&] { sdpa(q, k, v, o); }, "does not broadcast to [B, H, L, S] = [1, 4, 5, 7]");
    o.mask = AttentionMask::boolean({1, 2, 5, 7}, std::vector<std::uint8_t>(70, 1));  // 2 != 1 and != 4 heads
    test::check_error([&] { sdpa(q, k, v, o); }, "attn_mask");
    o.mask = AttentionMask::boolean({1, 1, 5, 7}, std::vector<std::uint8_t>(35, 1));
    o.causal = Causal::top_left;
    test::check_error([&] { sdpa(q, k, v, o); }, "cannot be combined with a causal flag");
    o.mask.allowed.pop_back();  // a mask edited after construction is still checked
    o.causal = Causal::none;
    test::check_error([&] { sdpa(q, k, v, o); }, "attn_mask: holds 34 entries");
}

TEST_CASE("flash options: block sizes, element size, traced head") {
    FlashOptions o;
    o.block_q = 0;
    test::check_error([&] { flash_forward(q, k, v, o); }, "block_q: must be in [1, 4096], got 0");
    o.block_q = 8;
    o.block_k = 5000;
    test::check_error([&] { flash_forward(q, k, v, o); }, "block_k: must be in [1, 4096], got 5000");
    o.block_k = 8;
    o.element_bytes = 3;
    test::check_error([&] { flash_forward(q, k, v, o); }, "element_bytes: must be 1, 2, 4 or 8");
    o.element_bytes = 2;
    o.trace = true;
    o.trace_head = 4;
    test::check_error([&] { flash_forward(q, k, v, o); }, "trace_batch/trace_head: must be < (1, 4)");
    o.trace_head = 3;
    CHECK_NOTHROW(flash_forward(q, k, v, o));
}
