// The definitions of chunkwise/zarr/partition.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr {

[[nodiscard]] CHUNKWISE_ZARR_DECL std::vector<block> partition(const array& a, block_bytes b) {
    return chunkwise::detail::partition_by_bytes(a.shape()[0], a.chunks()[0],
                                                 a.element_size() * chunkwise::detail::row_values(a.shape()), b,
                                                 "[chunkwise.zarr]");
}

[[nodiscard]] CHUNKWISE_ZARR_DECL std::vector<block> partition(std::size_t rows, const write_options& opt, parts p) {
    if (opt.chunk.empty())
        throw std::invalid_argument("[chunkwise.zarr] partition(rows, options, parts): options.chunk is empty");
    const std::size_t unit = opt.shard.empty() ? opt.chunk[0] : opt.shard[0];
    if (unit == 0) throw std::invalid_argument("[chunkwise.zarr] partition(rows, options, parts): a chunk extent of 0");
    return chunkwise::partition(rows, p, align{unit});
}

}  // namespace chunkwise::zarr
