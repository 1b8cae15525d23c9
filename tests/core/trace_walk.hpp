#pragma once
// Reading a traced algorithm's steps in order (flash forward, flash backward, standard attention)
// while checking its HBM bookkeeping: each step's cumulative counters must grow by exactly the
// bytes of its own transfers, so every transfer is counted and nothing else is.
#include <cstdint>
#include <vector>

#include "attn/attention/io_trace.hpp"
#include "support.hpp"

namespace attn::test {

template <class Step>
class TraceWalk {
public:
    explicit TraceWalk(const std::vector<Step>& trace) : trace_(trace) {}

    // The next step, whatever its kind.
    const Step& next() {
        const Step& s = trace_.at(pos_++);
        std::uint64_t step_read = 0, step_written = 0;
        for (const auto& t : s.transfers) (t.direction == HbmDirection::read ? step_read : step_written) += t.bytes;
        CHECK(s.hbm_bytes_read == read_ + step_read);
        CHECK(s.hbm_bytes_written == written_ + step_written);
        read_ = s.hbm_bytes_read;
        written_ = s.hbm_bytes_written;
        return s;
    }

    // The next step, which must be of this kind.
    const Step& next(decltype(Step::kind) kind) {
        const Step& s = next();
        CHECK(s.kind == kind);
        return s;
    }

    const Step& last() const { return trace_.at(pos_ - 1); }
    bool done() const { return pos_ == trace_.size(); }
    // Bytes read from and written to HBM by the steps walked so far.
    std::uint64_t read() const { return read_; }
    std::uint64_t written() const { return written_; }

private:
    const std::vector<Step>& trace_;
    std::size_t pos_ = 0;
    std::uint64_t read_ = 0, written_ = 0;
};

}  // namespace attn::test
