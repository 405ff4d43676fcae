#pragma once
/// \file
/// `chunkwise::h5::partition`: blocks of a dataset's rows that never split a chunk, by count
/// (`parts`) or by size (`block_bytes`).

#include <chunkwise/hdf5/dataset.hpp>
#include <chunkwise/partition.hpp>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace chunkwise::h5 {

/// Ask `h5::partition` for blocks of about this many bytes of decoded data each.
struct block_bytes {
    std::size_t count;  ///< bytes of decoded data per block, about
};

/// The block size the docs recommend for a pass over a dataset: large enough that per-block
/// costs vanish, small enough that a block and its decode buffers stay in cache-friendly sizes
/// and a worker's buffer stays small (docs/hdf5.md, docs/performance.md).
inline constexpr block_bytes default_block_bytes{std::size_t{8} << 20};

/// Splits axis 0 of `ds` into min(p.count, chunk rows) balanced blocks that never split a chunk
/// between two blocks (boundaries on multiples of the chunk's extent along axis 0; balanced in
/// whole chunks). Contiguous datasets get plain balanced blocks.
/// \throws std::invalid_argument if p.count is 0
[[nodiscard]] inline std::vector<block> partition(const dataset& ds, parts p) {
    const std::size_t rows = ds.shape()[0];
    if (const auto chunk = ds.chunk_shape()) return chunkwise::partition(rows, p, align{(*chunk)[0]});
    return chunkwise::partition(rows, p);
}

/// Splits axis 0 of `ds` as partition(ds, p) does (own ranges never split a chunk), each block also
/// allowed to read h.items rows before and after its own range, clipped at the dataset's ends:
/// read them with `ds.read<T, N>(b.read_range())`, return results for [b.begin, b.end) only.
/// \throws std::invalid_argument if p.count is 0 or the halo is larger than the dataset's rows
[[nodiscard]] inline std::vector<halo_block> partition(const dataset& ds, parts p, halo h) {
    const std::size_t rows = ds.shape()[0];
    if (h.items > rows) {
        throw std::invalid_argument("[chunkwise.h5] halo{" + std::to_string(h.items) + "}: larger than " + ds.file() +
                                    ":" + ds.path() + ", which has " + std::to_string(rows) + " rows");
    }
    return chunkwise::detail::with_halo(partition(ds, p), rows, h);
}

/// Splits axis 0 of `ds` into blocks of about b.count bytes of decoded data (stored element
/// size), balanced, each a whole number of chunk rows (never splitting a chunk); a block is at
/// least one chunk row (one row for contiguous datasets) however small b.count is.
/// \throws std::invalid_argument if b.count is 0
[[nodiscard]] inline std::vector<block> partition(const dataset& ds, block_bytes b) {
    if (b.count == 0) {
        throw std::invalid_argument("[chunkwise.h5] block_bytes{0}: a block must hold at least 1 byte");
    }
    const std::vector<std::size_t> shape = ds.shape();
    const auto chunk = ds.chunk_shape();
    const std::size_t unit = chunk ? (*chunk)[0] : 1;  // rows that must stay together
    std::size_t row_bytes = ds.element_size();
    for (std::size_t d = 1; d < shape.size(); ++d) row_bytes *= shape[d];
    const std::size_t units = shape[0] / unit + (shape[0] % unit != 0 ? 1 : 0);
    if (units == 0) return {};
    const double unit_bytes = static_cast<double>(row_bytes) * static_cast<double>(unit);
    const double per_block = unit_bytes > 0 ? static_cast<double>(b.count) / unit_bytes : static_cast<double>(units);
    const std::size_t units_per_block = per_block >= static_cast<double>(units) ? units
                                        : per_block < 1.5                       ? 1
                                                          : static_cast<std::size_t>(per_block + 0.5);
    const std::size_t blocks = units / units_per_block + (units % units_per_block != 0 ? 1 : 0);
    return chunkwise::partition(shape[0], parts{blocks}, align{unit});
}

}  // namespace chunkwise::h5
