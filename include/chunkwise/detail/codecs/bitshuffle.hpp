#pragma once
// Internal: the HDF5 bitshuffle filter (id 32008; Debian bitshuffle; X-ray detector data, NeXus):
// elements transposed bit by bit within blocks (a multiple of 8 elements; the elements past the
// last multiple of 8 stored as they are), and the blocks LZ4- or Zstandard-compressed: then 8
// bytes of the decoded size and 4 of the block size in bytes (big-endian), and per block 4 bytes
// of its stored size and the block. Decoded here as bitshuffle's own scalar code decodes it, with
// every size checked against both buffers (the plugin trusts them: a cut chunk crashes it).
// Parameters: bitshuffle's version (2), the element size, the block size in elements (0: its
// default), the compression (0 none, 2 LZ4, 3 Zstandard; they need CHUNKWISE_USE_LZ4 and
// CHUNKWISE_USE_ZSTD), the Zstandard level.
#include <chunkwise/detail/codecs/codec.hpp>
#include <chunkwise/detail/codecs/lz4.hpp>
#include <chunkwise/detail/codecs/zstd.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

inline constexpr int bitshuffle_filter_id = 32008;

/// bitshuffle's default block size in elements for `elem_size`-byte elements.
inline std::size_t bitshuffle_default_block(std::size_t elem_size) {
    const std::size_t b = 8192 / elem_size / 8 * 8;
    return std::max<std::size_t>(b, 128);
}

/// Undoes the bit transpose of one block of `n` elements (n a multiple of 8) of `elem_size`
/// bytes: bitshuffle's bshuf_untrans_bit_elem (bit rows to bytes, then 8x8 bit transposes).
/// `tmp` holds n * elem_size bytes.
inline void bit_untranspose(const unsigned char* in, unsigned char* out, std::size_t n, std::size_t elem_size,
                            unsigned char* tmp) {
    // The bytes of the 8 * elem_size bit rows (n / 8 bytes each) transposed, 8 elements at a
    // time (bshuf_trans_byte_bitrow): byte i of row r goes to i * 8 * elem_size + r.
    const std::size_t row = n / 8, rows = 8 * elem_size;
    for (std::size_t r = 0; r < rows; ++r) {
        const unsigned char* src = in + r * row;
        for (std::size_t i = 0; i < row; ++i) tmp[i * rows + r] = src[i];
    }
    // Then, for every byte of the elements, 8 elements' bits at a time.
    const std::size_t bytes = n * elem_size;
    for (std::size_t j = 0; j < 8 * elem_size; j += 8) {
        for (std::size_t i = 0; i + 8 * elem_size <= bytes; i += 8 * elem_size) {
            std::uint64_t x, t;
            std::memcpy(&x, tmp + i + j, 8);
            if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
            t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
            x = x ^ t ^ (t << 7);
            t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
            x = x ^ t ^ (t << 14);
            t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
            x = x ^ t ^ (t << 28);
            for (std::size_t k = 0; k < 8; ++k) {
                out[i + j / 8 + k * elem_size] = static_cast<unsigned char>(x & 0xffu);
                x >>= 8;
            }
        }
    }
}

/// What one stored block holds: `stored` bytes at `in` that decode to `bytes`.
using bitshuffle_inner = void (*)(const unsigned char* in, std::size_t stored, unsigned char* out, std::size_t bytes);

/// The blocks of `elements` elements at in (each through `inner`, or as they are where it is
/// null), untransposed into out; the leftover elements copied. Returns the input bytes used.
inline std::size_t bitshuffle_blocks(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t elements,
                                     std::size_t elem_size, std::size_t block, bitshuffle_inner inner) {
    if (block == 0 || block % 8 != 0)
        damaged("a bitshuffle block size of " + std::to_string(block) + " elements (not a multiple of 8)");
    // Scratch for the largest block this chunk holds: bounded by the chunk, not by the block size
    // the parameters declare (which may be 2^24 elements for a chunk of 100).
    const std::size_t most = std::min(block, elements - elements % 8) * elem_size;
    std::vector<unsigned char> tmp(most), packed(inner != nullptr ? most : 0);
    std::size_t at = 0, done = 0;
    auto one = [&](std::size_t count) {
        const std::size_t bytes = count * elem_size;
        const unsigned char* src = in + at;
        if (inner != nullptr) {
            if (n - at < 4) damaged("a bitshuffle chunk that ends before its last block (truncated?)");
            const std::size_t stored = static_cast<std::size_t>(read_be(in + at, 4));
            at += 4;
            if (stored > n - at)
                damaged("a bitshuffle block of " + std::to_string(stored) +
                        " bytes past the end of its chunk (truncated?)");
            inner(in + at, stored, packed.data(), bytes);
            at += stored;
            src = packed.data();
        } else {
            if (bytes > n - at) damaged("a bitshuffle chunk shorter than its elements (truncated?)");
            at += bytes;
        }
        bit_untranspose(src, out + done * elem_size, count, elem_size, tmp.data());
        done += count;
    };
    for (std::size_t b = 0; b < elements / block; ++b) one(block);
    const std::size_t last = elements % block - elements % block % 8;
    if (last > 0) one(last);
    const std::size_t leftover = (elements - done) * elem_size;
    if (leftover > n - at) damaged("a bitshuffle chunk that ends before its last elements (truncated?)");
    std::memcpy(out + done * elem_size, in + at, leftover);
    return at + leftover;
}

inline std::size_t bitshuffle_decode(const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n,
                                     unsigned char* out, std::size_t cap) {
    const std::size_t elem_size = cd[2];
    const unsigned compression = cd.size() > 4 ? cd[4] : 0;
    std::size_t block = cd.size() > 3 ? cd[3] : 0;
    if (block == 0) block = bitshuffle_default_block(elem_size);
    std::size_t total = n;
    bitshuffle_inner inner = nullptr;
    if (compression == 2 || compression == 3) {
        if (n < 12) damaged("a bitshuffle chunk of " + std::to_string(n) + " bytes, shorter than its header");
        const std::uint64_t stated = read_be(in, 8);
        if (stated > cap)
            damaged("a bitshuffle chunk that states " + std::to_string(stated) + " bytes, more than " +
                    std::to_string(cap));
        total = static_cast<std::size_t>(stated);
        block = static_cast<std::size_t>(read_be(in + 8, 4)) / elem_size;
        in += 12;
        n -= 12;
#if defined(CHUNKWISE_USE_LZ4)
        if (compression == 2) {
            inner = [](const unsigned char* src, std::size_t stored, unsigned char* dst, std::size_t bytes) {
                if (stored > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
                    bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
                    damaged("a bitshuffle block larger than LZ4 decodes");
                const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst),
                                                    static_cast<int>(stored), static_cast<int>(bytes));
                if (got < 0 || static_cast<std::size_t>(got) != bytes)
                    damaged("a corrupt LZ4 block in a bitshuffle chunk (decodes to " + std::to_string(got) + " of " +
                            std::to_string(bytes) + " bytes)");
            };
        }
#endif
#if defined(CHUNKWISE_USE_ZSTD)
        if (compression == 3) {
            inner = [](const unsigned char* src, std::size_t stored, unsigned char* dst, std::size_t bytes) {
                const std::size_t got = ZSTD_decompress(dst, bytes, src, stored);
                if (ZSTD_isError(got) || got != bytes) damaged("a corrupt Zstandard block in a bitshuffle chunk");
            };
        }
#endif
        if (inner == nullptr) damaged("bitshuffle compression " + std::to_string(compression) + " is not built in");
    } else if (total > cap) {
        damaged("a bitshuffle chunk of " + std::to_string(total) + " bytes, more than " + std::to_string(cap));
    }
    if (total % elem_size != 0)
        damaged("a bitshuffle chunk of " + std::to_string(total) + " bytes, not whole elements");
    bitshuffle_blocks(in, n, out, total / elem_size, elem_size, block, inner);
    return total;
}

/// bitshuffle's own bound (bshuf_compress_lz4_bound, and its Zstandard twin): with compression,
/// a 12-byte header, per block of `block` elements 4 bytes and the codec's worst case, the same
/// for the last multiple of 8 elements, and the elements past it as they are.
inline std::size_t bitshuffle_max_encoded(const std::vector<unsigned>& cd, std::size_t n) {
    const unsigned compression = cd.size() > 4 ? cd[4] : 0;
    if (compression != 2 && compression != 3) return n;
    const std::size_t elem_size = cd.size() > 2 && cd[2] > 0 ? cd[2] : 1;
    std::size_t block = cd.size() > 3 ? cd[3] : 0;
    if (block == 0) block = bitshuffle_default_block(elem_size);
    const std::size_t elements = n / elem_size;
    const auto bound = [&](std::size_t bytes) { return compression == 2 ? lz4_bound(bytes) : zstd_bound(bytes); };
    std::size_t total = 12;
    const std::size_t whole = elements / block;
    if (whole > 0) total = bound_add(total, bound_mul(whole, bound_add(bound(bound_mul(block, elem_size)), 4)));
    const std::size_t last = elements % block - elements % block % 8;
    if (last > 0) total = bound_add(total, bound_add(bound(last * elem_size), 4));
    return bound_add(total, n - (elements - elements % 8) * elem_size);
}

inline const codec bitshuffle_codec{
    .id = bitshuffle_filter_id,
    .name = "bitshuffle",
    .provider = "Debian package bitshuffle",
    .accepts = [](const std::vector<unsigned>& cd) -> std::string {
        if (cd.size() < 3 || cd[2] == 0) return "bitshuffle parameters without an element size";
        const unsigned compression = cd.size() > 4 ? cd[4] : 0;
        if (compression == 0) return {};
#if defined(CHUNKWISE_USE_LZ4)
        if (compression == 2) return {};
#endif
#if defined(CHUNKWISE_USE_ZSTD)
        if (compression == 3) return {};
#endif
        return "bitshuffle compression " + std::to_string(compression) + " (chunkwise built without its library)";
    },
    .stated_size = [](const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n) -> std::size_t {
        const unsigned compression = cd.size() > 4 ? cd[4] : 0;
        if (compression == 0) return n;
        return n < 8 ? 0
                     : static_cast<std::size_t>(
                           std::min<std::uint64_t>(read_be(in, 8), std::numeric_limits<std::size_t>::max()));
    },
    .decode = bitshuffle_decode,
    .trim = nullptr,
    .max_encoded = bitshuffle_max_encoded,
    .library = []() -> std::string {
        std::string inside;
#if defined(CHUNKWISE_USE_LZ4)
        inside += "liblz4 " + std::string(LZ4_versionString());
#endif
#if defined(CHUNKWISE_USE_ZSTD)
        inside += (inside.empty() ? "" : ", ") + std::string("libzstd ") + ZSTD_versionString();
#endif
        return inside.empty() ? std::string() : "chunkwise's own transpose; " + inside + " inside";
    }};

}  // namespace chunkwise::detail::codecs
