#pragma once
// Private to the core: the byte counter every IO-aware algorithm charges its HBM transfers to,
// which also lists the transfers of the current trace step when a trace is being recorded.
#include <cstdint>
#include <utility>
#include <vector>

#include "attn/attention/io_trace.hpp"

namespace attn::detail {

class HbmTraffic {
public:
    // The counters live in the algorithm's stats struct; this object only adds to them.
    HbmTraffic(std::uint64_t& bytes_read, std::uint64_t& bytes_written) : read_(bytes_read), written_(bytes_written) {}

    // Transfers are listed (for take_step) only while `listing` is true: the traced head.
    void set_listing(bool listing) { listing_ = listing; }

    // Moves rows [r0, r1) x columns [c0, c1) of `m`, `element_bytes` each, in direction `d`.
    void move(HbmMatrix m, HbmDirection d, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1,
              std::uint64_t element_bytes) {
        const std::uint64_t bytes = static_cast<std::uint64_t>(r1 - r0) * (c1 - c0) * element_bytes;
        (d == HbmDirection::read ? read_ : written_) += bytes;
        if (listing_) step_.push_back({m, d, r0, r1, c0, c1, bytes});
    }
    void read(HbmMatrix m, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::uint64_t eb) {
        move(m, HbmDirection::read, r0, r1, c0, c1, eb);
    }
    void write(HbmMatrix m, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::uint64_t eb) {
        move(m, HbmDirection::write, r0, r1, c0, c1, eb);
    }

    // The transfers listed since the previous call, in order.
    std::vector<HbmTransfer> take_step() { return std::exchange(step_, {}); }

private:
    std::uint64_t& read_;
    std::uint64_t& written_;
    bool listing_ = false;
    std::vector<HbmTransfer> step_;
};

}  // namespace attn::detail
