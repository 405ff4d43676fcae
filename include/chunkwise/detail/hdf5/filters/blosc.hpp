#pragma once
// Internal: the HDF5 Blosc filter (id 32001; Debian hdf5-filter-plugin-blosc-serial; PyTables,
// pandas HDFStore): one Blosc frame, whatever its codec (blosclz, lz4, lz4hc, zlib, zstd) and
// shuffle (byte or bit), decoded by c-blosc's context functions (no global state, no lock) after
// blosc_cbuffer_validate has checked the frame against the bytes stored (the plugin decodes
// without it: a cut chunk crashes it). Needs libblosc (CHUNKWISE_USE_BLOSC, set by
// chunkwise::hdf5 where CMake finds it); else HDF5 decodes. Parameters: filter revision, Blosc
// format, type size, chunk bytes, level, shuffle, codec.
#include <chunkwise/detail/hdf5/filters/codec.hpp>

#if defined(CHUNKWISE_USE_BLOSC)
#include <blosc.h>
#endif

#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

inline constexpr int blosc_filter_id = 32001;

#if defined(CHUNKWISE_USE_BLOSC)
inline std::size_t blosc_stated(const unsigned char* in, std::size_t n) {
    std::size_t nbytes = 0;
    return blosc_cbuffer_validate(in, n, &nbytes) == 0 ? nbytes : 0;
}

inline std::size_t blosc_decode(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    std::size_t nbytes = 0;
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

#if defined(CHUNKWISE_USE_BLOSC)
inline const codec blosc_codec{
    .id = blosc_filter_id,
    .name = "blosc",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n) { return blosc_stated(in, n); },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return blosc_decode(in, n, out, cap); },
    .trim = nullptr,
    .max_encoded = blosc_max_encoded,
    .library = []() -> std::string { return std::string("libblosc ") + blosc_get_version_string(); }};
#else
// Without libblosc, HDF5 (its plugin) decodes these chunks.
inline const codec blosc_codec{
    .id = blosc_filter_id,
    .name = "blosc",
    .accepts = [](const std::vector<unsigned>&) -> std::string { return "chunkwise was built without libblosc"; },
    .stated_size = nullptr,
    .decode = nullptr,
    .trim = nullptr,
    .max_encoded = blosc_max_encoded};
#endif

}  // namespace chunkwise::h5::detail
