// The timed passes every store's benchmark shares, written once over the store-neutral face
// (chunkwise::chunked_array: h5::dataset, zarr::array, any store's array): readers timed in
// rounds, and a pass of map_blocks over a partition reading each block into a buffer of its
// thread. Standard library and chunkwise's core only.
#pragma once

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/store.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <span>
#include <vector>

namespace bench_read {

/// Timed readers run in rounds: each round calls every reader once, in the order added; the
/// first round is untimed (warm-up), and each reader's figure is its best round.
class round_robin {
public:
    /// Adds a reader; returns its index for best().
    std::size_t add(std::function<void()> f) {
        readers_.push_back(std::move(f));
        best_.push_back(std::numeric_limits<double>::infinity());
        return readers_.size() - 1;
    }

    /// One untimed round, then `timed` timed ones.
    void run(std::size_t timed) {
        for (std::size_t r = 0; r <= timed; ++r) {
            for (std::size_t i = 0; i < readers_.size(); ++i) {
                const auto t0 = chunkwise::clock::now();
                readers_[i]();
                if (r > 0) best_[i] = std::min(best_[i], chunkwise::seconds_since(t0));
            }
        }
    }

    /// Reader i's fastest timed round, in seconds.
    [[nodiscard]] double best(std::size_t i) const { return best_.at(i); }

private:
    std::vector<std::function<void()>> readers_;
    std::vector<double> best_;
};

/// One pass over `a`: every block read on `pool` into a buffer of its thread, as T (every store
/// alike: the pass the benchmarks time). Returns a value of the pass, so that it is not optimised away.
template <class T, class Array>
requires chunkwise::chunked_array<Array, T> T read_pass(chunkwise::thread_policy& pool, const Array& a,
                                                        const std::vector<chunkwise::block>& blocks) {
    std::size_t row_elements = 1;
    const std::vector<std::size_t> shape = a.shape();
    for (std::size_t d = 1; d < shape.size(); ++d) row_elements *= shape[d];
    const auto firsts = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                                              thread_local std::vector<T> buf;
                                              buf.resize(b.size() * row_elements);
                                              a.read_into(b, std::span<T>(buf));
                                              return buf.empty() ? T{} : buf[0];
                                          }));
    return firsts.empty() ? T{} : firsts.front();
}

/// Every value of `a`, read on `pool` block by block into one array (row-major): what the
/// benchmarks check a pass's values with.
template <class T, class Array>
requires chunkwise::chunked_array<Array, T> std::vector<T> read_values(chunkwise::thread_policy& pool, const Array& a,
                                                                       const std::vector<chunkwise::block>& blocks) {
    std::size_t row_elements = 1;
    const std::vector<std::size_t> shape = a.shape();
    for (std::size_t d = 1; d < shape.size(); ++d) row_elements *= shape[d];
    std::vector<T> got(shape[0] * row_elements);
    (void)chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                                a.read_into(b,
                                            std::span<T>(got.data() + b.begin * row_elements, b.size() * row_elements));
                                return 0;
                            }));
    return got;
}

}  // namespace bench_read
