#pragma once
// Internal: gzip (RFC 1952), Zarr's "gzip" (numcodecs' GZip in v2, the v3 gzip codec): deflate in
// gzip frames. Read as Python's gzip module reads it (what zarr-python decodes with): one member or
// several, concatenated, zero bytes after the last one skipped; any other byte after it refused.
// Decoded with libdeflate where chunkwise was built with it, else zlib; zlib says why a stream
// fails. HDF5 has no gzip filter: its deflate (deflate.hpp) is what "gzip" means there.
#include <chunkwise/detail/codecs/codec.hpp>
#include <chunkwise/detail/codecs/deflate.hpp>

#include <zlib.h>
#if defined(CHUNKWISE_USE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

/// One gzip member at [in, in + n) into at most `cap` bytes at out: the bytes written and read.
inline inflated gunzip_member(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    struct freer {
        void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
    };
    thread_local std::unique_ptr<libdeflate_decompressor, freer> d(libdeflate_alloc_decompressor());
    if (!d) throw std::runtime_error("cannot allocate a libdeflate decompressor");
    inflated r;
    if (libdeflate_gzip_decompress_ex(d.get(), in, n, out, cap, &r.used, &r.out) == LIBDEFLATE_SUCCESS) return r;
#endif
    return zlib_inflate(31, in, n, out, cap);
}

/// gzip of [in, in + n) into at most `cap` bytes at out (every member, in order); returns how
/// many. Throws std::runtime_error saying that a member is truncated or corrupt, that the stream
/// decodes to more than cap, or that bytes other than zeros follow the last member.
inline std::size_t gunzip_into(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    std::size_t at = 0, done = 0;
    do {
        const inflated r = gunzip_member(in + at, n - at, out + done, cap - done);
        if (r.end != stream_end::done) {
            inflated whole = r;
            whole.out += done;
            inflate_failed("gzip stream", whole, cap);
        }
        at += r.used;
        done += r.out;
        while (at < n && in[at] == 0) ++at;  // zero padding, as Python's gzip skips it
        if (at < n && (n - at < 2 || in[at] != 0x1f || in[at + 1] != 0x8b))
            damaged("a gzip stream followed by " + std::to_string(n - at) +
                    " bytes that are neither zeros nor another gzip member");
    } while (at < n);
    return done;
}

/// The size the last gzip member states (its ISIZE, modulo 2^32): a hint, 0 where too short.
inline std::size_t gzip_stated(const unsigned char* in, std::size_t n) {
    if (n < 18) return 0;
    return static_cast<std::size_t>(in[n - 4]) | static_cast<std::size_t>(in[n - 3]) << 8 |
           static_cast<std::size_t>(in[n - 2]) << 16 | static_cast<std::size_t>(in[n - 1]) << 24;
}

/// One gzip member of [in, in + n) at `level` into out; its size.
inline std::size_t gzip_bytes(const unsigned char* in, std::size_t n, std::vector<unsigned char>& out, int level) {
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
    out.resize(libdeflate_gzip_compress_bound(c.get(), n));
    const std::size_t got = libdeflate_gzip_compress(c.get(), in, n, out.data(), out.size());
    if (got == 0) throw std::runtime_error("gzip encoding failed");
    out.resize(got);
    return got;
#else
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("cannot start a gzip encoder (level " + std::to_string(level) + ")");
    out.resize(deflateBound(&z, static_cast<uLong>(n)) + 32);
    z.next_in = const_cast<unsigned char*>(in);
    z.avail_in = static_cast<uInt>(n);
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(out.size() - z.avail_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) throw std::runtime_error("gzip encoding failed");
    return out.size();
#endif
}

inline const codec gzip_codec{
    .id = 0,  // no HDF5 filter: HDF5 writes "gzip" as its deflate filter
    .name = "gzip",
    .provider = "zlib (Zarr only)",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char* in,
                      std::size_t n) { return gzip_stated(in, n); },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return gunzip_into(in, n, out, cap); },
    .trim = nullptr,
    // The deflate stream's bound and the member's 18-byte frame.
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) -> std::size_t {
        return bound_add(n, (n >> 11) + (n >> 13) + 64 + 18);
    },
    .library = []() -> std::string {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
        return "libdeflate " LIBDEFLATE_VERSION_STRING;
#else
        return std::string("zlib ") + zlibVersion();
#endif
    },
    .option = "gzip",
    .check = [](const encode_request& r) -> std::string {
        return r.level >= 0 && r.level <= 9 ? std::string() : "level must be 0-9, got " + std::to_string(r.level);
    },
    .parameters = nullptr,
    .encode = [](const encode_request& r, const unsigned char* in, std::size_t n,
                 std::vector<unsigned char>& out) { return gzip_bytes(in, n, out, r.level > 0 ? r.level : 6); },
    .own_shuffle = false,
    .needs = nullptr,
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 6,  // gzip's own
    .zarr_v2 = "gzip",
    .zarr_v3 = "gzip",
    .zarr_params = nullptr,
    .zarr_config = [](const encode_request& r, int) { return zarr_level_config(r.level); }};

}  // namespace chunkwise::detail::codecs
