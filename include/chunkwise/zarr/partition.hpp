#pragma once
/// \file
/// `chunkwise::zarr::partition`: blocks of a Zarr array's rows that never split a chunk, by count
/// (`parts`) or by size (`bytes`), with or without a halo; and blocks of rows to be written that
/// never split a chunk (or shard) of the options they will be written with.

#include <chunkwise/partition.hpp>
#include <chunkwise/zarr/array.hpp>
#include <chunkwise/zarr/write.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::zarr {

/// Ask `zarr::partition` for blocks of about this many bytes of decoded data each.
struct bytes {
    std::size_t count;  ///< bytes of decoded data per block, about
};

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
    const std::size_t rows = a.shape()[0];
    if (h.items > rows)
        throw std::invalid_argument("[chunkwise.zarr] halo{" + std::to_string(h.items) + "}: larger than " + a.path() +
                                    ", which has " + std::to_string(rows) + " rows");
    return chunkwise::detail::with_halo(partition(a, p), rows, h);
}

/// Splits axis 0 of `a` into balanced blocks of about b.count bytes of decoded data, each a whole
/// number of chunk rows (at least one, however small b.count is).
/// \throws std::invalid_argument if b.count is 0
[[nodiscard]] inline std::vector<block> partition(const array& a, bytes b) {
    if (b.count == 0) throw std::invalid_argument("[chunkwise.zarr] bytes{0}: a block must hold at least 1 byte");
    const std::size_t unit = a.chunks()[0];
    double unit_bytes = static_cast<double>(a.element_size() * unit);
    for (std::size_t d = 1; d < a.rank(); ++d) unit_bytes *= static_cast<double>(a.shape()[d]);
    const std::size_t units = (a.shape()[0] + unit - 1) / unit;
    if (units == 0) return {};
    const double per = unit_bytes > 0 ? static_cast<double>(b.count) / unit_bytes : static_cast<double>(units);
    const std::size_t per_block = per >= static_cast<double>(units) ? units : per < 1.5 ? 1 : static_cast<std::size_t>(per + 0.5);
    return chunkwise::partition(a.shape()[0], parts{(units + per_block - 1) / per_block}, align{unit});
}

/// Splits `rows` rows to be written with `opt` into balanced blocks that never split a chunk (a
/// shard, where `opt` shards) along axis 0: zarr::write_blocks then sends no rows between processes.
/// \throws std::invalid_argument if p.count is 0 or opt names no chunk rows (opt.chunk empty)
[[nodiscard]] inline std::vector<block> partition(std::size_t rows, const write_options& opt, parts p) {
    if (opt.chunk.empty())
        throw std::invalid_argument("[chunkwise.zarr] partition(rows, options, parts): options.chunk is empty");
    const std::size_t unit = opt.shard.empty() ? opt.chunk[0] : opt.shard[0];
    if (unit == 0) throw std::invalid_argument("[chunkwise.zarr] partition(rows, options, parts): a chunk extent of 0");
    return chunkwise::partition(rows, p, align{unit});
}

}  // namespace chunkwise::zarr
