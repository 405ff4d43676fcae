// The definitions of chunkwise/detail/hdf5/read/copy.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL void copy_box_bytes(const unsigned char* src, std::size_t esize, const std::size_t* src_shape,
                                        const std::size_t* lo, const std::size_t* hi, unsigned char* dst,
                                        const std::size_t* dst_shape, const std::size_t* dst_lo, std::size_t n) {
    for (std::size_t d = 0; d < n; ++d) {
        if (lo[d] >= hi[d]) return;
    }
    box_indices sstr(n), dstr(n);
    row_major_strides(src_shape, n, sstr.data());
    row_major_strides(dst_shape, n, dstr.data());
    const std::size_t run = (hi[n - 1] - lo[n - 1]) * esize;
    walk_box(lo, hi, dst_lo, sstr.data(), dstr.data(), n - 1, n,
             [&](std::size_t s, std::size_t o) { std::memcpy(dst + o * esize, src + s * esize, run); });
}

}  // namespace chunkwise::h5::detail
