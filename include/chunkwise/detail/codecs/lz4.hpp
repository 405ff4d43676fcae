#pragma once
// Internal: the HDF5 LZ4 filter (id 32004; Debian hdf5-filter-plugin): 8 bytes of the decoded
// size and 4 of the block size (big-endian), then per block 4 bytes of its stored size and the
// block, LZ4-compressed, or as it is where that size equals the block's. The plugin decodes with
// LZ4_decompress_fast, which trusts the data (a damaged chunk crashes it); chunkwise decodes with
// LZ4_decompress_safe and checks every size against both buffers. Needs liblz4
// (CHUNKWISE_USE_LZ4, set by chunkwise::hdf5 where CMake finds it); else HDF5 decodes.
// Parameters: the block size (0: the plugin's 1 GiB default), for encoding.
#include <chunkwise/detail/codecs/codec.hpp>

#if defined(CHUNKWISE_USE_LZ4)
#include <lz4.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

inline constexpr int lz4_filter_id = 32004;

#if defined(CHUNKWISE_USE_LZ4)
/// The plugin's stream of [in, in + n) decoded into at most cap bytes at out; returns its size.
inline std::size_t lz4_decode(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    if (n < 12) damaged("an LZ4 chunk of " + std::to_string(n) + " bytes, shorter than its header");
    const std::uint64_t total = read_be(in, 8);
    std::uint64_t block = read_be(in + 8, 4);
    if (total > cap)
        damaged("an LZ4 chunk that states " + std::to_string(total) + " bytes, more than " + std::to_string(cap));
    if (block > total) block = total;
    if (block == 0 && total > 0) damaged("an LZ4 chunk with blocks of 0 bytes (corrupted?)");
    std::size_t at = 12, done = 0;
    while (done < total) {
        const std::size_t this_block = static_cast<std::size_t>(std::min<std::uint64_t>(block, total - done));
        if (n - at < 4) damaged("an LZ4 chunk that ends before its last block (truncated?)");
        const std::size_t stored = static_cast<std::size_t>(read_be(in + at, 4));
        at += 4;
        if (stored > n - at)
            damaged("an LZ4 block of " + std::to_string(stored) + " bytes past the end of its chunk (truncated?)");
        if (stored == this_block) {
            std::memcpy(out + done, in + at, stored);
        } else {
            if (stored > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
                this_block > static_cast<std::size_t>(std::numeric_limits<int>::max()))
                damaged("an LZ4 block larger than LZ4 decodes");
            const int got =
                LZ4_decompress_safe(reinterpret_cast<const char*>(in + at), reinterpret_cast<char*>(out + done),
                                    static_cast<int>(stored), static_cast<int>(this_block));
            if (got < 0 || static_cast<std::size_t>(got) != this_block)
                damaged("a corrupt LZ4 block (decodes to " + std::to_string(got) + " of " + std::to_string(this_block) +
                        " bytes)");
        }
        at += stored;
        done += this_block;
    }
    return static_cast<std::size_t>(total);
}

/// The plugin's stream of [in, in + n) with blocks of `block` bytes (0: one block), into out.
inline std::size_t lz4_encode(const unsigned char* in, std::size_t n, std::vector<unsigned char>& out,
                              std::size_t block) {
    if (block == 0 || block > n) block = std::max<std::size_t>(n, 1);
    if (block > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) block = static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE);
    const std::size_t blocks = n == 0 ? 0 : (n + block - 1) / block;
    out.resize(12 + blocks * (4 + static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(block)))));
    write_be(out.data(), n, 8);
    write_be(out.data() + 8, block, 4);
    std::size_t at = 12;
    for (std::size_t done = 0; done < n; done += block) {
        const std::size_t size = std::min(block, n - done);
        const int got =
            LZ4_compress_default(reinterpret_cast<const char*>(in + done), reinterpret_cast<char*>(out.data() + at + 4),
                                 static_cast<int>(size), LZ4_compressBound(static_cast<int>(size)));
        if (got <= 0 || static_cast<std::size_t>(got) >= size) {  // stored as it is
            std::memcpy(out.data() + at + 4, in + done, size);
            write_be(out.data() + at, size, 4);
            at += 4 + size;
        } else {
            write_be(out.data() + at, static_cast<std::size_t>(got), 4);
            at += 4 + static_cast<std::size_t>(got);
        }
    }
    out.resize(at);
    return at;
}
#endif

/// The plugin's worst case for n bytes in blocks of cd[0] bytes (0: its 1 GiB default): a
/// 12-byte header, and per block 4 bytes and the block as it is (it keeps a block LZ4 cannot
/// shrink as it is; chunkwise's encoder does the same).
inline std::size_t lz4_max_encoded(const std::vector<unsigned>& cd, std::size_t n) {
    std::size_t block = !cd.empty() && cd[0] > 0 ? cd[0] : std::size_t{1} << 30;
    if (block > n) block = n > 0 ? n : 1;
    const std::size_t blocks = n / block + (n % block != 0 ? 1 : 0);
    return bound_add(bound_add(n, 12), bound_mul(blocks, 4));
}

/// chunkwise writes LZ4 with the plugin's default block size (one block per chunk).
inline std::vector<unsigned> lz4_parameters(const encode_request&) { return {0}; }

#if defined(CHUNKWISE_USE_LZ4)
inline const codec lz4_codec{
    .id = lz4_filter_id,
    .name = "lz4",
    .provider = "Debian package hdf5-filter-plugin",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n) -> std::size_t {
        return n < 8 ? 0
                     : static_cast<std::size_t>(
                           std::min<std::uint64_t>(read_be(in, 8), std::numeric_limits<std::size_t>::max()));
    },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return lz4_decode(in, n, out, cap); },
    .trim = nullptr,
    .max_encoded = lz4_max_encoded,
    .library = []() -> std::string { return std::string("liblz4 ") + LZ4_versionString(); },
    .option = "lz4",
    .check = [](const encode_request&) { return std::string(); },
    .parameters = lz4_parameters,
    .encode = [](const encode_request&, const unsigned char* in, std::size_t n,
                 std::vector<unsigned char>& out) { return lz4_encode(in, n, out, 0); },
    .own_shuffle = false,
    .needs = "lz4",
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 0,
    .zarr_v2 = nullptr,  // numcodecs frames LZ4 otherwise: numcodecs_lz4_codec
    .zarr_v3 = nullptr,
    .zarr_params = nullptr,
    .zarr_config = nullptr};
#else
// Without liblz4, HDF5 (its plugin) decodes these chunks, and chunkwise does not write them.
inline const codec lz4_codec{
    .id = lz4_filter_id,
    .name = "lz4",
    .provider = "Debian package hdf5-filter-plugin",
    .accepts = [](const std::vector<unsigned>&) -> std::string { return built_without("liblz4", "liblz4-dev"); },
    .stated_size = nullptr,
    .decode = nullptr,
    .trim = nullptr,
    .max_encoded = lz4_max_encoded,
    .library = nullptr,
    .option = "lz4",
    .check = [](const encode_request&) { return built_without("liblz4", "liblz4-dev"); },
    .parameters = lz4_parameters,
    .encode = nullptr,
    .own_shuffle = false,
    .needs = "lz4",
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 0,
    .zarr_v2 = nullptr,  // numcodecs frames LZ4 otherwise: numcodecs_lz4_codec
    .zarr_v3 = nullptr,
    .zarr_params = nullptr,
    .zarr_config = nullptr};
#endif

// numcodecs' LZ4 (Zarr v2 "lz4"): the decoded size as 4 little-endian bytes, then one LZ4 block.

#if defined(CHUNKWISE_USE_LZ4)
/// numcodecs' LZ4 frame [in, in + n) into at most cap bytes; returns the size it states.
inline std::size_t numcodecs_lz4_decode(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    if (n < 4) damaged("an LZ4 chunk of " + std::to_string(n) + " bytes, shorter than its header (truncated?)");
    const std::size_t stated = static_cast<std::size_t>(read_le(in, 4));
    if (stated > cap)
        damaged("an LZ4 chunk that states " + std::to_string(stated) + " bytes, more than " + std::to_string(cap));
    if (n - 4 > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) damaged("an LZ4 chunk too large for LZ4");
    const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in + 4), reinterpret_cast<char*>(out),
                                        static_cast<int>(n - 4), static_cast<int>(stated));
    if (got < 0) damaged("a corrupt or truncated LZ4 block");
    if (static_cast<std::size_t>(got) != stated)
        damaged("an LZ4 block of " + std::to_string(got) + " bytes where its header states " + std::to_string(stated));
    return stated;
}

/// numcodecs' LZ4 frame of [in, in + n) into out (acceleration 1, as numcodecs' default).
inline std::size_t numcodecs_lz4_encode(const unsigned char* in, std::size_t n, std::vector<unsigned char>& out) {
    if (n > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) damaged("a chunk too large for LZ4");
    out.resize(4 + static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(n))));
    write_le(out.data(), n, 4);
    const int got = LZ4_compress_default(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out.data() + 4),
                                         static_cast<int>(n), static_cast<int>(out.size() - 4));
    if (got <= 0) damaged("LZ4 encoding failed");
    out.resize(4 + static_cast<std::size_t>(got));
    return out.size();
}
#endif

inline const codec numcodecs_lz4_codec {
    .id = 0,  // Zarr v2 only: HDF5's LZ4 filter frames its blocks otherwise (lz4_codec)
        .name = "lz4", .provider = "liblz4 (Zarr v2 only)",
#if defined(CHUNKWISE_USE_LZ4)
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n) -> std::size_t {
        return n < 4 ? 0 : static_cast<std::size_t>(read_le(in, 4));
    },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return numcodecs_lz4_decode(in, n, out, cap); },
#else
    .accepts = [](const std::vector<unsigned>&) { return built_without("liblz4", "liblz4-dev"); },
    .stated_size = nullptr, .decode = nullptr,
#endif
    .trim = nullptr,
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) { return bound_add(lz4_bound(n), 4); },
#if defined(CHUNKWISE_USE_LZ4)
    .library = []() -> std::string { return std::string("liblz4 ") + LZ4_versionString(); },
#else
    .library = nullptr,
#endif
    .option = "lz4",
#if defined(CHUNKWISE_USE_LZ4)
    .check = [](const encode_request&) { return std::string(); },
#else
    .check = [](const encode_request&) { return built_without("liblz4", "liblz4-dev"); },
#endif
    .parameters = nullptr,
#if defined(CHUNKWISE_USE_LZ4)
    .encode = [](const encode_request&, const unsigned char* in, std::size_t n,
                 std::vector<unsigned char>& out) { return numcodecs_lz4_encode(in, n, out); },
#else
    .encode = nullptr,
#endif
    .own_shuffle = false, .needs = "lz4", .variants = nullptr, .aliases = nullptr, .default_level = 0, .zarr_v2 = "lz4",
    .zarr_v3 = nullptr, .zarr_params = nullptr,
    .zarr_config = [](const encode_request&, int) { return std::string("\"acceleration\": 1"); }
};

}  // namespace chunkwise::detail::codecs
