#pragma once
// PagedAttention's KV-cache manager (Kwon et al. 2023, "Efficient Memory Management for Large
// Language Model Serving with PagedAttention", arXiv:2309.06180, §4.2-4.5).
//
// The KV cache is a pool of `num_blocks` physical blocks of `block_size` token slots. A sequence
// owns a block table mapping its logical blocks (token i lives in logical block i / block_size)
// to physical blocks anywhere in the pool, like a page table; a block is allocated only when the
// sequence's last block is full, so at most block_size - 1 slots per sequence are ever unused
// (§4.3). Blocks may be shared by several tables (parallel sampling, beam search, a common
// prompt prefix, §4.4): each physical block carries a reference count, and the first append into
// a shared block copies it first (copy-on-write), so no sequence ever sees another's writes.
// When the pool runs dry a sequence can be preempted: its blocks are released and the cost is
// accounted both ways the paper describes (§4.5) -- recomputing its tokens, or swapping its
// blocks to CPU memory.
//
// Every slot stores a payload (one float per token here): enough to check that gathering a
// sequence through its block table returns exactly the tokens appended to it.
#include <cstddef>
#include <map>
#include <vector>

namespace attn::kvcache {

// vLLM's default block size (the paper's block-size ablation, §7.2, picks 16 as the default: big
// enough for the kernel to use the GPU well, small enough to keep last-block waste low).
inline constexpr std::size_t kDefaultBlockSize = 16;
// KV bytes of one token of OPT-13B in FP16: 2 (K and V) x 5120 (hidden) x 40 (layers) x 2 bytes
// = 800 KB (paper §3). Only used to turn a swap into bytes.
inline constexpr double kOpt13bKvBytesPerToken = 2.0 * 5120 * 40 * 2;

inline constexpr std::size_t kMaxPagedBlocks = std::size_t{1} << 20;
inline constexpr std::size_t kMaxBlockSize = 4096;

struct PagedKvCacheConfig {
    std::size_t num_blocks = 64;                       // physical blocks in the pool, in [1, 2^20]
    std::size_t block_size = kDefaultBlockSize;        // token slots per block, in [1, 4096]
    double kv_bytes_per_token = kOpt13bKvBytesPerToken;  // finite, > 0
};

// What an append did to the pool.
enum class AppendKind {
    in_place,       // the token went into the sequence's last block, which it owns alone
    new_block,      // the last block was full (or there was none): a free block was allocated
    copy_on_write,  // the last block was shared: it was copied into a free block, then written
};

struct AppendOutcome {
    AppendKind kind;
    std::size_t logical_block;   // index into the sequence's block table
    std::size_t physical_block;  // block that now holds the token
    std::size_t slot;            // slot of the token within that block
    std::size_t copied_from;     // copy_on_write: the shared source block; otherwise physical_block
    std::size_t copied_slots;    // copy_on_write: slots copied; otherwise 0
};

// Cost of evicting a sequence (paper §4.5): recomputation re-runs the prompt and the generated
// tokens as one prefill; swapping moves every block of the table to CPU memory (and later back).
struct PreemptionCost {
    std::size_t tokens_to_recompute;  // the sequence's length
    double swap_bytes;                // blocks in its table x block_size x kv_bytes_per_token, one direction
    std::size_t blocks_released;      // blocks that became free (a shared block only loses a reference)
};

struct PagedStats {
    std::size_t num_blocks, block_size;
    std::size_t blocks_used, blocks_free;
    std::size_t blocks_shared;     // blocks referenced by more than one block table
    std::size_t sequences;
    std::size_t logical_tokens;    // sum of sequence lengths: a shared token counts once per sequence
    std::size_t stored_tokens;     // slots holding a token some sequence can read: a shared token counts once
    std::size_t allocated_slots;   // blocks_used x block_size
    std::size_t internal_fragmentation_slots;  // allocated_slots - stored_tokens: unfilled block tails
    double utilisation;            // stored_tokens / allocated_slots; 0 when nothing is allocated
};

class PagedKvCache {
public:
    using SeqId = std::size_t;

    // Throws attn::Error naming the config field when a size is out of range.
    explicit PagedKvCache(const PagedKvCacheConfig& config);

    // A new empty sequence (no blocks until its first append).
    SeqId create_sequence();
    // A new sequence whose first `prefix_tokens` tokens are those of `source`, sharing the blocks
    // that hold them (prefix sharing, §4.4). A partially covered last block is shared too and
    // copied on the first append into it. prefix_tokens in [0, length(source)].
    SeqId share_prefix(SeqId source, std::size_t prefix_tokens);
    // share_prefix(parent, length(parent)): parallel sampling / beam-search fork (§4.4).
    SeqId fork(SeqId parent);

    // Free blocks the next append to `seq` takes (0 or 1). The scheduler checks it first.
    std::size_t blocks_needed_to_append(SeqId seq) const;
    // Appends one token with KV payload `value`. Throws when it needs a block and none is free.
    AppendOutcome append_token(SeqId seq, float value);

    // Drops the sequence: every block of its table loses a reference; unreferenced blocks are freed.
    void free(SeqId seq);
    // free(seq), returning what restoring it would cost (§4.5).
    PreemptionCost preempt(SeqId seq);

    bool contains(SeqId seq) const;
    std::vector<SeqId> sequences() const;  // live ids, ascending
    const std::vector<std::size_t>& block_table(SeqId seq) const;
    std::size_t length(SeqId seq) const;
    // The sequence's tokens in order, read through its block table (the logical -> physical gather
    // a PagedAttention kernel does).
    std::vector<float> gather(SeqId seq) const;

    std::size_t refcount(std::size_t block) const;
    float slot_value(std::size_t block, std::size_t slot) const;
    std::size_t free_blocks() const { return free_.size(); }
    // Free blocks, the next to be allocated last.
    const std::vector<std::size_t>& free_list() const { return free_; }
    PagedStats stats() const;
    const PagedKvCacheConfig& config() const { return config_; }

private:
    struct Sequence {
        std::vector<std::size_t> table;
        std::size_t length = 0;
    };
    const Sequence& sequence(SeqId seq) const;
    std::size_t allocate_block();
    void release_block(std::size_t block);

    PagedKvCacheConfig config_;
    std::map<SeqId, Sequence> sequences_;
    std::vector<std::size_t> refcount_;
    std::vector<float> slots_;        // num_blocks x block_size payloads
    std::vector<std::size_t> free_;   // stack: back() is allocated next
    SeqId next_id_ = 0;
};

}  // namespace attn::kvcache
