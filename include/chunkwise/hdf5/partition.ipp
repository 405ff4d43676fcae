// The definitions of chunkwise/hdf5/partition.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {

[[nodiscard]] CHUNKWISE_HDF5_DECL std::vector<block> partition(const dataset& ds, block_bytes b) {
    const std::vector<std::size_t> shape = ds.shape();
    return chunkwise::detail::partition_by_bytes(
        shape[0], ds.chunks()[0], ds.element_size() * chunkwise::detail::row_values(shape), b, "[chunkwise.h5]");
}

}  // namespace chunkwise::h5
