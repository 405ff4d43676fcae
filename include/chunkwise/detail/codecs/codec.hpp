#pragma once
// Internal: what a codec is to chunkwise (`codec`): its keys in each store (an HDF5 filter id, a
// Zarr v2 numcodecs id, a Zarr v3 name), names and plugin; which parameters it decodes, how large
// its output may be, the decode itself; and, where chunkwise writes it, its option name, checks,
// creation parameters, Zarr configuration and encoder. One header per codec in this folder, each
// including its own library's header; table.hpp lists them all, and everything else (both stores'
// readers and writers, messages, the doctor) finds them there. No file format is known here.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

/// What a write asks of one filter: `variant` (Blosc's inner codec, from "blosc:NAME"; "" by
/// default), its level (0: the codec's default), whether the codec shuffles the bytes itself
/// (its `own_shuffle`), and the element and chunk sizes of the dataset.
struct encode_request {
    std::string variant;
    int level = 0;
    bool shuffle = false;
    std::size_t elem_size = 1;
    std::size_t chunk_bytes = 0;
};

/// One codec as chunkwise knows it: its key in each store, names and plugin, how chunkwise decodes
/// it in the reading thread (or why not: HDF5 then does), and how chunkwise writes it where it
/// does. codecs/table.hpp lists one for every codec HDF5 and Zarr users meet; a new codec is one
/// header in this folder holding its `codec` and one line there. Every function is reentrant and
/// bounded: it reads only [in, in + n), writes only [out, out + cap), and throws
/// std::runtime_error naming what is wrong where the data is damaged or decodes to more than cap.
struct codec {
    /// Its HDF5 filter id; 0 where HDF5 has no such filter (a Zarr-only framing).
    int id = 0;
    const char* name = "";
    /// Where other readers get its HDF5 plugin: a Debian package, or what else provides it.
    const char* provider = "";
    /// "" where chunks with these parameters (HDF5's client data; Zarr: `zarr_params`) are decoded
    /// here, else why not (then HDF5 decodes them).
    std::string (*accepts)(const std::vector<unsigned>& cd) = nullptr;
    /// The decoded size where the encoded data states it (a codec header), else 0.
    std::size_t (*stated_size)(const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n) = nullptr;
    /// Decodes into out; returns the decoded size. Null for a filter that only checks and trims
    /// its input (fletcher32: `trim`).
    std::size_t (*decode)(const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n, unsigned char* out,
                          std::size_t cap) = nullptr;
    /// For a filter whose output is a prefix of its input: checks it, returns its size.
    std::size_t (*trim)(const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n) = nullptr;
    /// The most bytes the filter's encoders (its plugin's, and chunkwise's) make of `decoded` bytes
    /// with these parameters: what a stored chunk, or a stage of a pipeline, may hold
    /// (`unbounded` where it cannot be said). Follows from the codec's own worst case.
    std::size_t (*max_encoded)(const std::vector<unsigned>& cd, std::size_t decoded) = nullptr;
    /// The library this build decodes it with, and its version as loaded ("liblz4 1.9.4"); "" for
    /// chunkwise's own code; null where this build does not decode it (HDF5 then does).
    std::string (*library)() = nullptr;

    // ---- writing (null where chunkwise does not write the filter) ----
    /// Its name as write_options::codec in both stores (Blosc also takes "blosc:NAME"), or null:
    /// written only through another option (shuffle), or not at all.
    const char* option = nullptr;
    /// "" where this build writes it with these options, else why not, to follow "codec 'NAME' ":
    /// "level must be 0-9, got 12", "needs chunkwise built with liblz4 (Debian: ...)".
    std::string (*check)(const encode_request& r) = nullptr;
    /// Its creation parameters (client data) as its plugin states them.
    std::vector<unsigned> (*parameters)(const encode_request& r) = nullptr;
    /// One chunk's bytes [in, in + n) encoded into out (resized); returns the encoded size.
    std::size_t (*encode)(const encode_request& r, const unsigned char* in, std::size_t n,
                          std::vector<unsigned char>& out) = nullptr;
    /// True where the codec shuffles bytes itself (Blosc): write_options::shuffle goes to it, not to
    /// HDF5's shuffle filter before it.
    bool own_shuffle = false;
    /// The codec library CMake finds for it (CHUNKWISE_USE_<NEEDS>, one of CHUNKWISE_CODECS in
    /// cmake/chunkwise-find-codecs.cmake), or null where it needs none besides zlib.
    const char* needs = nullptr;
    /// The inner codecs `option:NAME` may name (Blosc's), or null: the option takes none.
    const char* variants = nullptr;
    /// Other names write_options::codec accepts for it, comma separated ("bz2"), or null.
    const char* aliases = nullptr;
    /// The level a write's level 0 stands for: the codec library's own default (0: it has none).
    int default_level = 0;
    /// The first of `parameters` that states a writer's choice (level, shuffle, inner codec); those
    /// before it are filled in by the plugin when HDF5 makes a dataset (Blosc: 4).
    std::size_t settings_from = 0;

    // ---- Zarr (null where Zarr does not name the codec) ----
    /// Its numcodecs id in Zarr v2 metadata ("zlib", "blosc"), or null.
    const char* zarr_v2 = nullptr;
    /// Its name in Zarr v3 metadata ("gzip", "crc32c"), or null.
    const char* zarr_v3 = nullptr;
    /// The configuration keys whose integers, in this order, are its decode parameters (what HDF5
    /// stores as client data): "elementsize" for shuffle; null: none.
    const char* zarr_params = nullptr;
    /// The members of its Zarr configuration for a write (JSON text, without braces, without the
    /// v2 "id"): "\"level\": 5"; null: none. `format` is 2 or 3.
    std::string (*zarr_config)(const encode_request& r, int format) = nullptr;
};

/// The level `r` asks of `c`: r.level, or the codec's default where it is 0.
inline int level_of(const codec& c, const encode_request& r) noexcept {
    return r.level != 0 ? r.level : c.default_level;
}

/// The Zarr configuration members of codecs whose only setting is their level ("level": L).
inline std::string zarr_level_config(int level) { return "\"level\": " + std::to_string(level); }

/// `codec::accepts` of a codec that decodes every parameter set.
inline std::string accepts_all(const std::vector<unsigned>&) { return {}; }

/// `codec::accepts` of a filter only HDF5 decodes.
inline std::string decoded_by_hdf5(const std::vector<unsigned>&) { return "no decoder in chunkwise"; }

/// `check`'s message for a codec built without its library (the one "needs library" message of
/// both stores, reading and writing).
inline std::string built_without(const char* library, const char* package) {
    return std::string("needs chunkwise built with ") + library + " (Debian: " + package + ")";
}

/// No bound: a size a codec cannot limit.
inline constexpr std::size_t unbounded = static_cast<std::size_t>(-1);

/// a + b, or `unbounded` where that overflows.
constexpr std::size_t bound_add(std::size_t a, std::size_t b) noexcept { return a > unbounded - b ? unbounded : a + b; }
/// a * b, or `unbounded` where that overflows.
constexpr std::size_t bound_mul(std::size_t a, std::size_t b) noexcept {
    return b != 0 && a > unbounded / b ? unbounded : a * b;
}
/// LZ4's worst case for n bytes (LZ4_compressBound, which needs no library).
constexpr std::size_t lz4_bound(std::size_t n) noexcept { return bound_add(n, n / 255 + 16); }
/// Zstandard's worst case for n bytes (ZSTD_COMPRESSBOUND).
constexpr std::size_t zstd_bound(std::size_t n) noexcept {
    return bound_add(n, (n >> 8) + (n < (std::size_t{128} << 10) ? ((std::size_t{128} << 10) - n) >> 11 : 0));
}

/// Big-endian reads, as the plugins' headers store their sizes.
inline std::uint64_t read_be(const unsigned char* p, std::size_t bytes) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}
/// Big-endian writes.
inline void write_be(unsigned char* p, std::uint64_t v, std::size_t bytes) noexcept {
    for (std::size_t i = bytes; i-- > 0;) {
        p[i] = static_cast<unsigned char>(v & 0xffu);
        v >>= 8;
    }
}

/// Little-endian reads and writes of `bytes` bytes, as numcodecs stores its sizes.
inline std::uint64_t read_le(const unsigned char* p, std::size_t bytes) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = bytes; i-- > 0;) v = (v << 8) | p[i];
    return v;
}
inline void write_le(unsigned char* p, std::uint64_t v, std::size_t bytes) noexcept {
    for (std::size_t i = 0; i < bytes; ++i) {
        p[i] = static_cast<unsigned char>(v & 0xffu);
        v >>= 8;
    }
}

/// Throws a decode error: std::runtime_error with `what`.
[[noreturn]] inline void damaged(const std::string& what) { throw std::runtime_error(what); }

}  // namespace chunkwise::detail::codecs
