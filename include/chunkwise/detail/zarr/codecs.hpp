#pragma once
// Internal: Zarr's bytes codecs, decoded and encoded by the codec implementations HDF5 reads use
// (detail/hdf5/filters/: zlib/libdeflate, Zstandard, Blosc, bzip2, shuffle), plus the framings
// only Zarr has: gzip (libdeflate where found, else zlib), numcodecs' LZ4 (a little-endian size, then one LZ4 block), delta, crc32c.
// Each stage decodes into exactly the size the chunk must have at that stage, or throws
// std::runtime_error saying what is wrong (the reader adds store and key).
#include <chunkwise/detail/hdf5/filters/table.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr::detail {

namespace hd = chunkwise::h5::detail;

/// CRC-32C (Castagnoli), as Zarr v3's crc32c codec stores it (no Debian 12 library provides it).
inline std::uint32_t crc32c(const unsigned char* p, std::size_t n) noexcept {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1u) != 0 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

inline std::uint32_t read_le32(const unsigned char* p) noexcept {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}
inline void write_le32(unsigned char* p, std::uint32_t v) noexcept {
    for (int b = 0; b < 4; ++b) p[b] = static_cast<unsigned char>(v >> (8 * b));
}

[[noreturn]] inline void missing_library(const std::string& codec, const char* library, const char* package) {
    throw std::runtime_error("codec '" + codec + "' needs chunkwise built with " + library + " (Debian: " + package + ")");
}

/// gzip (RFC 1952) of [in, in + n) into exactly `want` bytes.
inline void gunzip(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t want) {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    struct freer {
        void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
    };
    thread_local std::unique_ptr<libdeflate_decompressor, freer> d(libdeflate_alloc_decompressor());
    if (!d) throw std::runtime_error("cannot allocate a libdeflate decompressor");
    std::size_t got = 0;
    const auto rc = libdeflate_gzip_decompress(d.get(), in, n, out, want, &got);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) throw std::runtime_error("a gzip stream that decodes to more than " + std::to_string(want) + " bytes");
    if (rc != LIBDEFLATE_SUCCESS && rc != LIBDEFLATE_SHORT_OUTPUT) throw std::runtime_error("a corrupt or truncated gzip stream (libdeflate: bad data)");
    if (rc == LIBDEFLATE_SHORT_OUTPUT || got != want)
        throw std::runtime_error("a gzip stream of " + std::to_string(got) + " bytes where the chunk holds " + std::to_string(want));
#else
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("cannot start a gzip decoder");
    z.next_in = const_cast<unsigned char*>(in);
    z.avail_in = static_cast<uInt>(n);
    z.next_out = out;
    z.avail_out = static_cast<uInt>(want);
    const int rc = inflate(&z, Z_FINISH);
    const std::size_t got = want - z.avail_out;
    inflateEnd(&z);
    if (rc == Z_BUF_ERROR && got == want) throw std::runtime_error("a gzip stream that decodes to more than " + std::to_string(want) + " bytes");
    if (rc != Z_STREAM_END) throw std::runtime_error("a corrupt or truncated gzip stream (zlib error " + std::to_string(rc) + ")");
    if (got != want) throw std::runtime_error("a gzip stream of " + std::to_string(got) + " bytes where the chunk holds " + std::to_string(want));
#endif
}

inline void gzip_bytes(const unsigned char* in, std::size_t n, std::vector<unsigned char>& out, int level) {
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
}

/// Delta's decode: `in` holds n values of `astype`, out n of `t`, the running sum.
template <class S, class A>
void undelta(const unsigned char* in, unsigned char* out, std::size_t n) {
    // Integers wrap as numpy's do (the sum in the unsigned type of S); floats add.
    using Acc = typename std::conditional_t<std::is_integral_v<S>, std::make_unsigned<S>, std::type_identity<S>>::type;
    Acc acc{};
    for (std::size_t i = 0; i < n; ++i) {
        A a;
        std::memcpy(&a, in + i * sizeof(A), sizeof(A));
        Acc step;
        if constexpr (std::is_integral_v<S> && std::is_floating_point_v<A>) {
            step = static_cast<Acc>(static_cast<long long>(a));
        } else {
            step = static_cast<Acc>(a);
        }
        acc = i == 0 ? step : static_cast<Acc>(acc + step);
        const S v = static_cast<S>(acc);
        std::memcpy(out + i * sizeof(S), &v, sizeof(S));
    }
}

template <class F>
void with_type(const dtype& t, F&& f) {
    switch (t.kind == 'b' ? 'u' : t.kind) {
        case 'i':
            if (t.size == 1) return f(std::int8_t{});
            if (t.size == 2) return f(std::int16_t{});
            if (t.size == 4) return f(std::int32_t{});
            return f(std::int64_t{});
        case 'u':
            if (t.size == 1) return f(std::uint8_t{});
            if (t.size == 2) return f(std::uint16_t{});
            if (t.size == 4) return f(std::uint32_t{});
            return f(std::uint64_t{});
        default:
            if (t.size == 4) return f(float{});
            return f(double{});
    }
}

/// The size in bytes of n elements after the codec `c` (in encoding order): delta may change it.
inline std::size_t delta_size(const std::string& store, const codec_spec& c, std::size_t n) {
    const dtype a = parse_v2_dtype(store, c.config.value("astype", c.config.value("dtype", json())));
    return n * a.size;
}

/// Decodes one bytes codec: [in, in + n) into [out, out + want), which it must fill exactly.
/// `elems` and `t` are the chunk's element count and stored type (for delta).
inline void decode_stage(const std::string& store, const codec_spec& c, const unsigned char* in, std::size_t n,
                         unsigned char* out, std::size_t want, std::size_t elems, const dtype& t) {
    const std::string& name = c.name;
    static const char* const known[] = {"zlib", "gzip", "zstd", "blosc", "bz2", "lz4", "shuffle", "delta", "crc32c"};
    if (std::find(std::begin(known), std::end(known), name) != std::end(known) && want == 0 && name != "crc32c")
        throw std::runtime_error("codec '" + name + "' after another compressing codec is not decoded");
    std::size_t got = want;
    if (name == "zlib") {
        got = hd::inflate_into(in, n, out, want);
    } else if (name == "gzip") {
        gunzip(in, n, out, want);
    } else if (name == "zstd") {
#if defined(CHUNKWISE_USE_ZSTD)
        got = hd::zstd_decode(in, n, out, want);
#else
        missing_library(name, "libzstd", "libzstd-dev");
#endif
    } else if (name == "blosc") {
#if defined(CHUNKWISE_USE_BLOSC)
        got = hd::blosc_decode(in, n, out, want);
#else
        missing_library(name, "libblosc", "libblosc-dev");
#endif
    } else if (name == "bz2") {
#if defined(CHUNKWISE_USE_BZIP2)
        got = hd::bzip2_decode(in, n, out, want);
#else
        missing_library(name, "libbz2", "libbz2-dev");
#endif
    } else if (name == "lz4") {
#if defined(CHUNKWISE_USE_LZ4)
        if (n < 4) throw std::runtime_error("an LZ4 chunk of " + std::to_string(n) + " bytes, shorter than its header");
        const std::uint32_t stated = read_le32(in);
        if (stated != want) throw std::runtime_error("an LZ4 chunk that states " + std::to_string(stated) + " bytes where the chunk holds " + std::to_string(want));
        if (n - 4 > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) throw std::runtime_error("an LZ4 chunk too large for LZ4");
        const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(in + 4), reinterpret_cast<char*>(out),
                                          static_cast<int>(n - 4), static_cast<int>(want));
        if (r < 0) throw std::runtime_error("a corrupt LZ4 block");
        got = static_cast<std::size_t>(r);
#else
        missing_library(name, "liblz4", "liblz4-dev");
#endif
    } else if (name == "shuffle") {
        const std::size_t elem = c.config.value("elementsize", std::size_t{4});
        if (n != want || elem == 0) throw std::runtime_error("a shuffled chunk of " + std::to_string(n) + " bytes where " + std::to_string(want) + " are due");
        hd::unshuffle(in, out, n, elem);
    } else if (name == "delta") {
        const dtype d = parse_v2_dtype(store, c.config.value("dtype", json()));
        const dtype a = parse_v2_dtype(store, c.config.value("astype", c.config.value("dtype", json())));
        if (d.big || a.big) throw std::runtime_error("delta of big-endian types is not read");
        if (d.size != t.size || d.kind != t.kind) throw std::runtime_error("delta's dtype is not the array's");
        if (n != elems * a.size) throw std::runtime_error("a delta-coded chunk of " + std::to_string(n) + " bytes where " + std::to_string(elems * a.size) + " are due");
        with_type(d, [&](auto s) { with_type(a, [&](auto x) { undelta<decltype(s), decltype(x)>(in, out, elems); }); });
    } else if (name == "crc32c") {
        if (n < 4) throw std::runtime_error("a crc32c-checked chunk of " + std::to_string(n) + " bytes, shorter than its checksum");
        if (crc32c(in, n - 4) != read_le32(in + n - 4)) throw std::runtime_error("its crc32c checksum does not match its bytes");
        if (n - 4 != want) throw std::runtime_error(std::to_string(n - 4) + " bytes where " + std::to_string(want) + " are due");
        std::memcpy(out, in, want);
    } else {
        throw std::runtime_error("codec '" + name + "' is not one chunkwise decodes (it decodes " +
                                 "zlib, gzip, zstd, blosc, lz4, bz2, shuffle, delta, crc32c; " +
                                 "zarr-python with numcodecs reads the others)");
    }
    if (got != want)
        throw std::runtime_error("it decodes to " + std::to_string(got) + " bytes where the chunk holds " + std::to_string(want));
}

/// The bytes a chunk of `elems` elements holds after each of `c`'s bytes codecs (in encoding
/// order): sizes[0] the raw values, sizes[k + 1] after codec k (0: not known in advance).
inline std::vector<std::size_t> stage_sizes(const std::string& store, const chain& c, std::size_t elems, std::size_t item) {
    std::vector<std::size_t> s{elems * item};
    for (const codec_spec& k : c.bytes_codecs) {
        if (k.name == "delta") s.push_back(delta_size(store, k, elems));
        else if (k.name == "shuffle") s.push_back(s.back());
        else if (k.name == "crc32c") s.push_back(s.back() + 4);
        else s.push_back(0);
    }
    return s;
}

/// Decodes a chunk's bytes through `c`'s bytes codecs; returns the raw values' bytes: `in` itself
/// where there is no codec, else `final_out` where given (the last stage decodes into it: it must
/// hold the chunk's bytes), else a or b.
inline const unsigned char* decode_bytes(const std::string& store, const chain& c, const unsigned char* in, std::size_t n,
                                         std::size_t elems, const dtype& t, std::vector<unsigned char>& a,
                                         std::vector<unsigned char>& b, unsigned char* final_out = nullptr) {
    const std::vector<std::size_t> sizes = stage_sizes(store, c, elems, t.size);
    if (c.bytes_codecs.empty()) {
        if (n != sizes[0]) throw std::runtime_error(std::to_string(n) + " bytes where the chunk holds " + std::to_string(sizes[0]));
        return in;
    }
    const unsigned char* cur = in;
    std::size_t cur_n = n;
    std::vector<unsigned char>* bufs[2] = {&a, &b};
    int which = 0;
    for (std::size_t k = c.bytes_codecs.size(); k-- > 0;) {
        std::size_t want = sizes[k];
        // crc32c after a compressor: what it covers is the compressor's input, of any size.
        if (want == 0 && c.bytes_codecs[k].name == "crc32c") want = cur_n >= 4 ? cur_n - 4 : 0;
        unsigned char* dst = nullptr;
        if (k == 0 && final_out != nullptr) {
            dst = final_out;
        } else {
            bufs[which]->resize(want);
            dst = bufs[which]->data();
        }
        decode_stage(store, c.bytes_codecs[k], cur, cur_n, dst, want, elems, t);
        cur = dst;
        cur_n = want;
        which ^= 1;
    }
    return cur;
}

}  // namespace chunkwise::zarr::detail
