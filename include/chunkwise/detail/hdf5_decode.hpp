#pragma once
// Internal: decoding HDF5 chunks in the calling thread, outside any lock: deflate (libdeflate
// where chunkwise::hdf5 was built with it, else zlib), shuffle, byte order, and the conversions
// that are exact (same type, or widening) from the stored element type to T.
#include <zlib.h>
#if defined(CHUNKWISE_USE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::h5::detail {

/// The stored element type, as far as the fast path needs it.
struct element_type {
    enum class kind { signed_int, unsigned_int, floating, other };
    kind k = kind::other;
    std::size_t size = 0;
    bool big_endian = false;
};

/// Inflates a zlib stream (what HDF5's deflate filter writes) into exactly `out_size` bytes.
/// Throws std::runtime_error when the stream is corrupt or of another size.
inline void inflate_exact(const unsigned char* in, std::size_t in_size, unsigned char* out, std::size_t out_size) {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    struct freer {
        void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
    };
    thread_local std::unique_ptr<libdeflate_decompressor, freer> d(libdeflate_alloc_decompressor());
    if (!d) throw std::runtime_error("cannot allocate a libdeflate decompressor");
    std::size_t got = 0;
    const auto rc = libdeflate_zlib_decompress(d.get(), in, in_size, out, out_size, &got);
    if (rc != LIBDEFLATE_SUCCESS || got != out_size) {
        throw std::runtime_error("corrupt deflate stream in a chunk (libdeflate: " +
                                 std::string(rc == LIBDEFLATE_BAD_DATA ? "bad data" : "wrong size") + ", " +
                                 std::to_string(got) + " of " + std::to_string(out_size) + " bytes)");
    }
#else
    if (in_size > std::numeric_limits<uLong>::max() || out_size > std::numeric_limits<uLongf>::max()) {
        throw std::runtime_error("chunk too large for zlib");
    }
    uLongf got = static_cast<uLongf>(out_size);
    const int rc = ::uncompress(out, &got, in, static_cast<uLong>(in_size));
    if (rc != Z_OK || got != out_size) {
        throw std::runtime_error("corrupt deflate stream in a chunk (zlib error " + std::to_string(rc) + ", " +
                                 std::to_string(got) + " of " + std::to_string(out_size) + " bytes)");
    }
#endif
}

/// Undoes HDF5's shuffle filter: byte b of element i was stored at b * n + i.
inline void unshuffle(const unsigned char* in, unsigned char* out, std::size_t bytes, std::size_t elem_size) {
    if (elem_size <= 1) {
        std::memcpy(out, in, bytes);
        return;
    }
    const std::size_t n = bytes / elem_size;
    for (std::size_t b = 0; b < elem_size; ++b) {
        const unsigned char* src = in + b * n;
        for (std::size_t i = 0; i < n; ++i) out[i * elem_size + b] = src[i];
    }
    // Trailing bytes that do not make a whole element are stored unshuffled.
    std::memcpy(out + n * elem_size, in + n * elem_size, bytes - n * elem_size);
}

/// True when every value of the stored type converts to T exactly (no rounding, no clipping).
template <class T>
bool exact_conversion(const element_type& t) {
    if constexpr (!std::is_arithmetic_v<T> || std::is_same_v<T, bool>) {
        return false;
    } else {
        using E = element_type::kind;
        constexpr std::size_t tsize = sizeof(T);
        if (t.size != 1 && t.size != 2 && t.size != 4 && t.size != 8) return false;
        if constexpr (std::is_floating_point_v<T>) {
            constexpr int digits = std::numeric_limits<T>::digits;
            if (t.k == E::floating) return (t.size == 4 && digits >= 24) || (t.size == 8 && digits >= 53);
            if (t.k == E::signed_int) return static_cast<int>(t.size * 8) - 1 <= digits;
            if (t.k == E::unsigned_int) return static_cast<int>(t.size * 8) <= digits;
            return false;
        } else if constexpr (std::is_signed_v<T>) {
            if (t.k == E::signed_int) return t.size <= tsize;
            if (t.k == E::unsigned_int) return t.size < tsize;
            return false;
        } else {
            return t.k == E::unsigned_int && t.size <= tsize;
        }
    }
}

template <class S>
S load_element(const unsigned char* p, bool swap) {
    using U = std::conditional_t<sizeof(S) == 1, std::uint8_t,
                                 std::conditional_t<sizeof(S) == 2, std::uint16_t,
                                                    std::conditional_t<sizeof(S) == 4, std::uint32_t, std::uint64_t>>>;
    U u;
    std::memcpy(&u, p, sizeof(U));
    if (swap) {
        if constexpr (sizeof(U) == 2) u = static_cast<U>((u >> 8) | (u << 8));
        if constexpr (sizeof(U) == 4) u = __builtin_bswap32(u);
        if constexpr (sizeof(U) == 8) u = __builtin_bswap64(u);
    }
    S s;
    std::memcpy(&s, &u, sizeof(S));
    return s;
}

template <class S, class T>
void convert_run_as(const unsigned char* src, T* dst, std::size_t n, bool swap) {
    if constexpr (std::is_same_v<S, T>) {
        if (!swap) {
            std::memcpy(dst, src, n * sizeof(T));
            return;
        }
    }
    for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<T>(load_element<S>(src + i * sizeof(S), swap));
}

/// Converts n stored elements at src to T at dst. Only call where exact_conversion<T>(t).
template <class T>
void convert_run(const element_type& t, const unsigned char* src, T* dst, std::size_t n) {
    const bool swap = t.big_endian != (std::endian::native == std::endian::big);
    using E = element_type::kind;
    switch (t.k) {
        case E::signed_int:
            switch (t.size) {
                case 1: return convert_run_as<std::int8_t>(src, dst, n, swap);
                case 2: return convert_run_as<std::int16_t>(src, dst, n, swap);
                case 4: return convert_run_as<std::int32_t>(src, dst, n, swap);
                default: return convert_run_as<std::int64_t>(src, dst, n, swap);
            }
        case E::unsigned_int:
            switch (t.size) {
                case 1: return convert_run_as<std::uint8_t>(src, dst, n, swap);
                case 2: return convert_run_as<std::uint16_t>(src, dst, n, swap);
                case 4: return convert_run_as<std::uint32_t>(src, dst, n, swap);
                default: return convert_run_as<std::uint64_t>(src, dst, n, swap);
            }
        case E::floating:
            if (t.size == 4) return convert_run_as<float>(src, dst, n, swap);
            return convert_run_as<double>(src, dst, n, swap);
        default:
            throw std::logic_error("convert_run on a type without a fast path");
    }
}

}  // namespace chunkwise::h5::detail
