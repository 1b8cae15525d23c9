// partition_work: FA1's (batch, head) thread blocks against FA2's (batch, head, query block) ones,
// their tile counts, their placement on SMs and the resulting utilisation (FA2 paper §3.2).
#include <algorithm>
#include <cmath>
#include <map>

#include "attn/attention/flash_forward.hpp"
#include "attn/cost/work_partition.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::cost;

namespace {

// A stand-in preset with only the SM count set: the partition reads nothing else.
GpuPreset gpu_with_sms(double sms) {
    GpuPreset g{};
    g.id = "test-gpu";
    g.name = "test GPU";
    g.architecture = "Ampere (sm_80)";
    g.sm_count = {sms, "test input"};
    return g;
}

AttentionLaunch launch(std::size_t batch, std::size_t heads, std::size_t q_len, std::size_t kv_len, std::size_t br,
                       std::size_t bc, Causal causal = Causal::none) {
    AttentionLaunch l;
    l.batch = batch;
    l.heads = heads;
    l.q_len = q_len;
    l.kv_len = kv_len;
    l.block_q = br;
    l.block_k = bc;
    l.causal = causal;
    return l;
}

// Properties every schedule must have, whatever the launch.
void check_schedule(const WorkPartition& w) {
    const std::size_t slots = w.sm_count * w.blocks_per_sm;
    std::uint64_t tiles = 0;
    std::vector<double> busy(w.sm_count, 0.0);
    double makespan = 0;
    for (std::size_t n = 0; n < w.blocks.size(); ++n) {
        const auto& b = w.blocks[n];
        CHECK(b.end_tiles - b.start_tiles == static_cast<double>(b.kv_tiles));
        CHECK(b.wave == n / slots);
        CHECK(b.sm < w.sm_count);
        // The scheduler hands out blocks in launch order: starts never decrease.
        if (n > 0) CHECK(b.start_tiles >= w.blocks[n - 1].start_tiles);
        tiles += b.kv_tiles;
        busy[b.sm] += static_cast<double>(b.kv_tiles);
        makespan = std::max(makespan, b.end_tiles);
    }
    CHECK(tiles == w.total_tiles);
    CHECK(busy == w.sm_busy_tiles);
    CHECK(makespan == w.makespan_tiles);
    CHECK(w.sm_utilization == doctest::Approx(static_cast<double>(tiles) / (static_cast<double>(slots) * makespan)));
    CHECK(w.sm_utilization > 0);
    CHECK(w.sm_utilization <= 1.0 + 1e-12);
    // No SM ever holds more than blocks_per_sm blocks: sweep each SM's start/end events.
    std::map<std::size_t, std::vector<std::pair<double, int>>> events;
    for (const auto& b : w.blocks) {
        if (b.kv_tiles == 0) continue;
        events[b.sm].push_back({b.start_tiles, +1});
        events[b.sm].push_back({b.end_tiles, -1});
    }
    for (auto& [sm, ev] : events) {
        std::sort(ev.begin(), ev.end());  // at equal times an end (-1) sorts before a start (+1)
        int live = 0;
        for (auto [t, delta] : ev) {
            live += delta;
            CHECK(live <= static_cast<int>(w.blocks_per_sm));
        }
    }
    // Waves partition the launch in order; only the last may be partial.
    std::size_t covered = 0;
    for (std::size_t i = 0; i < w.waves.size(); ++i) {
        CHECK(w.waves[i].first_block == covered);
        CHECK(w.waves[i].occupancy == doctest::Approx(static_cast<double>(w.waves[i].block_count) / static_cast<double>(slots)));
        if (i + 1 < w.waves.size()) CHECK(w.waves[i].block_count == slots);
        covered += w.waves[i].block_count;
    }
    CHECK(covered == w.blocks.size());
}

}  // namespace

TEST_CASE("work partition: batch 1 x 8 heads on 108 SMs -- FA1 leaves 100 SMs idle -- FA2 fills them") {
    // A100's 108 SMs (FA2 paper §3.2). N = 4096, Br = Bc = 128: 32 query blocks of 32 tiles each.
    const GpuPreset a100 = gpu_with_sms(108);
    const AttentionLaunch l = launch(1, 8, 4096, 4096, 128, 128);

    const WorkPartition fa1 = partition_work(l, Partition::fa1, a100);
    check_schedule(fa1);
    REQUIRE(fa1.blocks.size() == 8);
    for (const auto& b : fa1.blocks) {
        CHECK(b.q_block_begin == 0);
        CHECK(b.q_block_end == 32);
        CHECK(b.kv_tiles == 32 * 32);
    }
    REQUIRE(fa1.waves.size() == 1);
    CHECK(fa1.waves[0].occupancy == doctest::Approx(8.0 / 108));
    CHECK(fa1.makespan_tiles == 1024);
    CHECK(fa1.sm_utilization == doctest::Approx(8.0 / 108));  // 8 busy SMs, 100 idle

    const WorkPartition fa2 = partition_work(l, Partition::fa2, a100);
    check_schedule(fa2);
    REQUIRE(fa2.blocks.size() == 256);
    // FA2's grid (query block fastest): block n is query block n % 32 of head n / 32.
    for (std::size_t n = 0; n < fa2.blocks.size(); ++n) {
        CHECK(fa2.blocks[n].q_block_begin == n % 32);
        CHECK(fa2.blocks[n].head == n / 32);
        CHECK(fa2.blocks[n].kv_tiles == 32);
    }
    // 256 blocks = waves of 108, 108 and 40; each wave lasts 32 tiles.
    REQUIRE(fa2.waves.size() == 3);
    CHECK(fa2.waves[2].block_count == 40);
    CHECK(fa2.waves[2].occupancy == doctest::Approx(40.0 / 108));
    CHECK(fa2.makespan_tiles == 96);
    CHECK(fa2.sm_utilization == doctest::Approx(256.0 * 32 / (108 * 96)));
    CHECK(fa2.total_tiles == fa1.total_tiles);
    CHECK(fa1.makespan_tiles / fa2.makespan_tiles == doctest::Approx(1024.0 / 96));
}

TEST_CASE("work partition: an FA1 block of a 2^24-token head counts its 2^48 tiles without wrapping") {
    // 2^24 query blocks x 2^24 key blocks of one token: a 32-bit size_t (WebAssembly) wraps to 0,
    // which made the utilisation NaN.
    const AttentionLaunch l = launch(1, 1, std::size_t{1} << 24, std::size_t{1} << 24, 1, 1);
    const WorkPartition w = partition_work(l, Partition::fa1, gpu_with_sms(132));
    REQUIRE(w.blocks.size() == 1);
    CHECK(w.blocks[0].kv_tiles == std::uint64_t{1} << 48);
    CHECK(w.total_tiles == std::uint64_t{1} << 48);
    CHECK(w.sm_utilization == doctest::Approx(1.0 / 132));
}

TEST_CASE("work partition: causal blocks do unequal work and the scheduler balances them greedily") {
    // Top-left causal, L = S = 4 blocks: query block i computes i + 1 tiles.
    const GpuPreset two_sms = gpu_with_sms(2);
    const AttentionLaunch l = launch(1, 1, 4 * 16, 4 * 16, 16, 16, Causal::top_left);
    const WorkPartition fa2 = partition_work(l, Partition::fa2, two_sms);
    check_schedule(fa2);
    REQUIRE(fa2.blocks.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(fa2.blocks[i].kv_tiles == i + 1);
    // By hand: b0 -> SM0 [0,1], b1 -> SM1 [0,2], b2 -> SM0 [1,4], b3 -> SM1 [2,6].
    CHECK(fa2.blocks[2].sm == 0);
    CHECK(fa2.blocks[2].start_tiles == 1);
    CHECK(fa2.blocks[3].sm == 1);
    CHECK(fa2.blocks[3].start_tiles == 2);
    CHECK(fa2.makespan_tiles == 6);
    CHECK(fa2.sm_utilization == doctest::Approx(10.0 / 12));
    CHECK(fa2.sm_busy_tiles == std::vector<double>{4, 6});

    const WorkPartition fa1 = partition_work(l, Partition::fa1, two_sms);
    REQUIRE(fa1.blocks.size() == 1);
    CHECK(fa1.blocks[0].kv_tiles == 10);
    CHECK(fa1.sm_utilization == doctest::Approx(0.5));

    // Bottom-right with L < S: row i sees i + 1 + S - L keys. L = 2 blocks, S = 4 blocks.
    const AttentionLaunch br = launch(1, 1, 32, 64, 16, 16, Causal::bottom_right);
    CHECK(kv_tiles_for_q_block(br, 0) == 3);
    CHECK(kv_tiles_for_q_block(br, 1) == 4);
    // Bottom-right with L > S: the first L - S rows see no key; a block of only such rows has no tile.
    const AttentionLaunch tall = launch(1, 1, 4, 2, 1, 1, Causal::bottom_right);
    CHECK(kv_tiles_for_q_block(tall, 0) == 0);
    CHECK(kv_tiles_for_q_block(tall, 1) == 0);
    CHECK(kv_tiles_for_q_block(tall, 2) == 1);
    CHECK(kv_tiles_for_q_block(tall, 3) == 2);
    const WorkPartition w = partition_work(tall, Partition::fa2, two_sms);
    check_schedule(w);
    CHECK(w.total_tiles == 3);
}

TEST_CASE("work partition: tile counts equal flash_forward's computed tiles for odd sizes and both alignments") {
    // flash_forward skips exactly the fully masked tiles; summing the blocks' work must give its count.
    const std::size_t lengths[] = {1, 3, 17, 113, 127, 129};
    const GpuPreset gpu = gpu_with_sms(7);
    for (std::size_t L : lengths) {
        for (std::size_t S : {std::size_t{1}, std::size_t{17}, std::size_t{129}, L}) {
            for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                const std::size_t br = 1 + (L + S) % 19, bc = 1 + (L * 3 + S) % 23;
                INFO("L=" << L << " S=" << S << " causal=" << static_cast<int>(causal) << " Br=" << br << " Bc=" << bc);
                const std::uint64_t seed = test::next_seed();
                const auto in = test::random_qkv({2, 3, L, 1}, 3, S, 1, seed);
                FlashOptions o;
                o.block_q = br;
                o.block_k = bc;
                o.causal = causal;
                const auto ref = flash_forward(in.q, in.k, in.v, o);
                const AttentionLaunch l = launch(2, 3, L, S, br, bc, causal);
                const WorkPartition fa1 = partition_work(l, Partition::fa1, gpu);
                const WorkPartition fa2 = partition_work(l, Partition::fa2, gpu);
                check_schedule(fa1);
                check_schedule(fa2);
                CHECK(fa1.total_tiles == ref.stats.tiles_computed);
                CHECK(fa2.total_tiles == ref.stats.tiles_computed);
                CHECK(fa2.blocks.size() == 6 * ref.num_q_blocks);
                CHECK(fa2.num_k_blocks == ref.num_k_blocks);
            }
        }
    }
}

TEST_CASE("work partition: several resident blocks per SM and many heads where FA1 already fills the GPU") {
    // 4 SMs x 2 slots, 8 equal blocks: one full wave; the first four go one per SM, the next four double up.
    const GpuPreset four = gpu_with_sms(4);
    AttentionLaunch l = launch(2, 4, 64, 64, 64, 16);
    l.blocks_per_sm = 2;
    const WorkPartition w = partition_work(l, Partition::fa1, four);
    check_schedule(w);
    REQUIRE(w.waves.size() == 1);
    CHECK(w.waves[0].occupancy == 1.0);
    for (std::size_t n = 0; n < 8; ++n) {
        CHECK(w.blocks[n].sm == n % 4);
        CHECK(w.blocks[n].start_tiles == 0);
    }
    CHECK(w.sm_utilization == 1.0);

    // batch 16 x 16 heads = 256 blocks on 108 SMs: FA1 already has ~2.4 waves; FA2 with 8 query blocks
    // per head cuts the tail: 2048 blocks = 18.96 waves.
    const GpuPreset a100 = gpu_with_sms(108);
    const AttentionLaunch big = launch(16, 16, 1024, 1024, 128, 128);
    const WorkPartition fa1 = partition_work(big, Partition::fa1, a100);
    const WorkPartition fa2 = partition_work(big, Partition::fa2, a100);
    CHECK(fa1.sm_utilization == doctest::Approx(256.0 / (108 * 3)));
    CHECK(fa2.sm_utilization == doctest::Approx(2048.0 / (108 * 19)));
    CHECK(fa2.sm_utilization > fa1.sm_utilization);
}

TEST_CASE("work partition rejects bad launches and presets with a message naming the field") {
    const GpuPreset gpu = gpu_with_sms(108);
    const AttentionLaunch good = launch(1, 8, 1024, 1024, 128, 128);
    auto rejects = [&](AttentionLaunch l, const char* field) {
        INFO(field);
        CHECK_THROWS_WITH_AS(partition_work(l, Partition::fa2, gpu), doctest::Contains(field), Error);
    };
    AttentionLaunch l = good;
    l.batch = 0;
    rejects(l, "launch.batch");
    l = good;
    l.heads = 65537;
    rejects(l, "launch.heads");
    l = good;
    l.q_len = 0;
    rejects(l, "launch.q_len");
    l = good;
    l.kv_len = (std::size_t{1} << 24) + 1;
    rejects(l, "launch.kv_len");
    l = good;
    l.block_q = 4097;
    rejects(l, "launch.block_q");
    l = good;
    l.block_k = 0;
    rejects(l, "launch.block_k");
    l = good;
    l.blocks_per_sm = 33;
    rejects(l, "launch.blocks_per_sm");
    l = good;
    l.causal = static_cast<Causal>(7);
    rejects(l, "launch.causal");
    l = launch(65536, 65536, 1, 1, 1, 1);
    rejects(l, "exceed");
    CHECK_THROWS_WITH_AS(partition_work(good, static_cast<Partition>(5), gpu), doctest::Contains("partition"), Error);
    for (double sms : {0.0, 1.5, -3.0, static_cast<double>(NAN)}) {
        CHECK_THROWS_WITH_AS(partition_work(good, Partition::fa1, gpu_with_sms(sms)), doctest::Contains("gpu.sm_count"), Error);
    }
    CHECK_THROWS_WITH_AS(kv_tiles_for_q_block(good, 8), doctest::Contains("q_block"), Error);
}

TEST_CASE("work partition on the A100 and H100 presets and a preset without a published SM count") {
    // The preset's SM count decides the waves: FA1's 8 blocks leave most SMs idle on both GPUs.
    for (const char* id : {"a100-sxm-80gb", "h100-sxm"}) {
        INFO(id);
        const GpuPreset& g = gpu_preset(id);
        const auto sms = static_cast<std::size_t>(g.sm_count.value);
        const AttentionLaunch l = launch(1, 8, 8192, 8192, 128, 128);
        const WorkPartition fa1 = partition_work(l, Partition::fa1, g);
        const WorkPartition fa2 = partition_work(l, Partition::fa2, g);
        check_schedule(fa1);
        check_schedule(fa2);
        CHECK(fa1.sm_utilization == doctest::Approx(8.0 / static_cast<double>(sms)));
        const std::size_t waves = (8 * 64 + sms - 1) / sms;
        CHECK(fa2.waves.size() == waves);
        CHECK(fa2.sm_utilization == doctest::Approx(8.0 * 64 / static_cast<double>(sms * waves)));
    }
    // NVIDIA publishes no SM count for the B200: the model says so instead of guessing.
    CHECK_THROWS_WITH_AS(partition_work(launch(1, 8, 1024, 1024, 128, 128), Partition::fa2, gpu_preset("b200")),
                         doctest::Contains("not published"), Error);
}
