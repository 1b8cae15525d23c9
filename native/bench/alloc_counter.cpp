// Replaces the global operator new / delete with malloc / free plus two atomic counters. The
// block's size comes from malloc_usable_size (glibc), so unsized deletes are counted too.
#include "alloc_counter.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> g_in_use{0};
std::atomic<std::size_t> g_peak{0};

// p counted, or null when malloc failed (the nothrow forms return that; the others throw).
void* counted_or_null(void* p) {
    if (!p) return nullptr;
    const std::size_t now = g_in_use.fetch_add(malloc_usable_size(p), std::memory_order_relaxed) + malloc_usable_size(p);
    std::size_t peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
    return p;
}

void* counted(void* p) {
    if (!p) throw std::bad_alloc();
    return counted_or_null(p);
}

void uncounted(void* p) {
    if (!p) return;
    g_in_use.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
    std::free(p);
}

std::size_t aligned_size(std::size_t size, std::align_val_t align) {
    const auto a = static_cast<std::size_t>(align);
    return (size + a - 1) / a * a;  // aligned_alloc wants a multiple of the alignment
}

}  // namespace

namespace attn::bench {

std::size_t heap_bytes_in_use() { return g_in_use.load(); }
std::size_t heap_bytes_peak() { return g_peak.load(); }
void reset_heap_peak() { g_peak.store(g_in_use.load()); }

}  // namespace attn::bench

void* operator new(std::size_t size) { return counted(std::malloc(size ? size : 1)); }
void* operator new[](std::size_t size) { return counted(std::malloc(size ? size : 1)); }
void* operator new(std::size_t size, std::align_val_t align) {
    return counted(std::aligned_alloc(static_cast<std::size_t>(align), aligned_size(size ? size : 1, align)));
}
void* operator new[](std::size_t size, std::align_val_t align) {
    return counted(std::aligned_alloc(static_cast<std::size_t>(align), aligned_size(size ? size : 1, align)));
}
// The nothrow forms too: the standard library allocates with them (std::stable_sort's buffer), and
// a block from the sanitizer's own operator new freed here would not be the same allocator's.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_or_null(std::malloc(size ? size : 1)); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_or_null(std::malloc(size ? size : 1)); }
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return counted_or_null(std::aligned_alloc(static_cast<std::size_t>(align), aligned_size(size ? size : 1, align)));
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return counted_or_null(std::aligned_alloc(static_cast<std::size_t>(align), aligned_size(size ? size : 1, align)));
}
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { uncounted(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { uncounted(p); }
