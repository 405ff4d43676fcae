#pragma once
// Internal: the HDF5 Blosc filter (id 32001; Debian hdf5-filter-plugin-blosc-serial; PyTables,
// pandas HDFStore): one Blosc frame, whatever its codec (blosclz, lz4, lz4hc, zlib, zstd) and
// shuffle (byte or bit), decoded by c-blosc's context functions (no global state, no lock) after
// blosc_cbuffer_validate has checked the frame against the bytes stored (the plugin decodes
// without it: a cut chunk crashes it). Needs libblosc (CHUNKWISE_USE_BLOSC, set by
// chunkwise::hdf5 where CMake finds it); else HDF5 decodes. Parameters: filter revision, Blosc
// format, type size, chunk bytes, level, shuffle, codec.
#include <chunkwise/detail/codecs/codec.hpp>

#if defined(CHUNKWISE_USE_BLOSC)
#include <blosc.h>
#endif

#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

inline constexpr int blosc_filter_id = 32001;

#if defined(CHUNKWISE_USE_BLOSC)
inline std::size_t blosc_stated(const unsigned char* in, std::size_t n) {
    if (n < BLOSC_MIN_HEADER_LENGTH) return 0;
    std::size_t nbytes = 0, cbytes = 0, blocksize = 0;
    blosc_cbuffer_sizes(in, &nbytes, &cbytes, &blocksize);
    return cbytes <= n && blosc_cbuffer_validate(in, cbytes, &nbytes) == 0 ? nbytes : 0;
}

/// The bytes of the Blosc frame at the start of [in, in + n) (its header's cbytes): bytes after it
/// are ignored, as c-blosc's own decoder (numcodecs', the HDF5 plugin's) ignores them.
/// \throws std::runtime_error where the frame is cut short
inline std::size_t blosc_frame_bytes(const unsigned char* in, std::size_t n) {
    if (n < BLOSC_MIN_HEADER_LENGTH)
        damaged("a truncated Blosc frame: " + std::to_string(n) + " bytes, shorter than its header");
    std::size_t nbytes = 0, cbytes = 0, blocksize = 0;
    blosc_cbuffer_sizes(in, &nbytes, &cbytes, &blocksize);
    if (cbytes > n)
        damaged("a truncated Blosc frame: its header states " + std::to_string(cbytes) + " bytes, the chunk holds " +
                std::to_string(n));
    return cbytes;
}

inline std::size_t blosc_decode(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    std::size_t nbytes = 0;
    n = blosc_frame_bytes(in, n);
    if (blosc_cbuffer_validate(in, n, &nbytes) != 0) damaged("not a whole Blosc frame (corrupted or truncated?)");
    if (nbytes > cap)
        damaged("a Blosc frame that states " + std::to_string(nbytes) + " bytes, more than " + std::to_string(cap));
    if (nbytes == 0) return 0;
    const int got = blosc_decompress_ctx(in, out, nbytes, 1);
    if (got <= 0 || static_cast<std::size_t>(got) != nbytes) {
        const char* codec_name = blosc_cbuffer_complib(in);
        damaged("a corrupt Blosc frame (" + std::string(codec_name != nullptr ? codec_name : "unknown codec") +
                ": decodes to " + std::to_string(got) + " of " + std::to_string(nbytes) + " bytes)");
    }
    return nbytes;
}

/// Blosc shuffles for `blosc_encode`.
enum class blosc_shuffle : int { none = 0, byte = 1, bit = 2 };

/// One Blosc frame of [in, in + n) (elements of `type_size` bytes) with `codec_name` at `level`.
inline std::size_t blosc_encode(const unsigned char* in, std::size_t n, std::vector<unsigned char>& out,
                                std::size_t type_size, int level, blosc_shuffle shuffle, const char* codec_name) {
    out.resize(n + BLOSC_MAX_OVERHEAD);
    const int got = blosc_compress_ctx(level, static_cast<int>(shuffle), type_size, n, in, out.data(), out.size(),
                                       codec_name, 0, 1);
    if (got <= 0) damaged(std::string("Blosc encoding failed (codec ") + codec_name + ")");
    out.resize(static_cast<std::size_t>(got));
    return out.size();
}
#endif

/// Blosc stores a buffer it cannot shrink as it is, after its 16-byte header (BLOSC_MAX_OVERHEAD).
inline std::size_t blosc_max_encoded(const std::vector<unsigned>&, std::size_t n) { return bound_add(n, 16); }

/// Blosc's inner codecs as the plugin numbers them ("blosc:NAME"; "" is lz4): -1 where unknown.
inline int blosc_code(const std::string& variant) {
    if (variant.empty() || variant == "lz4") return 1;
    if (variant == "blosclz") return 0;
    if (variant == "lz4hc") return 2;
    if (variant == "zlib") return 4;
    if (variant == "zstd") return 5;
    return -1;
}
/// The inner codec's name for c-blosc.
inline const char* blosc_codec_name(int code) {
    switch (code) {
        case 0:
            return "blosclz";
        case 2:
            return "lz4hc";
        case 4:
            return "zlib";
        case 5:
            return "zstd";
        default:
            return "lz4";
    }
}
/// Its check: a known inner codec, a level 0-9.
inline std::string blosc_check(const encode_request& r) {
    if (blosc_code(r.variant) < 0) return "names a Blosc codec that is not one of lz4, lz4hc, zstd, zlib, blosclz";
    return r.level >= 0 && r.level <= 9 ? std::string() : "level must be 0-9, got " + std::to_string(r.level);
}
/// The plugin's parameters: revision, format, type size, chunk bytes, level, shuffle, codec.
inline std::vector<unsigned> blosc_parameters(const encode_request& r) {
    return {2,
            2,
            static_cast<unsigned>(r.elem_size),
            static_cast<unsigned>(r.chunk_bytes),
            static_cast<unsigned>(r.level > 0 ? r.level : 5),
            r.shuffle ? 1u : 0u,
            static_cast<unsigned>(blosc_code(r.variant))};
}

/// Its Zarr configuration: numcodecs' Blosc (v2) or the v3 blosc codec's, with the inner codec,
/// level and shuffle asked for and Blosc's automatic block size.
inline std::string blosc_zarr_config(const encode_request& r, int format) {
    const std::string cname = std::string("\"cname\": \"") + blosc_codec_name(blosc_code(r.variant)) + "\"";
    const std::string level = ", \"clevel\": " + std::to_string(r.level);
    if (format == 2) return cname + level + ", \"shuffle\": " + (r.shuffle ? "1" : "0") + ", \"blocksize\": 0";
    return cname + level + ", \"shuffle\": " + (r.shuffle ? "\"shuffle\"" : "\"noshuffle\"") +
           ", \"typesize\": " + std::to_string(r.elem_size) + ", \"blocksize\": 0";
}

#if defined(CHUNKWISE_USE_BLOSC)
inline const codec blosc_codec{
    .id = blosc_filter_id,
    .name = "blosc",
    .provider = "Debian package hdf5-filter-plugin-blosc-serial",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char* in,
                      std::size_t n) { return blosc_stated(in, n); },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return blosc_decode(in, n, out, cap); },
    .trim = nullptr,
    .max_encoded = blosc_max_encoded,
    .library = []() -> std::string { return std::string("libblosc ") + blosc_get_version_string(); },
    .option = "blosc",
    .check = blosc_check,
    .parameters = blosc_parameters,
    .encode =
        [](const encode_request& r, const unsigned char* in, std::size_t n, std::vector<unsigned char>& out) {
            return blosc_encode(in, n, out, r.elem_size, r.level > 0 ? r.level : 5,
                                r.shuffle ? blosc_shuffle::byte : blosc_shuffle::none,
                                blosc_codec_name(blosc_code(r.variant)));
        },
    .own_shuffle = true,
    .needs = "blosc",
    .variants = "lz4, lz4hc, zstd, zlib, blosclz",
    .aliases = nullptr,
    .default_level = 5,  // c-blosc's and numcodecs' own
    .settings_from = 4,  // revision, format, type size and chunk bytes: the plugin's
    .zarr_v2 = "blosc",
    .zarr_v3 = "blosc",
    .zarr_params = nullptr,
    .zarr_config = blosc_zarr_config};
#else
// Without libblosc, HDF5 (its plugin) decodes these chunks, and chunkwise does not write them.
inline const codec blosc_codec{
    .id = blosc_filter_id,
    .name = "blosc",
    .provider = "Debian package hdf5-filter-plugin-blosc-serial",
    .accepts = [](const std::vector<unsigned>&) -> std::string { return built_without("libblosc", "libblosc-dev"); },
    .stated_size = nullptr,
    .decode = nullptr,
    .trim = nullptr,
    .max_encoded = blosc_max_encoded,
    .library = nullptr,
    .option = "blosc",
    .check = [](const encode_request&) { return built_without("libblosc", "libblosc-dev"); },
    .parameters = blosc_parameters,
    .encode = nullptr,
    .own_shuffle = true,
    .needs = "blosc",
    .variants = "lz4, lz4hc, zstd, zlib, blosclz",
    .aliases = nullptr,
    .default_level = 5,  // c-blosc's and numcodecs' own
    .settings_from = 4,  // revision, format, type size and chunk bytes: the plugin's
    .zarr_v2 = "blosc",
    .zarr_v3 = "blosc",
    .zarr_params = nullptr,
    .zarr_config = blosc_zarr_config};
#endif

}  // namespace chunkwise::detail::codecs
