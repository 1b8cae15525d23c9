#include "attn/kvcache/paged_kv_cache.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::kvcache {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

}  // namespace

PagedKvCache::PagedKvCache(const PagedKvCacheConfig& config) : config_(config) {
    if (config.num_blocks < 1 || config.num_blocks > kMaxPagedBlocks) {
        throw Error("config.num_blocks: must be in [1, " + str(kMaxPagedBlocks) + "], got " + str(config.num_blocks));
    }
    if (config.block_size < 1 || config.block_size > kMaxBlockSize) {
        throw Error("config.block_size: must be in [1, " + str(kMaxBlockSize) + "], got " + str(config.block_size));
    }
    if (!std::isfinite(config.kv_bytes_per_token) || config.kv_bytes_per_token <= 0) {
        throw Error("config.kv_bytes_per_token: must be finite and > 0, got " + std::to_string(config.kv_bytes_per_token));
    }
    refcount_.assign(config.num_blocks, 0);
    slots_.assign(config.num_blocks * config.block_size, 0.0f);
    // Block 0 on top of the stack: an empty pool fills from the low addresses up, which is what a
    // reader of the pool picture expects; freed blocks are reused first (LIFO, like vLLM's free list).
    free_.reserve(config.num_blocks);
    for (std::size_t b = config.num_blocks; b-- > 0;) free_.push_back(b);
}

const PagedKvCache::Sequence& PagedKvCache::sequence(SeqId seq) const {
    const auto it = sequences_.find(seq);
    if (it == sequences_.end()) throw Error("seq: no live sequence with id " + str(seq));
    return it->second;
}

std::size_t PagedKvCache::allocate_block() {
    if (free_.empty()) {
        throw Error("pool: no free block (all " + str(config_.num_blocks) + " in use); preempt a sequence first");
    }
    const std::size_t b = free_.back();
    free_.pop_back();
    refcount_[b] = 1;
    return b;
}

void PagedKvCache::release_block(std::size_t block) {
    if (--refcount_[block] == 0) free_.push_back(block);
}

PagedKvCache::SeqId PagedKvCache::create_sequence() {
    const SeqId id = next_id_++;
    sequences_.emplace(id, Sequence{});
    return id;
}

PagedKvCache::SeqId PagedKvCache::share_prefix(SeqId source, std::size_t prefix_tokens) {
    const Sequence& src = sequence(source);
    if (prefix_tokens > src.length) {
        throw Error("prefix_tokens: must be in [0, " + str(src.length) + "] (the source's length), got " + str(prefix_tokens));
    }
    Sequence child;
    child.length = prefix_tokens;
    const std::size_t blocks = (prefix_tokens + config_.block_size - 1) / config_.block_size;
    child.table.assign(src.table.begin(), src.table.begin() + static_cast<std::ptrdiff_t>(blocks));
    for (std::size_t b : child.table) ++refcount_[b];
    const SeqId id = next_id_++;
    sequences_.emplace(id, std::move(child));
    return id;
}

PagedKvCache::SeqId PagedKvCache::fork(SeqId parent) { return share_prefix(parent, sequence(parent).length); }

std::size_t PagedKvCache::blocks_needed_to_append(SeqId seq) const {
    const Sequence& s = sequence(seq);
    if (s.length % config_.block_size == 0) return 1;    // last block full, or no block yet
    return refcount_[s.table.back()] > 1 ? 1 : 0;        // a shared last block is copied first
}

AppendOutcome PagedKvCache::append_token(SeqId seq, float value) {
    const auto it = sequences_.find(seq);
    if (it == sequences_.end()) throw Error("seq: no live sequence with id " + str(seq));
    Sequence& s = it->second;
    const std::size_t bs = config_.block_size;
    const std::size_t slot = s.length % bs;
    AppendOutcome out{};
    out.logical_block = s.length / bs;
    out.slot = slot;
    if (slot == 0) {
        out.kind = AppendKind::new_block;
        out.physical_block = allocate_block();
        out.copied_from = out.physical_block;
        s.table.push_back(out.physical_block);
    } else if (refcount_[s.table.back()] > 1) {
        // Copy-on-write (§4.4): the slots this sequence can see move to a private block; the other
        // sequences keep the original, so the write below is invisible to them.
        const std::size_t src = s.table.back();
        const std::size_t dst = allocate_block();
        std::copy_n(slots_.begin() + static_cast<std::ptrdiff_t>(src * bs), slot,
                    slots_.begin() + static_cast<std::ptrdiff_t>(dst * bs));
        --refcount_[src];  // still >= 1: another table holds it
        s.table.back() = dst;
        out.kind = AppendKind::copy_on_write;
        out.physical_block = dst;
        out.copied_from = src;
        out.copied_slots = slot;
    } else {
        out.kind = AppendKind::in_place;
        out.physical_block = s.table.back();
        out.copied_from = out.physical_block;
    }
    slots_[out.physical_block * bs + slot] = value;
    ++s.length;
    return out;
}

void PagedKvCache::free(SeqId seq) {
    const auto it = sequences_.find(seq);
    if (it == sequences_.end()) throw Error("seq: no live sequence with id " + str(seq));
    for (std::size_t b : it->second.table) release_block(b);
    sequences_.erase(it);
}

PreemptionCost PagedKvCache::preempt(SeqId seq) {
    const Sequence& s = sequence(seq);
    PreemptionCost cost{};
    cost.tokens_to_recompute = s.length;
    cost.swap_bytes = static_cast<double>(s.table.size()) * static_cast<double>(config_.block_size) * config_.kv_bytes_per_token;
    const std::size_t free_before = free_.size();
    free(seq);
    cost.blocks_released = free_.size() - free_before;
    return cost;
}

bool PagedKvCache::contains(SeqId seq) const { return sequences_.count(seq) != 0; }

std::vector<PagedKvCache::SeqId> PagedKvCache::sequences() const {
    std::vector<SeqId> ids;
    ids.reserve(sequences_.size());
    for (const auto& [id, s] : sequences_) ids.push_back(id);
    return ids;
}

const std::vector<std::size_t>& PagedKvCache::block_table(SeqId seq) const { return sequence(seq).table; }

std::size_t PagedKvCache::length(SeqId seq) const { return sequence(seq).length; }

std::vector<float> PagedKvCache::gather(SeqId seq) const {
    const Sequence& s = sequence(seq);
    std::vector<float> out(s.length);
    for (std::size_t i = 0; i < s.length; ++i) {
        out[i] = slots_[s.table[i / config_.block_size] * config_.block_size + i % config_.block_size];
    }
    return out;
}

std::size_t PagedKvCache::refcount(std::size_t block) const {
    if (block >= config_.num_blocks) {
        throw Error("block: must be in [0, " + str(config_.num_blocks - 1) + "], got " + str(block));
    }
    return refcount_[block];
}

float PagedKvCache::slot_value(std::size_t block, std::size_t slot) const {
    refcount(block);  // validates block
    if (slot >= config_.block_size) {
        throw Error("slot: must be in [0, " + str(config_.block_size - 1) + "], got " + str(slot));
    }
    return slots_[block * config_.block_size + slot];
}

PagedStats PagedKvCache::stats() const {
    PagedStats st{};
    st.num_blocks = config_.num_blocks;
    st.block_size = config_.block_size;
    st.blocks_free = free_.size();
    st.blocks_used = config_.num_blocks - st.blocks_free;
    st.sequences = sequences_.size();
    // A block holds as many readable tokens as the longest view any of its tables has into it.
    std::vector<std::size_t> live(config_.num_blocks, 0);
    for (const auto& [id, s] : sequences_) {
        st.logical_tokens += s.length;
        for (std::size_t j = 0; j < s.table.size(); ++j) {
            const std::size_t in_block = std::min(config_.block_size, s.length - j * config_.block_size);
            live[s.table[j]] = std::max(live[s.table[j]], in_block);
        }
    }
    for (std::size_t b = 0; b < config_.num_blocks; ++b) {
        st.stored_tokens += live[b];
        if (refcount_[b] > 1) ++st.blocks_shared;
    }
    st.allocated_slots = st.blocks_used * config_.block_size;
    st.internal_fragmentation_slots = st.allocated_slots - st.stored_tokens;
    st.utilisation = st.allocated_slots == 0 ? 0.0 : static_cast<double>(st.stored_tokens) / static_cast<double>(st.allocated_slots);
    return st;
}

}  // namespace attn::kvcache
