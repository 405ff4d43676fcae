#pragma once
// Internal: HDF5's deflate filter (id 1): a zlib stream, decoded with libdeflate where
// chunkwise::hdf5 was built with it (CHUNKWISE_USE_LIBDEFLATE), else zlib; encoded the same way
// for the chunk writer. Parameters: the level (0-9), checked by HDF5 when reading too.
#include <chunkwise/detail/hdf5/filters/codec.hpp>

#include <zlib.h>
#if defined(CHUNKWISE_USE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// Inflates a zlib stream (what HDF5's deflate filter writes) into at most `cap` bytes; returns how many. Throws std::runtime_error
/// when the stream is corrupt or decodes to more than cap.
inline std::size_t inflate_into(const unsigned char* in, std::size_t in_size, unsigned char* out, std::size_t cap) {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    struct freer {
        void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
    };
    thread_local std::unique_ptr<libdeflate_decompressor, freer> d(libdeflate_alloc_decompressor());
    if (!d) throw std::runtime_error("cannot allocate a libdeflate decompressor");
    std::size_t got = 0;
    const auto rc = libdeflate_zlib_decompress(d.get(), in, in_size, out, cap, &got);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) damaged("deflate stream decodes to more than " + std::to_string(cap) + " bytes");
    if (rc != LIBDEFLATE_SUCCESS) damaged("corrupt deflate stream in a chunk (libdeflate: bad data)");
    return got;
#else
    if (in_size > std::numeric_limits<uLong>::max() || cap > std::numeric_limits<uLongf>::max()) {
        throw std::runtime_error("chunk too large for zlib");
    }
    uLongf got = static_cast<uLongf>(cap);
    const int rc = ::uncompress(out, &got, in, static_cast<uLong>(in_size));
    if (rc == Z_BUF_ERROR && got == cap) damaged("deflate stream decodes to more than " + std::to_string(cap) + " bytes");
    if (rc != Z_OK) damaged("corrupt deflate stream in a chunk (zlib error " + std::to_string(rc) + ")");
    return got;
#endif
}

/// A zlib stream of `in` at `level` (what HDF5's deflate filter writes) into out; its size.
inline std::size_t deflate_bytes(const unsigned char* in, std::size_t size, std::vector<unsigned char>& out,
                                 int level) {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    struct freer {
        void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
    };
    thread_local int made_for = -1;
    thread_local std::unique_ptr<libdeflate_compressor, freer> c;
    if (made_for != level) {
        c.reset(libdeflate_alloc_compressor(level));
        made_for = level;
    }
    if (!c) throw std::runtime_error("cannot allocate a libdeflate compressor");
    out.resize(libdeflate_zlib_compress_bound(c.get(), size));
    const std::size_t got = libdeflate_zlib_compress(c.get(), in, size, out.data(), out.size());
    if (got == 0) throw std::runtime_error("deflate failed");
    return got;
#else
    out.resize(compressBound(static_cast<uLong>(size)));
    uLongf got = static_cast<uLongf>(out.size());
    if (compress2(out.data(), &got, in, static_cast<uLong>(size), level) != Z_OK)
        throw std::runtime_error("deflate failed");
    return got;
#endif
}

inline const codec deflate_codec{
    .id = 1,  // H5Z_FILTER_DEFLATE
    .name = "deflate",
    .provider = "built into HDF5",
    // HDF5 checks the level even when reading (one parameter, 0-9), and so does chunkwise.
    .accepts = [](const std::vector<unsigned>& cd) -> std::string {
        return cd.size() == 1 && cd[0] <= 9 ? std::string() : std::string("a deflate level that is not 0-9");
    },
    .stated_size = [](const std::vector<unsigned>&, const unsigned char*, std::size_t) -> std::size_t { return 0; },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return inflate_into(in, n, out, cap); },
    .trim = nullptr,
    // Stored blocks (5 bytes per 64 KiB) are the worst any encoder (zlib, libdeflate) falls back
    // to; zlib's compressBound is n + n/4096 + n/16384 + n/2^25 + 13: this allows twice that.
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) -> std::size_t {
        return bound_add(n, (n >> 11) + (n >> 13) + 64);
    },
    .library = []() -> std::string {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
        return "libdeflate " LIBDEFLATE_VERSION_STRING;
#else
        return std::string("zlib ") + zlibVersion();
#endif
    },
    // Written through write_options::deflate (its level), not `codec`.
    .option = nullptr,
    .check = [](const encode_request& r) -> std::string {
        return r.level >= 1 && r.level <= 9 ? std::string() : "level must be 0-9, got " + std::to_string(r.level);
    },
    .parameters = [](const encode_request& r) { return std::vector<unsigned>{static_cast<unsigned>(r.level)}; },
    .encode = [](const encode_request& r, const unsigned char* in, std::size_t n, std::vector<unsigned char>& out) {
        return deflate_bytes(in, n, out, r.level);
    }};

}  // namespace chunkwise::h5::detail
