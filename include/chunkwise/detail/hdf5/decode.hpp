#pragma once
// Internal: decoding HDF5 chunks in the calling thread, outside any lock: deflate (libdeflate
// where chunkwise::hdf5 was built with it, i.e. CHUNKWISE_USE_LIBDEFLATE is defined, else zlib),
// shuffle with the filter's own element size, byte order, and the exact conversions from a raw
// stored element type to T.
#include <chunkwise/detail/hdf5/types.hpp>

#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(CHUNKWISE_USE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace chunkwise::h5::detail {

/// Inflates a zlib stream (what HDF5's deflate filter writes) into exactly `out_size` bytes.
/// Throws std::runtime_error when the stream is corrupt or decodes to another size.
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

/// Undoes HDF5's shuffle filter with element size `elem_size` (the filter's parameter, normally
/// the type's size): byte b of element i was stored at b * n + i, n = bytes / elem_size; bytes
/// past the last whole element are stored as they are. Like HDF5, nothing moves when n <= 1.
/// Element sizes 2, 4 and 8 interleave 16 elements at a time with SSE2 where the target has it.
inline void unshuffle(const unsigned char* in, unsigned char* out, std::size_t bytes, std::size_t elem_size) {
    if (bytes == 0) return;  // (in and out may be null then)
    const std::size_t n = elem_size == 0 ? 0 : bytes / elem_size;
    if (elem_size <= 1 || n <= 1) {
        std::memcpy(out, in, bytes);
        return;
    }
    std::size_t i = 0;  // elements done
#if defined(__SSE2__)
    const auto load = [&](std::size_t b, std::size_t at) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + b * n + at));
    };
    const auto store = [&](std::size_t at, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(out + at), v); };
    if (elem_size == 2) {
        for (; i + 16 <= n; i += 16) {
            const __m128i x0 = load(0, i), x1 = load(1, i);
            store(2 * i, _mm_unpacklo_epi8(x0, x1));
            store(2 * i + 16, _mm_unpackhi_epi8(x0, x1));
        }
    } else if (elem_size == 4) {
        for (; i + 16 <= n; i += 16) {
            const __m128i x0 = load(0, i), x1 = load(1, i), x2 = load(2, i), x3 = load(3, i);
            const __m128i lo01 = _mm_unpacklo_epi8(x0, x1), hi01 = _mm_unpackhi_epi8(x0, x1);
            const __m128i lo23 = _mm_unpacklo_epi8(x2, x3), hi23 = _mm_unpackhi_epi8(x2, x3);
            store(4 * i, _mm_unpacklo_epi16(lo01, lo23));
            store(4 * i + 16, _mm_unpackhi_epi16(lo01, lo23));
            store(4 * i + 32, _mm_unpacklo_epi16(hi01, hi23));
            store(4 * i + 48, _mm_unpackhi_epi16(hi01, hi23));
        }
    } else if (elem_size == 8) {
        for (; i + 16 <= n; i += 16) {
            __m128i x[8];
            for (std::size_t b = 0; b < 8; ++b) x[b] = load(b, i);
            __m128i p[8];  // byte pairs (0,1), (2,3), (4,5), (6,7): elements 0-7, then 8-15
            for (std::size_t k = 0; k < 4; ++k) {
                p[k] = _mm_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
                p[k + 4] = _mm_unpackhi_epi8(x[2 * k], x[2 * k + 1]);
            }
            for (std::size_t h = 0; h < 2; ++h) {  // elements 8h .. 8h + 7
                const __m128i* q = p + 4 * h;
                const __m128i a0 = _mm_unpacklo_epi16(q[0], q[1]), a1 = _mm_unpackhi_epi16(q[0], q[1]);  // bytes 0-3
                const __m128i b0 = _mm_unpacklo_epi16(q[2], q[3]), b1 = _mm_unpackhi_epi16(q[2], q[3]);  // bytes 4-7
                unsigned char* o = out + 8 * (i + 8 * h);
                _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_unpacklo_epi32(a0, b0));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 16), _mm_unpackhi_epi32(a0, b0));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 32), _mm_unpacklo_epi32(a1, b1));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 48), _mm_unpackhi_epi32(a1, b1));
            }
        }
    }
#endif
    if (elem_size == 4) {  // the common case, unrolled
        const unsigned char *b0 = in, *b1 = in + n, *b2 = in + 2 * n, *b3 = in + 3 * n;
        for (; i < n; ++i) {
            out[4 * i] = b0[i];
            out[4 * i + 1] = b1[i];
            out[4 * i + 2] = b2[i];
            out[4 * i + 3] = b3[i];
        }
    } else {
        for (std::size_t b = 0; b < elem_size; ++b) {
            const unsigned char* src = in + b * n;
            for (std::size_t k = i; k < n; ++k) out[k * elem_size + b] = src[k];
        }
    }
    std::memcpy(out + n * elem_size, in + n * elem_size, bytes - n * elem_size);
}

/// x with its bytes in reverse order (portable; compilers emit one instruction).
template <class U>
constexpr U byte_swap(U x) noexcept {
    static_assert(std::is_unsigned_v<U>);
    U out = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) {
        out = static_cast<U>((out << 8) | (x & 0xffu));
        x = static_cast<U>(x >> 8);
    }
    return out;
}

template <class S>
S load_element(const unsigned char* p, bool swap) {
    using U = std::conditional_t<sizeof(S) == 1, std::uint8_t,
                                 std::conditional_t<sizeof(S) == 2, std::uint16_t,
                                                    std::conditional_t<sizeof(S) == 4, std::uint32_t, std::uint64_t>>>;
    U u;
    std::memcpy(&u, p, sizeof(U));
    if (swap) u = byte_swap(u);
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
                case 1:
                    return convert_run_as<std::int8_t>(src, dst, n, swap);
                case 2:
                    return convert_run_as<std::int16_t>(src, dst, n, swap);
                case 4:
                    return convert_run_as<std::int32_t>(src, dst, n, swap);
                default:
                    return convert_run_as<std::int64_t>(src, dst, n, swap);
            }
        case E::unsigned_int:
            switch (t.size) {
                case 1:
                    return convert_run_as<std::uint8_t>(src, dst, n, swap);
                case 2:
                    return convert_run_as<std::uint16_t>(src, dst, n, swap);
                case 4:
                    return convert_run_as<std::uint32_t>(src, dst, n, swap);
                default:
                    return convert_run_as<std::uint64_t>(src, dst, n, swap);
            }
        case E::floating:
            if (t.size == 4) return convert_run_as<float>(src, dst, n, swap);
            return convert_run_as<double>(src, dst, n, swap);
        default:
            throw std::logic_error("convert_run on a type without a fast path");
    }
}

}  // namespace chunkwise::h5::detail
