#pragma once
// Internal: deflate in a zlib stream: HDF5's deflate filter (id 1) and numcodecs' Zlib (Zarr v2
// "zlib"), decoded with libdeflate where chunkwise was built with it (CHUNKWISE_USE_LIBDEFLATE),
// else zlib; encoded the same way for the writers. Parameters: the level (0-9), checked by HDF5
// when reading too.
#include <chunkwise/detail/codecs/codec.hpp>

#include <zlib.h>
#if defined(CHUNKWISE_USE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

/// How a deflate stream ended when zlib decoded it (zlib_inflate).
enum class stream_end { done, truncated, overflow, corrupt };

/// What zlib_inflate decoded: bytes written and read, and how the stream ended.
struct inflated {
    std::size_t out = 0, used = 0;
    stream_end end = stream_end::done;
    std::string zlib_message;
};

/// One deflate stream (`window_bits` 15: zlib's framing; 31: one gzip member) of [in, in + n)
/// decoded by zlib into at most `cap` bytes: where it ended, never throwing for the data's sake.
/// `overflow` only where the stream holds more than cap bytes; `truncated` where the input ends
/// before the stream does.
inline inflated zlib_inflate(int window_bits, const unsigned char* in, std::size_t n, unsigned char* out,
                             std::size_t cap) {
    z_stream z{};
    if (inflateInit2(&z, window_bits) != Z_OK) throw std::runtime_error("cannot start a zlib decoder");
    constexpr std::size_t most = std::numeric_limits<uInt>::max();
    inflated r;
    unsigned char spare = 0;
    int rc = Z_OK;
    while (true) {
        if (z.avail_in == 0 && r.used < n) {
            z.next_in = const_cast<unsigned char*>(in + r.used);
            z.avail_in = static_cast<uInt>(std::min(most, n - r.used));
            r.used += z.avail_in;
        }
        const bool full = r.out == cap;
        if (z.avail_out == 0) {
            // Past cap: one spare byte tells whether the stream holds more.
            z.next_out = full ? &spare : out + r.out;
            z.avail_out = full ? 1u : static_cast<uInt>(std::min(most, cap - r.out));
        }
        const uInt before = z.avail_out;
        rc = inflate(&z, Z_NO_FLUSH);
        const std::size_t made = before - z.avail_out;
        if (full && made > 0) {
            r.end = stream_end::overflow;
            break;
        }
        if (!full) r.out += made;
        if (rc == Z_STREAM_END) break;
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && r.used == n) {
            r.end = stream_end::truncated;
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            r.end = stream_end::corrupt;
            r.zlib_message = z.msg != nullptr ? z.msg : "error " + std::to_string(rc);
            break;
        }
    }
    r.used -= z.avail_in;
    inflateEnd(&z);
    return r;
}

/// Throws the decode error for a stream zlib_inflate did not decode (`what`: "deflate stream",
/// "gzip stream").
[[noreturn]] inline void inflate_failed(const std::string& what, const inflated& r, std::size_t cap) {
    if (r.end == stream_end::overflow) damaged(what + " decodes to more than " + std::to_string(cap) + " bytes");
    if (r.end == stream_end::truncated)
        damaged("truncated " + what + ": the chunk ends before the stream does (" + std::to_string(r.out) +
                " bytes decoded)");
    damaged("corrupt " + what + " in a chunk (zlib: " + r.zlib_message + ")");
}

/// Inflates a zlib stream (what HDF5's deflate filter and numcodecs' Zlib write) into at most
/// `cap` bytes; returns how many. Throws std::runtime_error saying that the stream is truncated,
/// corrupt, or decodes to more than cap.
inline std::size_t inflate_into(const unsigned char* in, std::size_t in_size, unsigned char* out, std::size_t cap) {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    struct freer {
        void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
    };
    thread_local std::unique_ptr<libdeflate_decompressor, freer> d(libdeflate_alloc_decompressor());
    if (!d) throw std::runtime_error("cannot allocate a libdeflate decompressor");
    std::size_t got = 0;
    if (libdeflate_zlib_decompress(d.get(), in, in_size, out, cap, &got) == LIBDEFLATE_SUCCESS) return got;
        // The rare failure: zlib says why (libdeflate reads past a cut stream as zeros).
#endif
    const inflated r = zlib_inflate(15, in, in_size, out, cap);
    if (r.end != stream_end::done) inflate_failed("deflate stream", r, cap);
    return r.out;
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
    // Written through write_options::deflate (its level), or as codec "deflate" ("zlib"; in HDF5
    // also "gzip", the one deflate filter HDF5 has).
    .option = "deflate",
    .check = [](const encode_request& r) -> std::string {
        return r.level >= 0 && r.level <= 9 ? std::string() : "level must be 0-9, got " + std::to_string(r.level);
    },
    .parameters =
        [](const encode_request& r) { return std::vector<unsigned>{static_cast<unsigned>(r.level > 0 ? r.level : 6)}; },
    .encode = [](const encode_request& r, const unsigned char* in, std::size_t n,
                 std::vector<unsigned char>& out) { return deflate_bytes(in, n, out, r.level > 0 ? r.level : 6); },
    .own_shuffle = false,
    .needs = nullptr,
    .variants = nullptr,
    .aliases = "zlib,gzip",
    .default_level = 6,  // zlib's own (Z_DEFAULT_COMPRESSION)
    .zarr_v2 = "zlib",   // numcodecs' Zlib: the same stream
    .zarr_v3 = nullptr,  // (v3 has gzip only: a deflate stream in a gzip frame)
    .zarr_params = "level",
    .zarr_config = [](const encode_request& r, int) { return zarr_level_config(r.level); }};

}  // namespace chunkwise::detail::codecs
