#pragma once
// Internal: HDF5's shuffle filter (id 2): byte b of element i stored at b * n + i, by the filter's
// one parameter (the element size, set when the dataset was made; HDF5 refuses 0 and other
// parameter counts, and so does chunkwise). Bytes past the last whole element are stored as they
// are; nothing moves when n <= 1.
#include <chunkwise/detail/codecs/codec.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

/// Undoes HDF5's shuffle filter with element size `elem_size` (the filter's parameter, normally
/// the type's size): byte b of element i was stored at b * n + i, n = bytes / elem_size; bytes
/// past the last whole element are stored as they are. Like HDF5, nothing moves when n <= 1.
/// Element sizes 2, 4 and 8 interleave 16 elements at a time with SSE2 where the target has it.
/// `reversed`: each element's bytes land in reverse order (byte b at elem_size - 1 - b), which
/// undoes the shuffle and swaps the byte order in the same pass.
inline void unshuffle(const unsigned char* in, unsigned char* out, std::size_t bytes, std::size_t elem_size,
                      bool reversed = false) {
    if (bytes == 0) return;  // (in and out may be null then)
    const std::size_t n = elem_size == 0 ? 0 : bytes / elem_size;
    if (elem_size <= 1 || n <= 1) {
        std::memcpy(out, in, bytes);
        return;
    }
    std::size_t i = 0;  // elements done
    // The plane of stored bytes that lands as byte b of each element.
    const auto plane = [&](std::size_t b) { return in + (reversed ? elem_size - 1 - b : b) * n; };
#if defined(__SSE2__)
    const auto load = [&](std::size_t b, std::size_t at) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(plane(b) + at));
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
        const unsigned char *b0 = plane(0), *b1 = plane(1), *b2 = plane(2), *b3 = plane(3);
        for (; i < n; ++i) {
            out[4 * i] = b0[i];
            out[4 * i + 1] = b1[i];
            out[4 * i + 2] = b2[i];
            out[4 * i + 3] = b3[i];
        }
    } else {
        for (std::size_t b = 0; b < elem_size; ++b) {
            const unsigned char* src = plane(b);
            for (std::size_t k = i; k < n; ++k) out[k * elem_size + b] = src[k];
        }
    }
    std::memcpy(out + n * elem_size, in + n * elem_size, bytes - n * elem_size);
}

/// HDF5's shuffle filter: byte b of element i goes to b * n + i.
inline void shuffle_bytes(const unsigned char* in, unsigned char* out, std::size_t bytes, std::size_t elem) {
    const std::size_t n = bytes / elem;
    if (elem <= 1 || n <= 1) {
        std::memcpy(out, in, bytes);
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t b = 0; b < elem; ++b) out[b * n + i] = in[i * elem + b];
    }
    std::memcpy(out + n * elem, in + n * elem, bytes - n * elem);
}

inline const codec shuffle_codec{
    .id = 2,  // H5Z_FILTER_SHUFFLE
    .name = "shuffle",
    .provider = "built into HDF5",
    .accepts = [](const std::vector<unsigned>& cd) -> std::string {
        return cd.size() == 1 && cd[0] != 0
                   ? std::string()
                   : std::string(
                         "a shuffle element size that is 0 or missing (the codec needs one, the size of a value)");
    },
    .stated_size = [](const std::vector<unsigned>&, const unsigned char*, std::size_t n) -> std::size_t { return n; },
    .decode =
        [](const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n, unsigned char* out,
           std::size_t cap) {
            if (n > cap)
                damaged("a shuffled chunk of " + std::to_string(n) + " bytes, more than " + std::to_string(cap));
            unshuffle(in, out, n, cd[0]);
            return n;
        },
    .trim = nullptr,
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) -> std::size_t { return n; },
    .library = []() -> std::string { return {}; },
    // Written through write_options::shuffle, before the compressing filter.
    .option = nullptr,
    .check = [](const encode_request&) { return std::string(); },
    .parameters = [](const encode_request& r) { return std::vector<unsigned>{static_cast<unsigned>(r.elem_size)}; },
    .encode =
        [](const encode_request& r, const unsigned char* in, std::size_t n, std::vector<unsigned char>& out) {
            out.resize(n);
            shuffle_bytes(in, out.data(), n, r.elem_size);
            return n;
        },
    .own_shuffle = false,
    .needs = nullptr,
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 0,
    .zarr_v2 = "shuffle",  // numcodecs' Shuffle: the same bytes
    .zarr_v3 = nullptr,
    .zarr_params = "elementsize",
    .zarr_config = [](const encode_request& r, int) { return "\"elementsize\": " + std::to_string(r.elem_size); }};

}  // namespace chunkwise::detail::codecs
