#pragma once
/// \file
/// `chunkwise::zarr::partition`: blocks of a Zarr array's rows that never split a chunk, by count
/// (`parts`) or by size (`bytes`), with or without a halo; and blocks of rows to be written that
/// never split a chunk (or shard) of the options they will be written with.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr/array.hpp>
#include <chunkwise/zarr/write.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::zarr {

/// Ask `zarr::partition` for blocks of about this many bytes of decoded data each: the
/// store-neutral `chunkwise::block_bytes`, as h5::block_bytes.
using bytes = chunkwise::block_bytes;
/// The same, by the name both stores share.
using block_bytes = chunkwise::block_bytes;

/// Splits axis 0 of `a` into min(p.count, chunk rows) balanced blocks whose boundaries lie on
/// multiples of the chunk's extent along axis 0 (a sharded array's inner chunk: the unit read).
/// \throws std::invalid_argument if p.count is 0
[[nodiscard]] inline std::vector<block> partition(const array& a, parts p) {
    return chunkwise::partition(a.shape()[0], p, align{a.chunks()[0]});
}

/// As partition(a, p), each block also allowed to read h.items rows before and after its own range
/// (clipped at the array's ends): read `b.read_range()`, return results for [b.begin, b.end).
/// \throws std::invalid_argument if p.count is 0 or the halo is larger than the array's rows
[[nodiscard]] inline std::vector<halo_block> partition(const array& a, parts p, halo h) {
    return chunkwise::detail::partition_with_halo(a.shape()[0], a.chunks()[0], p, h, "[chunkwise.zarr]", a.store());
}

/// Splits axis 0 of `a` into balanced blocks of about b.count bytes of decoded data each, each a
/// whole number of chunk rows (at least one, however small b.count is).
/// \throws std::invalid_argument if b.count is 0
[[nodiscard]] CHUNKWISE_ZARR_DECL std::vector<block> partition(const array& a, block_bytes b);

/// Splits `rows` rows to be written with `opt` into balanced blocks that never split a chunk (a
/// shard, where `opt` shards) along axis 0: zarr::write_blocks then sends no rows between processes.
/// \throws std::invalid_argument if p.count is 0 or opt names no chunk rows (opt.chunk empty)
[[nodiscard]] CHUNKWISE_ZARR_DECL std::vector<block> partition(std::size_t rows, const write_options& opt, parts p);

}  // namespace chunkwise::zarr

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/zarr/partition.ipp>
#endif
