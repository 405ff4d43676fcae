#pragma once
// Internal: a Zarr chunk's bytes codecs undone, each by its codec from the codec floor's registry
// (detail/codecs/table.hpp: zlib, gzip, zstd, blosc, bz2, numcodecs' lz4, shuffle, crc32c), found
// by the name the metadata gives it; delta, which needs the array's types, is decoded here. Each
// stage decodes into exactly the size the chunk must have at that stage, or throws
// std::runtime_error saying what is wrong (the reader adds store and key).
#include <chunkwise/detail/codecs/table.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr::detail {

namespace codecs = chunkwise::detail::codecs;

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

/// The codecs this build decodes in format `format`, for messages: "zlib, gzip, ...".
inline std::string decodable(int format) {
    std::string out;
    for (const codecs::codec* c : codecs::all_codecs()) {
        const char* own = format == 3 ? c->zarr_v3 : c->zarr_v2;
        if (own != nullptr && (c->decode != nullptr || c->trim != nullptr))
            out += std::string(out.empty() ? "" : ", ") + own;
    }
    return out + (format == 2 ? ", delta" : "");
}

/// Delta's decode: [in, in + n) into exactly `want` bytes (elems values of the array's type t).
inline void decode_delta(const std::string& store, const codec_spec& c, const unsigned char* in, std::size_t n,
                         unsigned char* out, std::size_t elems, const dtype& t) {
    const dtype d = parse_v2_dtype(store, c.config.value("dtype", json()));
    const dtype a = parse_v2_dtype(store, c.config.value("astype", c.config.value("dtype", json())));
    if (d.big || a.big) throw std::runtime_error("delta of big-endian types is not read");
    if (d.size != t.size || d.kind != t.kind) throw std::runtime_error("delta's dtype is not the array's");
    if (n != elems * a.size)
        throw std::runtime_error("a delta-coded chunk of " + std::to_string(n) + " bytes where " +
                                 std::to_string(elems * a.size) + " are due");
    with_type(d, [&](auto s) { with_type(a, [&](auto x) { undelta<decltype(s), decltype(x)>(in, out, elems); }); });
}

/// Decodes one bytes codec: [in, in + n) into [out, out + want), which it must fill exactly.
/// `elems` and `t` are the chunk's element count and stored type (for delta); `format` the
/// array's Zarr format (for messages).
inline void decode_stage(const std::string& store, const codec_spec& c, const unsigned char* in, std::size_t n,
                         unsigned char* out, std::size_t want, std::size_t elems, const dtype& t, int format) {
    if (c.name == "delta" && format == 2) {
        decode_delta(store, c, in, n, out, elems, t);
        return;
    }
    const codecs::codec* k = c.impl;
    if (k == nullptr)
        throw std::runtime_error("codec '" + c.name + "' is not one chunkwise decodes (it decodes " +
                                 decodable(format) + "; zarr-python with numcodecs reads the others)");
    if (const std::string why = k->accepts(c.params); !why.empty())
        throw std::runtime_error("codec '" + c.name + "': " + why);
    if (want == 0 && k->trim == nullptr)
        throw std::runtime_error("codec '" + c.name + "' after another compressing codec is not decoded");
    std::size_t got = 0;
    if (k->trim != nullptr) {
        got = k->trim(c.params, in, n);
        if (got == want) std::memcpy(out, in, want);
    } else {
        got = k->decode(c.params, in, n, out, want);
    }
    if (got != want)
        throw std::runtime_error("it decodes to " + std::to_string(got) + " bytes where the chunk holds " +
                                 std::to_string(want));
}

/// The bytes a chunk of `elems` elements holds after each of `c`'s bytes codecs (in encoding
/// order): sizes[0] the raw values, sizes[k + 1] after codec k (0: not known in advance).
inline std::vector<std::size_t> stage_sizes(const std::string& store, const chain& c, std::size_t elems,
                                            std::size_t item) {
    std::vector<std::size_t> s{elems * item};
    for (const codec_spec& k : c.bytes_codecs) {
        if (k.name == "delta")
            s.push_back(delta_size(store, k, elems));
        else if (k.name == "shuffle")
            s.push_back(s.back());
        else if (k.name == "crc32c")
            s.push_back(s.back() + 4);
        else
            s.push_back(0);
    }
    return s;
}

/// Decodes a chunk's bytes through `c`'s bytes codecs; returns the raw values' bytes: `in` itself
/// where there is no codec, else `final_out` where given (the last stage decodes into it: it must
/// hold the chunk's bytes), else a or b.
inline const unsigned char* decode_bytes(const std::string& store, const chain& c, const unsigned char* in,
                                         std::size_t n, std::size_t elems, const dtype& t,
                                         std::vector<unsigned char>& a, std::vector<unsigned char>& b,
                                         unsigned char* final_out = nullptr) {
    const std::vector<std::size_t> sizes = stage_sizes(store, c, elems, t.size);
    if (c.bytes_codecs.empty()) {
        if (n != sizes[0])
            throw std::runtime_error(std::to_string(n) + " bytes where the chunk holds " + std::to_string(sizes[0]));
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
        decode_stage(store, c.bytes_codecs[k], cur, cur_n, dst, want, elems, t, c.format);
        cur = dst;
        cur_n = want;
        which ^= 1;
    }
    return cur;
}

}  // namespace chunkwise::zarr::detail
