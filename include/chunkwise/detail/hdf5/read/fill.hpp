#pragma once
// Internal: chunks never written read as the fill value, as H5Dread gives it (0 where HDF5 would
// leave the buffer untouched: fill time "never", no fill value); a damaged fill value message is
// an h5::error, never a guess.
#include <chunkwise/detail/hdf5/library.hpp>
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

/// The value chunks never written read as, converted to T: HDF5's fill value, or 0 where HDF5
/// writes nothing (fill time "never", no fill value). Call with the lock held.
template <class T>
T fill_value(const dataset_state& s) {
    if (!s.fill_defect.empty())
        s.fail("a chunk never written reads as the fill value, but " + s.fill_defect + " (corrupted?)");
    if (!s.writes_fill) return T{0};
    if (!s.type.via_base) {
        T v{};
        if (H5Pget_fill_value(s.dcpl_h.get(), native_type<T>(), &v) < 0)
            s.fail("cannot read the fill value: " + last_error());
        return v;
    }
    // The stored integer of an enum or bitfield (through the dataset's own type: no mapping).
    unsigned char buffer[64] = {};
    if (H5Tget_size(s.file_type.get()) > sizeof buffer || sizeof(T) > sizeof buffer ||
        H5Pget_fill_value(s.dcpl_h.get(), s.file_type.get(), buffer) < 0 ||
        H5Tconvert(s.stored_type.get(), native_type<T>(), 1, buffer, nullptr, H5P_DEFAULT) < 0) {
        s.fail("cannot read the fill value: " + last_error());
    }
    T v;
    std::memcpy(&v, buffer, sizeof(T));
    return v;
}

/// Writes `value` into the box [dst_lo, dst_lo + extent) of dst (extent dst_shape).
template <class T>
void fill_box(T* dst, const std::size_t* dst_shape, const std::size_t* dst_lo, const std::size_t* extent, std::size_t n,
              T value) {
    std::vector<std::size_t> at(n, 0);
    std::size_t stride = 1;
    for (std::size_t d = 0; d < n; ++d) {
        if (extent[d] == 0) return;
    }
    for (;;) {
        std::size_t o = 0;
        stride = 1;
        for (std::size_t d = n; d-- > 0;) {
            o += (dst_lo[d] + at[d]) * stride;
            stride *= dst_shape[d];
        }
        std::fill(dst + o, dst + o + extent[n - 1], value);
        std::size_t d = n - 1;
        for (;;) {
            if (d == 0) return;
            --d;
            if (++at[d] < extent[d]) break;
            at[d] = 0;
        }
    }
}

/// The box [lo, hi) of a chunk never written, filled in place (out at out_lo, extent out_shape).
/// HDF5 is asked for the first few of these values too: a damaged fill value message makes it
/// fill a pattern, not one value, which is then an h5::error rather than a guess.
template <class T>
void fill_absent(const dataset_state& s, const std::size_t* lo, const std::size_t* hi, T* out,
                 const std::size_t* out_shape, const std::size_t* out_lo) {
    const std::size_t n = s.dims.size();
    std::vector<std::size_t> extent(n);
    for (std::size_t d = 0; d < n; ++d) extent[d] = hi[d] - lo[d];
    T value{};
    {
        library_lock lock;
        value = fill_value<T>(s);
        if (s.writes_fill && !s.type.via_base) {
            std::vector<hsize_t> start(lo, lo + n), count(n, 1);
            count[n - 1] = std::min<std::size_t>(extent[n - 1], 16);
            std::vector<T> check(static_cast<std::size_t>(count[n - 1]));
            handle fspace(H5Dget_space(s.dset_h.get()), H5Sclose);
            handle mspace(H5Screate_simple(static_cast<int>(n), count.data(), nullptr), H5Sclose);
            bool same =
                fspace.valid() && mspace.valid() &&
                H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) >= 0 &&
                H5Dread(s.dset_h.get(), native_type<T>(), mspace.get(), fspace.get(), H5P_DEFAULT, check.data()) >= 0;
            for (const T& v : check) same = same && std::memcmp(&v, &value, sizeof(T)) == 0;
            if (!same) {
                s.fail("chunk at " + box_text(lo, n) +
                       " was never written and HDF5 does not fill it with one fill value "
                       "(a damaged fill value message?)" +
                       (H5Eget_num(H5E_DEFAULT) > 0 ? ": " + last_error() : std::string()));
            }
        }
    }
    fill_box(out, out_shape, out_lo, extent.data(), n, value);
}

}  // namespace chunkwise::h5::detail
