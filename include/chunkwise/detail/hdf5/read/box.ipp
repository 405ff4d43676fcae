// The definitions of chunkwise/detail/hdf5/read/box.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL bool reads_bytes_itself(const dataset_state& s) {
    if (!s.type.numeric) return false;
    if (s.layout == storage::contiguous) return s.contiguous_fd >= 0;
    return s.layout == storage::chunked && s.decodable && (s.index.usable() || s.probing || s.listed);
}

}  // namespace chunkwise::h5::detail
