#pragma once
// Internal: the HDF5 bzip2 filter (id 307; Debian hdf5-filter-plugin): one bzip2 stream. The
// plugin decodes until the stream ends, growing its output (a cut chunk never ends: it loops
// forever); chunkwise decodes into the bound it is given and refuses a stream that ends early or
// decodes to more. Needs libbz2 (CHUNKWISE_USE_BZIP2, set by chunkwise::hdf5 where CMake finds
// it); else HDF5 decodes. Parameters: the block size 1-9, for encoding.
#include <chunkwise/detail/codecs/codec.hpp>

#if defined(CHUNKWISE_USE_BZIP2)
#include <bzlib.h>
#endif

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

inline constexpr int bzip2_filter_id = 307;

#if defined(CHUNKWISE_USE_BZIP2)
inline std::size_t bzip2_decode(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    bz_stream z{};
    if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK) damaged("cannot start a bzip2 decoder");
    struct ender {
        bz_stream* z;
        ~ender() { BZ2_bzDecompressEnd(z); }
    } end{&z};
    std::size_t in_done = 0, out_done = 0;
    while (true) {
        // bzlib counts in unsigned int: feed and drain at most UINT_MAX at a time.
        const std::size_t in_now = std::min<std::size_t>(n - in_done, UINT_MAX);
        const std::size_t out_now = std::min<std::size_t>(cap - out_done, UINT_MAX);
        z.next_in = const_cast<char*>(reinterpret_cast<const char*>(in + in_done));
        z.avail_in = static_cast<unsigned>(in_now);
        z.next_out = reinterpret_cast<char*>(out + out_done);
        z.avail_out = static_cast<unsigned>(out_now);
        const int rc = BZ2_bzDecompress(&z);
        in_done += in_now - z.avail_in;
        out_done += out_now - z.avail_out;
        if (rc == BZ_STREAM_END) return out_done;
        if (rc != BZ_OK) damaged("a corrupt bzip2 stream (bzlib error " + std::to_string(rc) + ")");
        if (in_done == n) damaged("a truncated bzip2 stream: the chunk ends before the stream does");
        if (out_done == cap) damaged("a bzip2 stream that decodes to more than " + std::to_string(cap) + " bytes");
        if (in_now - z.avail_in == 0 && out_now - z.avail_out == 0)
            damaged("a bzip2 stream that makes no progress (corrupt?)");
    }
}

inline std::size_t bzip2_encode(const unsigned char* in, std::size_t n, std::vector<unsigned char>& out, int block) {
    out.resize(n + n / 100 + 600);
    if (n > UINT_MAX || out.size() > UINT_MAX) damaged("a chunk too large for bzip2");
    unsigned got = static_cast<unsigned>(out.size());
    const int rc = BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(out.data()), &got,
                                            const_cast<char*>(reinterpret_cast<const char*>(in)),
                                            static_cast<unsigned>(n), std::clamp(block, 1, 9), 0, 0);
    if (rc != BZ_OK) damaged("bzip2 encoding failed (bzlib error " + std::to_string(rc) + ")");
    out.resize(got);
    return got;
}
#endif

/// bzip2's documented worst case: 1% more and 600 bytes.
inline std::size_t bzip2_max_encoded(const std::vector<unsigned>&, std::size_t n) {
    return bound_add(n, n / 100 + 600);
}

/// Its check: the level is the block size, 1-9 (0: 9, the plugin's default).
inline std::string bzip2_check(const encode_request& r) {
    return r.level >= 0 && r.level <= 9 ? std::string() : "level must be 0-9, got " + std::to_string(r.level);
}
/// The plugin's parameter: the block size in 100 kB (1-9).
inline std::vector<unsigned> bzip2_parameters(const encode_request& r) {
    return {static_cast<unsigned>(r.level > 0 ? r.level : 9)};
}

#if defined(CHUNKWISE_USE_BZIP2)
inline const codec bzip2_codec{
    .id = bzip2_filter_id,
    .name = "bzip2",
    .provider = "Debian package hdf5-filter-plugin",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char*, std::size_t) -> std::size_t { return 0; },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return bzip2_decode(in, n, out, cap); },
    .trim = nullptr,
    .max_encoded = bzip2_max_encoded,
    .library = []() -> std::string {
        const std::string v = BZ2_bzlibVersion();
        return "libbz2 " + v.substr(0, v.find(','));
    },
    .option = "bzip2",
    .check = bzip2_check,
    .parameters = bzip2_parameters,
    .encode = [](const encode_request& r, const unsigned char* in, std::size_t n,
                 std::vector<unsigned char>& out) { return bzip2_encode(in, n, out, r.level > 0 ? r.level : 9); },
    .own_shuffle = false,
    .needs = "bzip2",
    .variants = nullptr,
    .aliases = "bz2",
    .default_level = 9,  // bzip2's own: blocks of 900 kB
    .zarr_v2 = "bz2",
    .zarr_v3 = nullptr,
    .zarr_params = nullptr,
    .zarr_config = [](const encode_request& r, int) { return zarr_level_config(r.level); }};
#else
// Without libbz2, HDF5 (its plugin) decodes these chunks, and chunkwise does not write them.
inline const codec bzip2_codec{
    .id = bzip2_filter_id,
    .name = "bzip2",
    .provider = "Debian package hdf5-filter-plugin",
    .accepts = [](const std::vector<unsigned>&) -> std::string { return built_without("libbz2", "libbz2-dev"); },
    .stated_size = nullptr,
    .decode = nullptr,
    .trim = nullptr,
    .max_encoded = bzip2_max_encoded,
    .library = nullptr,
    .option = "bzip2",
    .check = [](const encode_request&) { return built_without("libbz2", "libbz2-dev"); },
    .parameters = bzip2_parameters,
    .encode = nullptr,
    .own_shuffle = false,
    .needs = "bzip2",
    .variants = nullptr,
    .aliases = "bz2",
    .default_level = 9,  // bzip2's own: blocks of 900 kB
    .zarr_v2 = "bz2",
    .zarr_v3 = nullptr,
    .zarr_params = nullptr,
    .zarr_config = [](const encode_request& r, int) { return zarr_level_config(r.level); }};
#endif

}  // namespace chunkwise::detail::codecs
