#pragma once
/// \file
/// `chunkwise::h5::partition`: blocks of a dataset's rows that never split a chunk, by count
/// (`parts`) or by size (`block_bytes`).

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/hdf5/dataset.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/store.hpp>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace chunkwise::h5 {

/// Ask `h5::partition` for blocks of about this many bytes of decoded data each (the store-neutral
/// `chunkwise::block_bytes`).
using block_bytes = chunkwise::block_bytes;
/// The block size the docs recommend for a pass over a dataset (`chunkwise::default_block_bytes`).
using chunkwise::default_block_bytes;

/// Splits axis 0 of `ds` into min(p.count, chunk rows) balanced blocks that never split a chunk
/// between two blocks (boundaries on multiples of the chunk's extent along axis 0; balanced in
/// whole chunks). Contiguous datasets get plain balanced blocks.
/// \throws std::invalid_argument if p.count is 0
[[nodiscard]] inline std::vector<block> partition(const dataset& ds, parts p) {
    return chunkwise::partition(ds.shape()[0], p, align{ds.chunks()[0]});
}

/// Splits axis 0 of `ds` as partition(ds, p) does (own ranges never split a chunk), each block also
/// allowed to read h.items rows before and after its own range, clipped at the dataset's ends:
/// read them with `ds.read<T, N>(b.read_range())`, return results for [b.begin, b.end) only.
/// \throws std::invalid_argument if p.count is 0 or the halo is larger than the dataset's rows
[[nodiscard]] inline std::vector<halo_block> partition(const dataset& ds, parts p, halo h) {
    return chunkwise::detail::partition_with_halo(ds.shape()[0], ds.chunks()[0], p, h, "[chunkwise.h5]",
                                                  ds.file() + ":" + ds.path());
}

/// Splits axis 0 of `ds` into blocks of about b.count bytes of decoded data (stored element
/// size), balanced, each a whole number of chunk rows (never splitting a chunk); a block is at
/// least one chunk row (one row for contiguous datasets) however small b.count is.
/// \throws std::invalid_argument if b.count is 0
[[nodiscard]] CHUNKWISE_HDF5_DECL std::vector<block> partition(const dataset& ds, block_bytes b);

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/partition.ipp>
#endif
