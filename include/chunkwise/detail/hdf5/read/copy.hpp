#pragma once
// Internal: copying the part of a decoded chunk that a read asked for into the read's output,
// converting to T on the way. The stored type is dispatched once per chunk; the two innermost
// iterated axes run in one tight loop, so chunks that split the trailing axes (h5py's automatic
// chunks, e.g. (13, 3495, 1) of a (frames, atoms, 3) trajectory: one coordinate of a few
// thousand atoms) scatter at memory speed rather than one call per element; chunks one element
// wide on the last axis, side by side, are woven together (interleave_box).
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/read/convert.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::h5::detail {

/// Calls f(std::type_identity<S>{}) with S the C++ type of the raw stored element type.
template <class F>
void with_stored_type(const element_type& t, F&& f) {
    using E = element_type::kind;
    switch (t.k) {
        case E::signed_int:
            switch (t.size) {
                case 1:
                    return f(std::type_identity<std::int8_t>{});
                case 2:
                    return f(std::type_identity<std::int16_t>{});
                case 4:
                    return f(std::type_identity<std::int32_t>{});
                default:
                    return f(std::type_identity<std::int64_t>{});
            }
        case E::unsigned_int:
            switch (t.size) {
                case 1:
                    return f(std::type_identity<std::uint8_t>{});
                case 2:
                    return f(std::type_identity<std::uint16_t>{});
                case 4:
                    return f(std::type_identity<std::uint32_t>{});
                default:
                    return f(std::type_identity<std::uint64_t>{});
            }
        case E::floating:
            if (t.size == 4) return f(std::type_identity<float>{});
            if (t.size == 8) return f(std::type_identity<double>{});
            // T's own long double (values HDF5 converted to it): raw stored floats are 4 or 8 bytes
            if (t.size == sizeof(long double)) return f(std::type_identity<long double>{});
            throw std::logic_error("chunkwise: a copy of a " + std::to_string(t.size) + "-byte float");
        default:
            throw std::logic_error("chunkwise: a copy of a type without a fast path");
    }
}

/// count rows of `run` elements: row c starts at src + c * src_stride elements (of S) and at
/// dst + c * dst_stride (of T).
template <class S, class T>
void copy_rows(const unsigned char* src, std::size_t src_stride, T* dst, std::size_t dst_stride, std::size_t count,
               std::size_t run, bool swap) {
    if (run == 1) {
        if (!swap) {
            for (std::size_t c = 0; c < count; ++c) {
                S s;
                std::memcpy(&s, src + c * src_stride * sizeof(S), sizeof(S));
                dst[c * dst_stride] = static_cast<T>(s);
            }
        } else {
            for (std::size_t c = 0; c < count; ++c) {
                dst[c * dst_stride] = static_cast<T>(load_element<S>(src + c * src_stride * sizeof(S), true));
            }
        }
        return;
    }
    for (std::size_t c = 0; c < count; ++c) {
        convert_run_as<S>(src + c * src_stride * sizeof(S), dst + c * dst_stride, run, swap);
    }
}

/// n indices on the stack up to rank 16 (no allocation per chunk), on the heap beyond.
class box_indices {
public:
    explicit box_indices(std::size_t n) {
        if (n > local) heap_.resize(n);
    }
    [[nodiscard]] std::size_t* data() noexcept { return heap_.empty() ? local_ : heap_.data(); }

private:
    static constexpr std::size_t local = 16;
    std::size_t local_[local];
    std::vector<std::size_t> heap_;
};

/// Element strides of a row-major array of extent shape[0, n) into out[0, n).
inline void row_major_strides(const std::size_t* shape, std::size_t n, std::size_t* out) {
    out[n - 1] = 1;
    for (std::size_t d = n - 1; d > 0; --d) out[d - 1] = out[d] * shape[d];
}

/// Walks the box [lo, hi) of a source array (strides sstr) copied to a destination (strides
/// dstr, box at dst_lo): calls f(s, o) with the element offsets in each for every index of axes
/// [0, iterated), row-major, axes [iterated, used) at lo[d] (the kernel f runs covers them).
template <class F>
void walk_box(const std::size_t* lo, const std::size_t* hi, const std::size_t* dst_lo, const std::size_t* sstr,
              const std::size_t* dstr, std::size_t iterated, std::size_t used, F&& f) {
    box_indices idx(used);
    std::size_t* at = idx.data();
    for (std::size_t d = 0; d < used; ++d) at[d] = lo[d];
    for (;;) {
        std::size_t s = 0, o = 0;
        for (std::size_t d = 0; d < used; ++d) {
            s += at[d] * sstr[d];
            o += (at[d] - lo[d] + dst_lo[d]) * dstr[d];
        }
        f(s, o);
        std::size_t d = iterated;
        for (;;) {
            if (d == 0) return;
            --d;
            if (++at[d] < hi[d]) break;
            at[d] = lo[d];
        }
    }
}

/// The box [lo, hi) of an array of `esize`-byte elements (extent src_shape) copied as it is into
/// dst (extent dst_shape, box at dst_lo).
CHUNKWISE_HDF5_DECL void copy_box_bytes(const unsigned char* src, std::size_t esize, const std::size_t* src_shape,
                                        const std::size_t* lo, const std::size_t* hi, unsigned char* dst,
                                        const std::size_t* dst_shape, const std::size_t* dst_lo, std::size_t n);

/// A box [lo, hi) of an N-d array stored row-major in `src` (extent `src_shape`, element type
/// `et`, box coordinates relative to src's origin) copied to `dst` (extent `dst_shape`, box at
/// `dst_lo`), converted to T. Only call where exact_conversion<T>(et).
template <class T>
void copy_box(const unsigned char* src, const element_type& et, const std::size_t* src_shape, const std::size_t* lo,
              const std::size_t* hi, T* dst, const std::size_t* dst_shape, const std::size_t* dst_lo, std::size_t n) {
    for (std::size_t d = 0; d < n; ++d) {
        if (lo[d] >= hi[d]) return;
    }
    box_indices ss(n), ds(n);
    std::size_t* sstr = ss.data();
    std::size_t* dstr = ds.data();
    row_major_strides(src_shape, n, sstr);
    row_major_strides(dst_shape, n, dstr);
    // Trailing axes that the box covers whole in both arrays are one contiguous run: k is the
    // innermost axis still iterated.
    std::size_t k = n - 1;
    while (k > 0 && lo[k] == 0 && hi[k] == src_shape[k] && src_shape[k] == dst_shape[k] && dst_lo[k] == 0) --k;
    const std::size_t run = (hi[k] - lo[k]) * sstr[k];
    const bool swap = et.big_endian != (std::endian::native == std::endian::big);

    with_stored_type(et, [&]<class S>(std::type_identity<S>) {
        if (k == 0) {
            copy_rows<S>(src + lo[0] * sstr[0] * sizeof(S), 0, dst + dst_lo[0] * dstr[0], 0, 1, run, swap);
            return;
        }
        // Axis k-1 is the 2-D kernel's row axis, k its run; axes before them are walked.
        const std::size_t rows = hi[k - 1] - lo[k - 1];
        walk_box(lo, hi, dst_lo, sstr, dstr, k - 1, k + 1, [&](std::size_t s, std::size_t o) {
            copy_rows<S>(src + s * sizeof(S), sstr[k - 1], dst + o, dstr[k - 1], rows, run, swap);
        });
    });
}

/// The most planes interleave_box weaves at once (x, y, z: 3).
inline constexpr std::size_t interleave_most = 8;

/// dst[i * k + j] = src[j][i] for i < count, j < k: k planes of one coordinate each (chunks
/// one element wide on the last axis, k of them side by side) woven into whole rows, each
/// destination line written once.
template <class T>
void interleave_run(const T* const* src, std::size_t k, std::size_t count, T* dst) {
    if (k == 3) {  // x, y, z
        const T *a = src[0], *b = src[1], *c = src[2];
        for (std::size_t i = 0; i < count; ++i) {
            dst[3 * i] = a[i];
            dst[3 * i + 1] = b[i];
            dst[3 * i + 2] = c[i];
        }
        return;
    }
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t j = 0; j < k; ++j) dst[i * k + j] = src[j][i];
    }
}

/// The box [lo, hi) of k chunks that lie side by side on the last axis, each one element wide
/// there (chunk j holds element j of that axis), woven into dst (extent dst_shape, k on the last
/// axis; box at dst_lo, last axis whole). Each planes[j] holds its chunk's values of T, row-major,
/// extent src_shape (src_shape[n - 1] == 1). n >= 2, 1 <= k <= interleave_most.
template <class T>
void interleave_box(const T* const* planes, std::size_t k, const std::size_t* src_shape, const std::size_t* lo,
                    const std::size_t* hi, T* dst, const std::size_t* dst_shape, const std::size_t* dst_lo,
                    std::size_t n) {
    for (std::size_t d = 0; d + 1 < n; ++d) {
        if (lo[d] >= hi[d]) return;
    }
    if (k == 0 || k > interleave_most)
        throw std::logic_error("chunkwise: interleave_box of " + std::to_string(k) + " planes");
    box_indices ss(n), ds(n);
    std::size_t* sstr = ss.data();
    std::size_t* dstr = ds.data();
    row_major_strides(src_shape, n, sstr);
    row_major_strides(dst_shape, n, dstr);
    const std::size_t m = n - 2;  // the run's axis: its elements are adjacent in every plane
    const std::size_t count = hi[m] - lo[m];
    const T* row[interleave_most];
    walk_box(lo, hi, dst_lo, sstr, dstr, m, m + 1, [&](std::size_t s, std::size_t o) {
        for (std::size_t j = 0; j < k; ++j) row[j] = planes[j] + s;
        interleave_run(row, k, count, dst + o);
    });
}

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/copy.ipp>
#endif
