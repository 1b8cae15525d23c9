#include "attn/cost/work_partition.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <string>
#include <utility>

#include "attn/error.hpp"

namespace attn::cost {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

void require_in(const char* name, std::size_t value, std::size_t lo, std::size_t hi) {
    if (value < lo || value > hi) {
        throw Error(std::string("launch.") + name + ": must be in [" + str(lo) + ", " + str(hi) + "], got " + str(value));
    }
}

void validate(const AttentionLaunch& l) {
    require_in("batch", l.batch, 1, 65536);
    require_in("heads", l.heads, 1, 65536);
    require_in("q_len", l.q_len, 1, std::size_t{1} << 24);
    require_in("kv_len", l.kv_len, 1, std::size_t{1} << 24);
    require_in("block_q", l.block_q, 1, 4096);
    require_in("block_k", l.block_k, 1, 4096);
    require_in("blocks_per_sm", l.blocks_per_sm, 1, 32);
    if (l.causal != Causal::none && l.causal != Causal::top_left && l.causal != Causal::bottom_right) {
        throw Error("launch.causal: must be none, top_left or bottom_right");
    }
}

std::size_t sm_count_of(const GpuPreset& gpu) {
    const double n = gpu.sm_count.value;
    if (std::isnan(n)) {
        throw Error("gpu.sm_count: not published for preset '" + std::string(gpu.id) + "' (" +
                    std::string(gpu.sm_count.source) + "); the work partition needs it");
    }
    if (!(n >= 1 && n <= 100000) || std::floor(n) != n) {
        throw Error("gpu.sm_count: must be an integer in [1, 100000], got " + std::to_string(n) + " for preset '" +
                    std::string(gpu.id) + "'");
    }
    return static_cast<std::size_t>(n);
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

std::size_t kv_tiles_for_q_block(const AttentionLaunch& launch, std::size_t q_block) {
    validate(launch);
    const std::size_t num_q_blocks = ceil_div(launch.q_len, launch.block_q);
    if (q_block >= num_q_blocks) {
        throw Error("q_block: must be in [0, " + str(num_q_blocks - 1) + "], got " + str(q_block));
    }
    const std::size_t last_row = std::min(launch.q_len, (q_block + 1) * launch.block_q) - 1;
    // causal_key_end is non-decreasing in the row, so the block's last row bounds every row's keys.
    const std::size_t key_end = causal_key_end(last_row, launch.q_len, launch.kv_len, launch.causal);
    return ceil_div(key_end, launch.block_k);
}

WorkPartition partition_work(const AttentionLaunch& launch, Partition partition, const GpuPreset& gpu) {
    validate(launch);
    if (partition != Partition::fa1 && partition != Partition::fa2) throw Error("partition: must be fa1 or fa2");
    const std::size_t sm_count = sm_count_of(gpu);

    WorkPartition w{};
    w.partition = partition;
    w.sm_count = sm_count;
    w.blocks_per_sm = launch.blocks_per_sm;
    w.num_q_blocks = ceil_div(launch.q_len, launch.block_q);
    w.num_k_blocks = ceil_div(launch.kv_len, launch.block_k);

    // 64-bit: batch * heads reaches 2^32, which wraps a 32-bit size_t (WebAssembly) to 0.
    const std::uint64_t heads_total = std::uint64_t{launch.batch} * launch.heads;
    const std::size_t per_head = partition == Partition::fa1 ? 1 : w.num_q_blocks;
    if (heads_total > kMaxThreadBlocks / per_head) {
        throw Error("launch: batch * heads" + std::string(partition == Partition::fa2 ? " * ceil(q_len / block_q)" : "") +
                    " thread blocks exceed the model's limit of " + str(kMaxThreadBlocks));
    }

    // Tiles per query block are the same for every (batch, head).
    std::vector<std::uint64_t> tiles_of_q_block(w.num_q_blocks);
    std::uint64_t tiles_per_head = 0;  // up to 2^24 x 2^24 tiles: 64-bit everywhere
    for (std::size_t i = 0; i < w.num_q_blocks; ++i) {
        tiles_of_q_block[i] = kv_tiles_for_q_block(launch, i);
        tiles_per_head += tiles_of_q_block[i];
    }

    // Launch order follows the kernels' grids: FA1 gridDim = (batch, heads); FA2 gridDim =
    // (query blocks, batch, heads), the query block varying fastest.
    w.blocks.reserve(static_cast<std::size_t>(heads_total) * per_head);  // <= kMaxThreadBlocks
    for (std::size_t h = 0; h < launch.heads; ++h) {
        for (std::size_t b = 0; b < launch.batch; ++b) {
            if (partition == Partition::fa1) {
                w.blocks.push_back({b, h, 0, w.num_q_blocks, tiles_per_head, 0, 0, 0.0, 0.0});
            } else {
                for (std::size_t i = 0; i < w.num_q_blocks; ++i) {
                    w.blocks.push_back({b, h, i, i + 1, tiles_of_q_block[i], 0, 0, 0.0, 0.0});
                }
            }
        }
    }

    // Greedy list scheduling: each block, in launch order, goes to the slot that frees first. Ties
    // go to the lower slot number; slot = slot_in_sm * sm_count + sm, so the first wave puts one
    // block on every SM before any SM receives a second.
    const std::size_t slots = sm_count * launch.blocks_per_sm;
    using Slot = std::pair<double, std::size_t>;  // (free at, slot number)
    std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_slots;
    for (std::size_t s = 0; s < slots; ++s) free_slots.push({0.0, s});
    w.sm_busy_tiles.assign(sm_count, 0.0);
    w.total_tiles = 0;
    w.makespan_tiles = 0;
    for (std::size_t n = 0; n < w.blocks.size(); ++n) {
        auto& blk = w.blocks[n];
        const auto [free_at, slot] = free_slots.top();
        free_slots.pop();
        blk.sm = slot % sm_count;
        blk.wave = n / slots;
        blk.start_tiles = free_at;
        blk.end_tiles = free_at + static_cast<double>(blk.kv_tiles);
        free_slots.push({blk.end_tiles, slot});
        w.sm_busy_tiles[blk.sm] += static_cast<double>(blk.kv_tiles);
        w.total_tiles += blk.kv_tiles;
        w.makespan_tiles = std::max(w.makespan_tiles, blk.end_tiles);
    }

    for (std::size_t first = 0; first < w.blocks.size(); first += slots) {
        const std::size_t count = std::min(slots, w.blocks.size() - first);
        Wave wave{first, count, static_cast<double>(count) / static_cast<double>(slots), w.blocks[first].start_tiles,
                  w.blocks[first].end_tiles};
        for (std::size_t n = first; n < first + count; ++n) {
            wave.start_tiles = std::min(wave.start_tiles, w.blocks[n].start_tiles);
            wave.end_tiles = std::max(wave.end_tiles, w.blocks[n].end_tiles);
        }
        w.waves.push_back(wave);
    }

    // Every launch has at least one tile: the last query row sees at least one key under both
    // causal alignments, so the makespan is positive.
    w.sm_utilization = static_cast<double>(w.total_tiles) / (static_cast<double>(slots) * w.makespan_tiles);
    return w;
}

}  // namespace attn::cost
