#pragma once
// Internal: the HDF5 Zstandard filter (id 32015; netCDF-C's and hdf5plugin's plugins): the chunk
// is one Zstandard frame that states its decoded size; the plugins decode into that size, so
// chunkwise does too (a chunk without a stated size, or that decodes to another, is refused).
// Needs libzstd (CHUNKWISE_USE_ZSTD, set by chunkwise::hdf5 where CMake finds it); else HDF5
// decodes. Parameters: the level, for encoding.
#include <chunkwise/detail/codecs/codec.hpp>

#if defined(CHUNKWISE_USE_ZSTD)
#include <zstd.h>
#endif

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

inline constexpr int zstd_filter_id = 32015;

#if defined(CHUNKWISE_USE_ZSTD)
/// The decoded size a Zstandard frame states, or 0 where it states none (or is not one).
inline std::size_t zstd_stated(const unsigned char* in, std::size_t n) {
    const unsigned long long size = ZSTD_getFrameContentSize(in, n);
    if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) return 0;
    return static_cast<std::size_t>(size);
}

inline std::size_t zstd_decode(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    const unsigned long long stated = ZSTD_getFrameContentSize(in, n);
    if (stated == ZSTD_CONTENTSIZE_ERROR) damaged("not a Zstandard frame (corrupted?)");
    if (stated == ZSTD_CONTENTSIZE_UNKNOWN) damaged("a Zstandard frame that does not state its size");
    if (stated > cap)
        damaged("a Zstandard frame that states " + std::to_string(stated) + " bytes, more than " + std::to_string(cap));
    const std::size_t frame = ZSTD_findFrameCompressedSize(in, n);
    if (ZSTD_isError(frame))
        damaged(std::string("a truncated or corrupt Zstandard frame (") + ZSTD_getErrorName(frame) + ")");
    struct freer {
        void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
    };
    thread_local std::unique_ptr<ZSTD_DCtx, freer> d(ZSTD_createDCtx());
    if (!d) damaged("cannot allocate a Zstandard decoder");
    const std::size_t got = ZSTD_decompressDCtx(d.get(), out, static_cast<std::size_t>(stated), in, n);
    if (ZSTD_isError(got)) damaged(std::string("a corrupt Zstandard frame (") + ZSTD_getErrorName(got) + ")");
    return got;
}

/// One Zstandard frame of [in, in + n) at `level`, stating its size, into out.
inline std::size_t zstd_encode(const unsigned char* in, std::size_t n, std::vector<unsigned char>& out, int level) {
    struct freer {
        void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
    };
    thread_local std::unique_ptr<ZSTD_CCtx, freer> c(ZSTD_createCCtx());
    if (!c) damaged("cannot allocate a Zstandard encoder");
    out.resize(ZSTD_compressBound(n));
    const std::size_t got = ZSTD_compressCCtx(c.get(), out.data(), out.size(), in, n, level);
    if (ZSTD_isError(got)) damaged(std::string("Zstandard encoding failed (") + ZSTD_getErrorName(got) + ")");
    out.resize(got);
    return got;
}
#endif

/// One Zstandard frame per chunk: ZSTD_compressBound.
inline std::size_t zstd_max_encoded(const std::vector<unsigned>&, std::size_t n) { return zstd_bound(n); }

/// The level it is written at (0: Zstandard's default, 3) and its check.
inline std::string zstd_check(const encode_request& r) {
    return r.level >= 0 && r.level <= 22 ? std::string() : "level must be 0-22, got " + std::to_string(r.level);
}
/// The plugin's parameter: the level.
inline std::vector<unsigned> zstd_parameters(const encode_request& r) {
    return {static_cast<unsigned>(r.level > 0 ? r.level : 3)};
}

/// Its Zarr configuration: the level; v3 also says that no checksum is written.
inline std::string zstd_zarr_config(const encode_request& r, int format) {
    return zarr_level_config(r.level) + (format == 3 ? ", \"checksum\": false" : "");
}

#if defined(CHUNKWISE_USE_ZSTD)
inline const codec zstd_codec{
    .id = zstd_filter_id,
    .name = "zstd",
    .provider = "no Debian 12 package (netCDF-C's or hdf5plugin's HDF5 plugin)",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char* in,
                      std::size_t n) { return zstd_stated(in, n); },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return zstd_decode(in, n, out, cap); },
    .trim = nullptr,
    .max_encoded = zstd_max_encoded,
    .library = []() -> std::string { return std::string("libzstd ") + ZSTD_versionString(); },
    .option = "zstd",
    .check = zstd_check,
    .parameters = zstd_parameters,
    .encode = [](const encode_request& r, const unsigned char* in, std::size_t n,
                 std::vector<unsigned char>& out) { return zstd_encode(in, n, out, r.level > 0 ? r.level : 3); },
    .own_shuffle = false,
    .needs = "zstd",
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 3,  // ZSTD_CLEVEL_DEFAULT
    .zarr_v2 = "zstd",
    .zarr_v3 = "zstd",
    .zarr_params = nullptr,
    .zarr_config = zstd_zarr_config};
#else
// Without libzstd, HDF5 (its plugin) decodes these chunks, and chunkwise does not write them.
inline const codec zstd_codec{
    .id = zstd_filter_id,
    .name = "zstd",
    .provider = "no Debian 12 package (netCDF-C's or hdf5plugin's HDF5 plugin)",
    .accepts = [](const std::vector<unsigned>&) -> std::string { return built_without("libzstd", "libzstd-dev"); },
    .stated_size = nullptr,
    .decode = nullptr,
    .trim = nullptr,
    .max_encoded = zstd_max_encoded,
    .library = nullptr,
    .option = "zstd",
    .check = [](const encode_request&) { return built_without("libzstd", "libzstd-dev"); },
    .parameters = zstd_parameters,
    .encode = nullptr,
    .own_shuffle = false,
    .needs = "zstd",
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 3,  // ZSTD_CLEVEL_DEFAULT
    .zarr_v2 = "zstd",
    .zarr_v3 = "zstd",
    .zarr_params = nullptr,
    .zarr_config = zstd_zarr_config};
#endif

}  // namespace chunkwise::detail::codecs
