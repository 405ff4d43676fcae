#pragma once
// Internal: the bookkeeping of a streaming write, store-neutral. Rows of an array arrive in any order, from any
// thread, in runs of any length; a store writes whole units (its chunk rows: every chunk, or shard, whose first row is
// a multiple of the unit). A run that covers units whole hands them on from the caller's memory; the rows of a unit a
// run covers in part wait in a buffer of that unit until its other rows arrive, and the writer whose rows complete it
// hands it on. Nothing else is held: the buffer holds at most one unit for each boundary between runs that has one
// side written and not the other. A row written twice is refused before any byte of that run is taken.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::detail {

/// Rows of `row_bytes` bytes each, `rows` of them, gathered into units of `unit` rows (the last may be shorter).
class row_stream {
public:
    row_stream(std::size_t rows, std::size_t unit, std::size_t row_bytes)
            : rows_(rows), unit_(std::max<std::size_t>(unit, 1)), row_bytes_(row_bytes) {}

    /// Takes rows [first, first + count) at `data` (row-major) and calls `emit(first_row, bytes, rows)` for each
    /// run of whole units it completes: units this run covers whole straight from `data`, units it completes from
    /// the buffer. `emit` runs in the calling thread, outside the stream's lock, and never twice for one unit.
    /// \throws std::invalid_argument saying why when the rows pass the array's end or overlap rows given before
    ///         (nothing of this run is taken then); what `emit` throws passes through
    template <class Emit>
    void write(std::size_t first, const unsigned char* data, std::size_t count, Emit&& emit) {
        if (count == 0) return;
        const std::size_t end = first + count;
        std::vector<std::pair<std::size_t, std::vector<unsigned char>>> completed;  // units finished by this run
        std::size_t whole_first = 0, whole_end = 0;                                 // units covered whole, as rows
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (end > rows_ || end < first)
                throw std::invalid_argument("pass the end of the " + std::to_string(rows_) + " rows");
            claim(first, end);
            // [head, tail): the rows of whole units inside this run
            const std::size_t head = (first + unit_ - 1) / unit_ * unit_;
            const std::size_t tail = end == rows_ ? end : end / unit_ * unit_;
            if (head < tail) {
                whole_first = head;
                whole_end = tail;
            }
            const auto part = [&](std::size_t from, std::size_t to) {  // rows of one unit this run covers in part
                if (from >= to) return;
                const std::size_t u = from / unit_;
                const std::size_t u0 = u * unit_, n = std::min(u0 + unit_, rows_) - u0;
                auto& p = pending_[u];
                if (p.bytes.empty()) {
                    p.bytes.resize(n * row_bytes_);
                    held_ += p.bytes.size();
                    peak_ = std::max(peak_, held_);
                }
                std::memcpy(p.bytes.data() + (from - u0) * row_bytes_, data + (from - first) * row_bytes_,
                            (to - from) * row_bytes_);
                p.got += to - from;
                if (p.got == n) {
                    completed.emplace_back(u0, std::move(p.bytes));
                    pending_.erase(u);
                }
            };
            if (head >= tail) {  // no whole unit: the run lies in one or two units
                const std::size_t split = std::min(end, (first / unit_ + 1) * unit_);
                part(first, split);
                part(split, end);
            } else {
                part(first, head);
                part(tail, end);
            }
        }
        try {
            if (whole_first < whole_end)
                emit(whole_first, data + (whole_first - first) * row_bytes_, whole_end - whole_first);
            for (auto& [u0, bytes] : completed) {
                emit(u0, static_cast<const unsigned char*>(bytes.data()),
                     bytes.size() / std::max<std::size_t>(row_bytes_, 1));
                release(bytes.size());
                std::vector<unsigned char>().swap(bytes);
            }
        } catch (...) {
            for (auto& c : completed) release(c.second.size());
            throw;
        }
    }

    /// True when every row has been given.
    [[nodiscard]] bool complete() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return given_ == rows_;
    }

    /// The first rows not given, as "rows [a, b)" ("" when complete).
    [[nodiscard]] std::string first_gap() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        std::size_t at = 0;
        for (const auto& [a, b] : runs_) {
            if (a > at) return rows_text(at, a);
            at = b;
        }
        return at < rows_ ? rows_text(at, rows_) : std::string();
    }

    /// Bytes waiting in the buffer now, and at most so far.
    [[nodiscard]] std::size_t held_bytes() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return held_;
    }
    [[nodiscard]] std::size_t peak_bytes() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return peak_;
    }

    /// A unit whose rows have come in part: its first row and rows, the row ranges given in it, and its buffer.
    struct held_unit {
        std::size_t first = 0, rows = 0;
        std::vector<std::pair<std::size_t, std::size_t>> given;  // [a, b) inside [first, first + rows)
        std::vector<unsigned char> bytes;                        // rows * row_bytes; given rows filled
    };

    /// Takes the units held in part out of the buffer (for a writer that completes them with other processes'
    /// rows).
    std::vector<held_unit> take_held() {
        const std::lock_guard<std::mutex> lock(mutex_);
        std::vector<held_unit> out;
        for (auto& [u, p] : pending_) {
            held_unit h;
            h.first = u * unit_;
            h.rows = std::min(h.first + unit_, rows_) - h.first;
            for (const auto& [a, b] : runs_)
                if (a < h.first + h.rows && b > h.first)
                    h.given.emplace_back(std::max(a, h.first), std::min(b, h.first + h.rows));
            held_ -= p.bytes.size();
            h.bytes = std::move(p.bytes);
            out.push_back(std::move(h));
        }
        pending_.clear();
        return out;
    }

    /// The row ranges given so far, merged, in order.
    [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> runs() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return {runs_.begin(), runs_.end()};
    }

    [[nodiscard]] std::size_t unit() const noexcept { return unit_; }
    [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
    [[nodiscard]] std::size_t row_bytes() const noexcept { return row_bytes_; }

    static std::string rows_text(std::size_t a, std::size_t b) {
        return "rows [" + std::to_string(a) + ", " + std::to_string(b) + ")";
    }

private:
    struct unit_buffer {
        std::vector<unsigned char> bytes;
        std::size_t got = 0;
    };

    // Records [first, end) as given, merged with its neighbours. \throws std::invalid_argument on an overlap.
    void claim(std::size_t first, std::size_t end) {
        auto next = runs_.lower_bound(first);
        if (next != runs_.end() && next->first < end)
            throw std::invalid_argument("overlap " + rows_text(next->first, next->second) + " given before");
        if (next != runs_.begin()) {
            const auto prev = std::prev(next);
            if (prev->second > first)
                throw std::invalid_argument("overlap " + rows_text(prev->first, prev->second) + " given before");
        }
        std::size_t a = first, b = end;
        if (next != runs_.end() && next->first == end) {
            b = next->second;
            next = runs_.erase(next);
        }
        if (next != runs_.begin()) {
            const auto prev = std::prev(next);
            if (prev->second == first) {
                a = prev->first;
                runs_.erase(prev);
            }
        }
        runs_[a] = b;
        given_ += end - first;
    }

    void release(std::size_t n) {
        const std::lock_guard<std::mutex> lock(mutex_);
        held_ -= n;
    }

    std::size_t rows_, unit_, row_bytes_;
    mutable std::mutex mutex_;
    std::map<std::size_t, std::size_t> runs_;  // rows given: first -> end, merged
    std::map<std::size_t, unit_buffer> pending_;
    std::size_t given_ = 0, held_ = 0, peak_ = 0;
};

/// One process's part of a stream written by many: the rows it gave and the units it holds in part. `pack` and
/// `unpack` carry it between processes as bytes.
struct stream_part {
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    std::vector<row_stream::held_unit> held;

    [[nodiscard]] std::vector<unsigned char> pack() const {
        std::vector<unsigned char> out;
        const auto put = [&](std::size_t v) {
            const auto* b = reinterpret_cast<const unsigned char*>(&v);
            out.insert(out.end(), b, b + sizeof v);
        };
        put(runs.size());
        for (const auto& [a, b] : runs) {
            put(a);
            put(b);
        }
        put(held.size());
        for (const auto& h : held) {
            put(h.first);
            put(h.rows);
            put(h.given.size());
            for (const auto& [a, b] : h.given) {
                put(a);
                put(b);
            }
            put(h.bytes.size());
            out.insert(out.end(), h.bytes.begin(), h.bytes.end());
        }
        return out;
    }

    /// \throws std::invalid_argument where the bytes are not a packed stream_part
    static stream_part unpack(const std::vector<unsigned char>& in) {
        std::size_t at = 0;
        const auto get = [&] {
            std::size_t v = 0;
            if (in.size() - at < sizeof v) throw std::invalid_argument("a stream's part arrived cut short");
            std::memcpy(&v, in.data() + at, sizeof v);
            at += sizeof v;
            return v;
        };
        stream_part p;
        for (std::size_t n = get(); n > 0; --n) {
            const std::size_t a = get();
            p.runs.emplace_back(a, get());
        }
        for (std::size_t n = get(); n > 0; --n) {
            row_stream::held_unit h;
            h.first = get();
            h.rows = get();
            for (std::size_t k = get(); k > 0; --k) {
                const std::size_t a = get();
                h.given.emplace_back(a, get());
            }
            const std::size_t bytes = get();
            if (in.size() - at < bytes) throw std::invalid_argument("a stream's part arrived cut short");
            h.bytes.assign(in.begin() + static_cast<std::ptrdiff_t>(at),
                           in.begin() + static_cast<std::ptrdiff_t>(at + bytes));
            at += bytes;
            p.held.push_back(std::move(h));
        }
        return p;
    }
};

/// Why the parts of `rows` rows given by the processes (part k from process k) are not every row once ("" when
/// they are): the first rows two processes both gave, or the first rows none gave.
inline std::string coverage_problem(const std::vector<stream_part>& parts, std::size_t rows) {
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::size_t>> all;  // (run, process)
    for (std::size_t k = 0; k < parts.size(); ++k)
        for (const auto& r : parts[k].runs) all.push_back({r, k});
    std::sort(all.begin(), all.end());
    std::size_t at = 0, last = 0;
    for (const auto& [r, k] : all) {
        if (r.first < at)
            return row_stream::rows_text(r.first, std::min(at, r.second)) + " given by rank " + std::to_string(last) +
                   " and rank " + std::to_string(k);
        if (r.first > at) return row_stream::rows_text(at, r.first) + " never written";
        at = r.second;
        last = k;
    }
    return at < rows ? row_stream::rows_text(at, rows) + " never written" : std::string();
}

/// Completes the units the processes hold in part: process `me` assembles each unit of which it is the lowest
/// holder from every process's rows of it, and calls `emit(first_row, bytes, rows)` with it. Call after
/// coverage_problem found nothing.
template <class Emit>
void complete_held(const std::vector<stream_part>& parts, std::size_t me, std::size_t row_bytes, Emit&& emit) {
    std::map<std::size_t, std::vector<std::size_t>> holders;  // unit's first row -> processes, lowest first
    for (std::size_t k = 0; k < parts.size(); ++k)
        for (const auto& h : parts[k].held) holders[h.first].push_back(k);
    for (const auto& [first, who] : holders) {
        if (who.front() != me) continue;
        std::vector<unsigned char> unit;
        std::size_t rows = 0;
        for (std::size_t k : who)
            for (const auto& h : parts[k].held) {
                if (h.first != first) continue;
                rows = h.rows;
                unit.resize(h.rows * row_bytes);
                for (const auto& [a, b] : h.given)
                    std::memcpy(unit.data() + (a - first) * row_bytes, h.bytes.data() + (a - first) * row_bytes,
                                (b - a) * row_bytes);
            }
        emit(first, static_cast<const unsigned char*>(unit.data()), rows);
    }
}

}  // namespace chunkwise::detail
