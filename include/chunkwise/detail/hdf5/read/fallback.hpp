#pragma once
// Internal: what HDF5 itself reads and converts, under the library lock: boxes through H5Dread
// (other filters, other layouts, partial rows of contiguous data; enums and bitfields through
// their own type, then converted as integers), and conversions that round or clip (H5Tconvert,
// the conversion H5Dread applies) of values chunkwise decoded.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/read/bytes.hpp>
#include <chunkwise/detail/hdf5/read/copy.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/detail/hdf5/types.hpp>

#include <hdf5.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// The box [lo, hi) of the dataset, read and converted by HDF5 (H5Dread under the lock) into
/// out (extent out_shape) at out_lo. Fill values for chunks never written, any conversion.
template <class T>
void hdf5_read_box(const dataset_state& s, const std::size_t* lo, const std::size_t* hi, T* out,
                   const std::size_t* out_shape, const std::size_t* out_lo) {
    const std::size_t n = s.dims.size();
    std::vector<hsize_t> start(n), count(n), mshape(n), mstart(n);
    std::size_t elements = 1;
    for (std::size_t d = 0; d < n; ++d) {
        start[d] = lo[d];
        count[d] = hi[d] - lo[d];
        mshape[d] = out_shape[d];
        mstart[d] = out_lo[d];
        elements *= hi[d] - lo[d];
    }
    if (elements == 0) return;
    auto failed = [&] { s.fail("reading " + box_text(lo, n) + " to " + box_text(hi, n) + " failed: " + last_error()); };
    library_lock lock;
    handle fspace(H5Dget_space(s.dset_h.get()), H5Sclose);
    if (!fspace.valid() ||
        H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0) {
        failed();
    }
    // worker_stats::read_bytes: the box's values as stored (HDF5 reads at least these).
    chunkwise::detail::thread_read_bytes += static_cast<double>(elements * s.element_bytes);
    if (!s.type.via_base) {
        handle mspace(H5Screate_simple(static_cast<int>(n), mshape.data(), nullptr), H5Sclose);
        if (!mspace.valid() ||
            H5Sselect_hyperslab(mspace.get(), H5S_SELECT_SET, mstart.data(), nullptr, count.data(), nullptr) < 0 ||
            H5Dread(s.dset_h.get(), native_type<T>(), mspace.get(), fspace.get(), H5P_DEFAULT, out) < 0) {
            failed();
        }
        return;
    }
    // Enums and bitfields: HDF5 converts enums only to enums (mapping values that are not members
    // to all ones) and bitfields only to bitfields. Read the stored bytes through the dataset's
    // own type (no conversion), then convert their integers to T by HDF5's integer rules: the
    // stored integers, as h5py and the fast path give them.
    const std::size_t width = std::max(s.element_bytes, sizeof(T));
    std::vector<unsigned char> buffer;
    try {
        buffer.resize(elements * width);
    } catch (const std::bad_alloc&) {
        s.fail("cannot allocate " + std::to_string(elements * width) + " bytes to read " + s.type.text + " values");
    }
    handle mspace(H5Screate_simple(static_cast<int>(n), count.data(), nullptr), H5Sclose);
    if (!mspace.valid() ||
        H5Dread(s.dset_h.get(), s.file_type.get(), mspace.get(), fspace.get(), H5P_DEFAULT, buffer.data()) < 0 ||
        H5Tconvert(s.stored_type.get(), native_type<T>(), elements, buffer.data(), nullptr, H5P_DEFAULT) < 0) {
        failed();
    }
    std::vector<std::size_t> zero(n, 0), extent(count.begin(), count.end());
    copy_box<T>(buffer.data(), element_type_of<T>(), extent.data(), zero.data(), extent.data(), out, out_shape, out_lo,
                n);
}

/// Converts n stored values in place (buf holds n * max(stored size, sizeof(T)) bytes) to T by
/// HDF5's rules (H5Tconvert: the conversion H5Dread applies), under the lock.
template <class T>
void convert_through_hdf5(const dataset_state& s, unsigned char* buf, std::size_t n) {
    library_lock lock;
    if (H5Tconvert(s.stored_type.get(), native_type<T>(), n, buf, nullptr, H5P_DEFAULT) < 0) {
        s.fail("converting " + s.type.text + " values failed: " + last_error());
    }
}

/// The box [lo, hi) of an array of `esize`-byte elements (extent src_shape) gathered into dst,
/// contiguous, row-major.
CHUNKWISE_HDF5_DECL void gather_box_bytes(const unsigned char* src, std::size_t esize, const std::size_t* src_shape,
                                          const std::size_t* lo, const std::size_t* hi, unsigned char* dst,
                                          std::size_t n);

/// The box [lo, hi) of decoded stored values (extent src_shape) into out at out_lo, converted to
/// T: in the calling thread where the conversion is exact, else by HDF5's rules.
template <class T>
void place_box(const dataset_state& s, scratch& buf, const unsigned char* src, const std::size_t* src_shape,
               const std::size_t* lo, const std::size_t* hi, T* out, const std::size_t* out_shape,
               const std::size_t* out_lo) {
    const std::size_t n = s.dims.size();
    if (exact_conversion<T>(s.type)) {
        copy_box<T>(src, s.type, src_shape, lo, hi, out, out_shape, out_lo, n);
        return;
    }
    std::vector<std::size_t> extent(n), zero(n, 0);
    std::size_t count = 1;
    for (std::size_t d = 0; d < n; ++d) {
        extent[d] = hi[d] - lo[d];
        count *= extent[d];
    }
    if (count == 0) return;
    grow(buf.c, count * std::max(s.element_bytes, sizeof(T)), s);
    gather_box_bytes(src, s.element_bytes, src_shape, lo, hi, buf.c.data(), n);
    convert_through_hdf5<T>(s, buf.c.data(), count);
    copy_box<T>(buf.c.data(), element_type_of<T>(), extent.data(), zero.data(), extent.data(), out, out_shape, out_lo,
                n);
}

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/fallback.ipp>
#endif
