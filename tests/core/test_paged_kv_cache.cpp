// PagedKvCache (PagedAttention, Kwon et al. 2023, §4.2-4.5): block allocation on demand,
// copy-on-write after forks and prefix sharing, preemption accounting, statistics, and the
// allocator invariants under long random seeded operation sequences checked against a plain
// per-sequence token list.
#include <algorithm>
#include <map>
#include <set>

#include "attn/error.hpp"
#include "attn/kvcache/paged_kv_cache.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::kvcache;

namespace {

PagedKvCacheConfig cfg(std::size_t blocks, std::size_t block_size) {
    PagedKvCacheConfig c;
    c.num_blocks = blocks;
    c.block_size = block_size;
    return c;
}

// Every physical block is free or referenced exactly refcount times; the free list holds exactly
// the unreferenced blocks, once each; stats agree with a recount from the block tables.
void check_invariants(const PagedKvCache& cache) {
    const std::size_t n = cache.config().num_blocks, bs = cache.config().block_size;
    std::vector<std::size_t> refs(n, 0), live(n, 0);
    std::size_t logical = 0;
    for (auto id : cache.sequences()) {
        const auto& table = cache.block_table(id);
        REQUIRE(table.size() == (cache.length(id) + bs - 1) / bs);
        for (std::size_t j = 0; j < table.size(); ++j) {
            REQUIRE(table[j] < n);
            ++refs[table[j]];
            live[table[j]] = std::max(live[table[j]], std::min(bs, cache.length(id) - j * bs));
        }
        // A table never names one block twice (a block is one logical position of a sequence).
        REQUIRE(std::set<std::size_t>(table.begin(), table.end()).size() == table.size());
        logical += cache.length(id);
    }
    std::set<std::size_t> free_set(cache.free_list().begin(), cache.free_list().end());
    REQUIRE(free_set.size() == cache.free_list().size());  // no block freed twice
    std::size_t stored = 0, shared = 0, used = 0;
    for (std::size_t b = 0; b < n; ++b) {
        REQUIRE(cache.refcount(b) == refs[b]);
        REQUIRE((refs[b] == 0) == (free_set.count(b) == 1));
        stored += live[b];
        shared += refs[b] > 1;
        used += refs[b] > 0;
    }
    const PagedStats st = cache.stats();
    CHECK(st.blocks_used == used);
    CHECK(st.blocks_free == n - used);
    CHECK(st.blocks_shared == shared);
    CHECK(st.logical_tokens == logical);
    CHECK(st.stored_tokens == stored);
    CHECK(st.internal_fragmentation_slots == used * bs - stored);
    CHECK(st.utilisation == doctest::Approx(used == 0 ? 0.0 : double(stored) / double(used * bs)));
}

}  // namespace

TEST_CASE("PagedKvCache: blocks are allocated only when the last one is full") {
    for (std::size_t bs : {1, 3, 16, 17}) {
        PagedKvCache cache(cfg(64, bs));
        const auto s = cache.create_sequence();
        CHECK(cache.block_table(s).empty());
        CHECK(cache.blocks_needed_to_append(s) == 1);
        for (std::size_t i = 0; i < 3 * bs + 1; ++i) {
            const AppendOutcome o = cache.append_token(s, float(i));
            CHECK(o.kind == (i % bs == 0 ? AppendKind::new_block : AppendKind::in_place));
            CHECK(o.logical_block == i / bs);
            CHECK(o.slot == i % bs);
            CHECK(cache.block_table(s).size() == i / bs + 1);
        }
        // 3 full blocks plus one token in a fourth: bs - 1 unfilled slots, never more (§4.3).
        const PagedStats st = cache.stats();
        CHECK(st.blocks_used == 4);
        CHECK(st.internal_fragmentation_slots == bs - 1);
        CHECK(st.utilisation == doctest::Approx(double(3 * bs + 1) / double(4 * bs)));
        // An empty pool fills from block 0 up.
        CHECK(cache.block_table(s) == std::vector<std::size_t>{0, 1, 2, 3});
        check_invariants(cache);
    }
}

TEST_CASE("PagedKvCache: fork shares blocks, and copy-on-write isolates the writers") {
    PagedKvCache cache(cfg(16, 4));
    const auto parent = cache.create_sequence();
    for (int i = 0; i < 6; ++i) cache.append_token(parent, float(i));  // blocks 0 (full) and 1 (2 of 4)
    const auto child = cache.fork(parent);
    CHECK(cache.block_table(child) == cache.block_table(parent));
    CHECK(cache.refcount(0) == 2);
    CHECK(cache.refcount(1) == 2);
    CHECK(cache.stats().blocks_shared == 2);
    CHECK(cache.stats().stored_tokens == 6);   // shared tokens stored once
    CHECK(cache.stats().logical_tokens == 12);
    CHECK(cache.blocks_needed_to_append(child) == 1);

    const AppendOutcome c = cache.append_token(child, 100.0f);
    CHECK(c.kind == AppendKind::copy_on_write);
    CHECK(c.copied_from == 1);
    CHECK(c.copied_slots == 2);
    CHECK(c.physical_block != 1);
    CHECK(cache.refcount(1) == 1);  // the parent now owns the original alone
    // The parent's next write lands in place, invisible to the child, and vice versa.
    CHECK(cache.blocks_needed_to_append(parent) == 0);
    CHECK(cache.append_token(parent, 200.0f).kind == AppendKind::in_place);
    CHECK(cache.gather(parent) == std::vector<float>{0, 1, 2, 3, 4, 5, 200});
    CHECK(cache.gather(child) == std::vector<float>{0, 1, 2, 3, 4, 5, 100});
    CHECK(cache.refcount(0) == 2);  // the full prefix block stays shared
    check_invariants(cache);
    cache.free(parent);
    cache.free(child);
    CHECK(cache.free_blocks() == 16);
}

TEST_CASE("PagedKvCache: prefix sharing covers a partial block, which is copied on the first write") {
    PagedKvCache cache(cfg(8, 4));
    const auto a = cache.create_sequence();
    for (int i = 0; i < 7; ++i) cache.append_token(a, float(i));
    const auto b = cache.share_prefix(a, 5);  // block 0 and the first slot of block 1
    CHECK(cache.length(b) == 5);
    CHECK(cache.gather(b) == std::vector<float>{0, 1, 2, 3, 4});
    CHECK(cache.stats().stored_tokens == 7);
    const AppendOutcome o = cache.append_token(b, -1.0f);
    CHECK(o.kind == AppendKind::copy_on_write);
    CHECK(o.copied_slots == 1);
    CHECK(cache.gather(a) == std::vector<float>{0, 1, 2, 3, 4, 5, 6});
    CHECK(cache.gather(b) == std::vector<float>{0, 1, 2, 3, 4, -1});
    // An empty prefix is a fresh sequence; a block boundary prefix shares only full blocks.
    const auto e = cache.share_prefix(a, 0);
    CHECK(cache.block_table(e).empty());
    const auto f = cache.share_prefix(a, 4);
    CHECK(cache.block_table(f) == std::vector<std::size_t>{cache.block_table(a)[0]});
    CHECK(cache.append_token(f, 9.0f).kind == AppendKind::new_block);
    check_invariants(cache);
    // The source freed first: the sharer keeps the block and overwrites the stale tail in place.
    const auto g = cache.share_prefix(a, 6);
    cache.free(a);
    CHECK(cache.append_token(g, 42.0f).kind == AppendKind::in_place);
    CHECK(cache.gather(g) == std::vector<float>{0, 1, 2, 3, 4, 5, 42});
    check_invariants(cache);
}

TEST_CASE("PagedKvCache: preemption frees blocks and prices recomputation against swapping") {
    PagedKvCacheConfig c = cfg(8, 4);
    c.kv_bytes_per_token = 10.0;
    PagedKvCache cache(c);
    const auto a = cache.create_sequence();
    for (int i = 0; i < 9; ++i) cache.append_token(a, float(i));  // 3 blocks
    const auto b = cache.fork(a);
    const PreemptionCost cost = cache.preempt(b);
    CHECK(cost.tokens_to_recompute == 9);
    CHECK(cost.swap_bytes == 3 * 4 * 10.0);
    CHECK(cost.blocks_released == 0);  // all three still belong to a
    CHECK_FALSE(cache.contains(b));
    const PreemptionCost last = cache.preempt(a);
    CHECK(last.blocks_released == 3);
    CHECK(cache.free_blocks() == 8);
    // OPT-13B's 800 KB per token (paper §3) is the default price of a swapped token.
    CHECK(PagedKvCacheConfig{}.kv_bytes_per_token == 819200.0);
}

TEST_CASE("PagedKvCache: a full pool refuses to allocate, and bad arguments throw") {
    PagedKvCache cache(cfg(2, 2));
    const auto s = cache.create_sequence();
    for (int i = 0; i < 4; ++i) cache.append_token(s, 0.0f);
    CHECK(cache.free_blocks() == 0);
    CHECK_THROWS_WITH_AS(cache.append_token(s, 0.0f), doctest::Contains("pool: no free block"), Error);
    CHECK(cache.length(s) == 4);  // the failed append changed nothing
    check_invariants(cache);
    const auto t = cache.fork(s);
    CHECK_THROWS_AS(cache.append_token(t, 1.0f), Error);  // a full shared block needs a free one
    CHECK(cache.gather(t) == cache.gather(s));
    CHECK_THROWS_WITH_AS(cache.append_token(99, 0.0f), doctest::Contains("seq: no live sequence with id 99"), Error);
    CHECK_THROWS_WITH_AS(cache.share_prefix(s, 5), doctest::Contains("prefix_tokens: must be in [0, 4]"), Error);
    CHECK_THROWS_WITH_AS(cache.refcount(2), doctest::Contains("block: must be in [0, 1]"), Error);
    CHECK_THROWS_WITH_AS(cache.slot_value(0, 2), doctest::Contains("slot: must be in [0, 1]"), Error);
    cache.free(s);
    CHECK_THROWS_AS(cache.free(s), Error);
    CHECK_THROWS_AS(cache.block_table(s), Error);
    CHECK_THROWS_AS(cache.preempt(s), Error);
    CHECK_THROWS_WITH_AS(PagedKvCache(cfg(0, 16)), doctest::Contains("config.num_blocks: must be in [1, 1048576]"), Error);
    CHECK_THROWS_WITH_AS(PagedKvCache(cfg(4, 0)), doctest::Contains("config.block_size: must be in [1, 4096]"), Error);
    PagedKvCacheConfig bad = cfg(4, 4);
    bad.kv_bytes_per_token = -1;
    CHECK_THROWS_WITH_AS(PagedKvCache{bad}, doctest::Contains("config.kv_bytes_per_token"), Error);
}

TEST_CASE("PagedKvCache: invariants hold under random seeded operation sequences") {
    // Operations drawn at random: create, append (the most frequent), fork, share a random prefix,
    // free, preempt. A plain vector per sequence is the reference for what gather must return.
    std::size_t total_ops = 0, total_cows = 0;
    for (std::size_t bs : {1, 3, 16, 17}) {
        for (std::size_t blocks : {3, 17, 113}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed = " << seed << ", block_size = " << bs << ", blocks = " << blocks);
            PagedKvCache cache(cfg(blocks, bs));
            std::map<PagedKvCache::SeqId, std::vector<float>> ref;
            std::size_t cows = 0, forks = 0;
            for (std::size_t op = 0; op < 3000; ++op, ++total_ops) {
                const double u = uniform_from_hash(seed, 3 * op);
                const double v = uniform_from_hash(seed, 3 * op + 1);
                const float value = static_cast<float>(uniform_from_hash(seed, 3 * op + 2));
                std::vector<PagedKvCache::SeqId> ids;
                for (const auto& [id, t] : ref) ids.push_back(id);
                const auto pick = [&] { return ids[std::min(ids.size() - 1, std::size_t(v * double(ids.size())))]; };
                if (ids.empty() || u < 0.05) {
                    ref[cache.create_sequence()] = {};
                } else if (u < 0.75) {
                    const auto id = pick();
                    if (cache.blocks_needed_to_append(id) > cache.free_blocks()) {
                        CHECK_THROWS_AS(cache.append_token(id, value), Error);
                    } else {
                        const AppendOutcome o = cache.append_token(id, value);
                        cows += o.kind == AppendKind::copy_on_write;
                        ref[id].push_back(value);
                    }
                } else if (u < 0.83) {
                    const auto id = pick();
                    ref[cache.fork(id)] = ref[id];
                    ++forks;
                } else if (u < 0.88) {
                    const auto id = pick();
                    const std::size_t len = std::size_t(uniform_from_hash(seed ^ 1, op) * double(ref[id].size() + 1));
                    const auto child = cache.share_prefix(id, std::min(len, ref[id].size()));
                    ref[child].assign(ref[id].begin(), ref[id].begin() + std::ptrdiff_t(cache.length(child)));
                } else if (u < 0.97) {
                    const auto id = pick();
                    cache.free(id);
                    ref.erase(id);
                } else {
                    const auto id = pick();
                    CHECK(cache.preempt(id).tokens_to_recompute == ref[id].size());
                    ref.erase(id);
                }
                check_invariants(cache);
                // No sequence sees another's writes: every gather is exactly its own appends.
                for (const auto& [id, tokens] : ref) REQUIRE(cache.gather(id) == tokens);
            }
            CHECK(forks > 0);
            if (bs == 1) CHECK(cows == 0);  // one-slot blocks are always full: a fork never shares a partial block
            total_cows += cows;
            for (const auto& [id, tokens] : ref) cache.free(id);
            CHECK(cache.free_blocks() == blocks);  // no leak once every sequence is gone
            check_invariants(cache);
        }
    }
    CHECK(total_cows > 0);  // the sequences did exercise copy-on-write
    MESSAGE("random PagedKvCache operations checked: " << total_ops << ", copy-on-writes among them: " << total_cows);
}
