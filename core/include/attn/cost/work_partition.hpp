#pragma once
// Which thread blocks a FlashAttention forward launch creates, how much work each one does, and
// how the GPU's block scheduler spreads them over its SMs (Dao 2023, "FlashAttention-2",
// arXiv:2307.08691, §3.2 "Parallelism"):
//
//   FA1: one thread block per (batch, head); it walks every query block of its head, so a launch
//        has batch * heads blocks -- "efficient when this number is large (say >= 80)".
//   FA2: one thread block per (batch, head, query block); the loop over query blocks is
//        embarrassingly parallel, so long sequences with small batch * heads still fill the GPU.
//
// A block's time is proportional to the number of K/V tiles it computes (causal blocks near the
// diagonal compute fewer). The block scheduler hands blocks out in launch order to the first free
// slot (an SM has `blocks_per_sm` slots); every slot is taken to progress at the same rate whatever
// the others do, so a slot is the unit of scheduling and of utilisation.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/attention/causal.hpp"
#include "attn/cost/gpu_presets.hpp"

namespace attn::cost {

enum class Partition { fa1, fa2 };

struct AttentionLaunch {
    std::size_t batch = 1;          // in [1, 65536]
    std::size_t heads = 1;          // query heads, in [1, 65536]
    std::size_t q_len = 1;          // L, in [1, 2^24]
    std::size_t kv_len = 1;         // S, in [1, 2^24]
    std::size_t block_q = 128;      // Br, in [1, 4096]
    std::size_t block_k = 128;      // Bc, in [1, 4096]
    Causal causal = Causal::none;   // causal.hpp: top-left or bottom-right alignment when L != S
    std::size_t blocks_per_sm = 1;  // thread blocks resident on one SM at once, in [1, 32]
};

struct ThreadBlock {
    std::size_t batch, head;
    std::size_t q_block_begin, q_block_end;  // the query blocks [begin, end) this block computes
    std::uint64_t kv_tiles;                  // K/V tiles computed (entirely masked tiles are skipped);
                                             // FA1's up to 2^48, past a 32-bit size_t
    std::size_t sm;                          // SM the scheduler placed it on
    std::size_t wave;                        // launch index / (sm_count * blocks_per_sm)
    double start_tiles, end_tiles;           // time, in units of one K/V tile on one slot
};

// Wave w holds the launch-order blocks [w * C, (w + 1) * C), C = sm_count * blocks_per_sm: the
// blocks that fill the slots for the w-th time. Only the last wave can be partial.
struct Wave {
    std::size_t first_block, block_count;
    double occupancy;               // block_count / C
    double start_tiles, end_tiles;  // first start and last end among its blocks
};

struct WorkPartition {
    Partition partition;
    std::size_t sm_count, blocks_per_sm;
    std::size_t num_q_blocks, num_k_blocks;  // ceil(L / Br), ceil(S / Bc) per (batch, head)
    std::vector<ThreadBlock> blocks;         // in launch order (blockIdx linearised)
    std::vector<Wave> waves;
    std::vector<double> sm_busy_tiles;       // per SM: summed tile time of the blocks it ran
    std::uint64_t total_tiles;               // sum of kv_tiles over blocks
    double makespan_tiles;                   // end of the last block
    double sm_utilization;                   // busy slot-time / (slots * makespan), in (0, 1]
};

// Largest launch the model lays out block by block.
inline constexpr std::size_t kMaxThreadBlocks = std::size_t{1} << 22;

// K/V tiles that query block `q_block` computes: a key block is skipped only when the causal rule
// masks all of it (as flash_forward does); the last row of a block sees the most keys.
std::size_t kv_tiles_for_q_block(const AttentionLaunch& launch, std::size_t q_block);

// The thread blocks of `launch` under `partition`, scheduled on `gpu`'s SMs. Throws attn::Error
// naming the field when a size is out of range, the preset's SM count is not a positive integer,
// or the launch has more than kMaxThreadBlocks blocks.
WorkPartition partition_work(const AttentionLaunch& launch, Partition partition, const GpuPreset& gpu);

}  // namespace attn::cost
