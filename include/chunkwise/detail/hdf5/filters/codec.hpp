#pragma once
// Internal: what a filter chunkwise decodes itself is — its id and names, which parameters it
// decodes, how large its output is where the encoded data says so, and the decode itself — and
// the registry of filters HDF5 users meet (names and the Debian packages of their HDF5 plugins),
// for messages. One header per filter in this folder; table.hpp lists them.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// A filter chunkwise decodes in the reading thread, outside any lock. Every function is
/// reentrant and bounded: it reads only [in, in + n), writes only [out, out + cap), and throws
/// std::runtime_error naming what is wrong where the data is damaged or decodes to more than cap.
struct codec {
    int id = 0;
    const char* name = "";
    /// "" where chunks with these parameters (the filter's client data as stored) are decoded
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
};

/// No bound: a size a codec cannot limit.
inline constexpr std::size_t unbounded = static_cast<std::size_t>(-1);

/// a + b, or `unbounded` where that overflows.
constexpr std::size_t bound_add(std::size_t a, std::size_t b) noexcept {
    return a > unbounded - b ? unbounded : a + b;
}
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

/// `codec::accepts` of a codec that decodes every parameter set.
inline std::string accepts_all(const std::vector<unsigned>&) { return {}; }

/// A filter HDF5 users meet: its id, its usual name, and where its HDF5 plugin comes from.
struct known_filter {
    int id;
    const char* name;
    const char* provider;  // a Debian package, or where else to get it
};

inline const std::vector<known_filter>& known_filters() {
    static const std::vector<known_filter> all{
        {1, "deflate", "built into HDF5"},
        {2, "shuffle", "built into HDF5"},
        {3, "fletcher32", "built into HDF5"},
        {4, "szip", "HDF5 built with szip or libaec"},
        {5, "nbit", "built into HDF5"},
        {6, "scaleoffset", "built into HDF5"},
        {305, "lzo", "no Debian package (the HDF5 plugin of PyTables)"},
        {307, "bzip2", "Debian package hdf5-filter-plugin"},
        {32000, "lzf", "Debian package hdf5-plugin-lzf (or bitshuffle)"},
        {32001, "blosc", "Debian package hdf5-filter-plugin-blosc-serial"},
        {32004, "lz4", "Debian package hdf5-filter-plugin"},
        {32008, "bitshuffle", "Debian package bitshuffle"},
        {32013, "zfp", "no Debian package (H5Z-ZFP, or hdf5plugin)"},
        {32015, "zstd", "no Debian 12 package (netCDF-C's or hdf5plugin's HDF5 plugin)"},
        {32017, "sz", "no Debian package (SZ's HDF5 plugin, or hdf5plugin)"},
        {32020, "vbz", "no Debian package (Oxford Nanopore's vbz plugin)"},
        {32026, "blosc2", "no Debian 12 package (hdf5plugin)"},
    };
    return all;
}

/// The usual name of filter `id` ("filter 12345" where unknown).
inline std::string filter_name(int id) {
    for (const auto& f : known_filters()) {
        if (f.id == id) return f.name;
    }
    return "filter " + std::to_string(id);
}

/// Where filter `id`'s HDF5 plugin comes from, for messages ("" where unknown).
inline std::string filter_provider(int id) {
    for (const auto& f : known_filters()) {
        if (f.id == id) return f.provider;
    }
    return {};
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

/// Throws a decode error: std::runtime_error with `what`.
[[noreturn]] inline void damaged(const std::string& what) { throw std::runtime_error(what); }

}  // namespace chunkwise::h5::detail
