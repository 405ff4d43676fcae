// The definitions of chunkwise/detail/hdf5/read/fallback.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL void gather_box_bytes(const unsigned char* src, std::size_t esize, const std::size_t* src_shape,
                                          const std::size_t* lo, const std::size_t* hi, unsigned char* dst,
                                          std::size_t n) {
    box_indices extent(n), zero(n);
    for (std::size_t d = 0; d < n; ++d) {
        extent.data()[d] = hi[d] > lo[d] ? hi[d] - lo[d] : 0;
        zero.data()[d] = 0;
    }
    copy_box_bytes(src, esize, src_shape, lo, hi, dst, extent.data(), zero.data(), n);
}

}  // namespace chunkwise::h5::detail
