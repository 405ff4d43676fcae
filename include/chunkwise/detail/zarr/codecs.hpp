#pragma once
// Internal: a Zarr chunk's bytes codecs undone, last to first. Compressors and checksums by the
// codec floor's codec of their name (detail/codecs/table.hpp: zlib, gzip, zstd, blosc, bz2,
// numcodecs' lz4, shuffle, crc32c); numcodecs' filters that change the values' type
// (type_filters.hpp: delta, quantize, bitround, fixedscaleoffset, astype) here, as numcodecs
// decodes them. Every codec of a chain is checked before any is decoded, so a codec chunkwise does
// not decode is named itself. Each stage decodes into exactly the size it must have, or, where no
// earlier stage says it (a compressor after a compressor, everything after sharding), into the
// size the encoded data states (zstd, blosc, gzip, numcodecs' lz4); else std::runtime_error says
// what is wrong (the reader adds store and key).
#include <chunkwise/detail/codecs/table.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>
#include <chunkwise/detail/zarr/type_filters.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::zarr::detail {

namespace codecs = chunkwise::detail::codecs;

/// The most bytes a stage may decode to where only the encoded data states its size.
inline constexpr std::uint64_t most_stated_bytes = std::uint64_t{16} << 30;

/// The codecs this build decodes in format `format`, for messages: "zlib, gzip, ...".
inline std::string decodable(int format) {
    std::string out;
    for (const codecs::codec* c : codecs::all_codecs()) {
        const char* own = format == 3 ? c->zarr_v3 : c->zarr_v2;
        if (own != nullptr && (c->decode != nullptr || c->trim != nullptr))
            out += std::string(out.empty() ? "" : ", ") + own;
    }
    return out + (format == 2 ? ", " + std::string(type_filter_names) : "");
}

/// Throws where a codec of `c` is not one chunkwise decodes (naming it), or its parameters are
/// refused; nothing is decoded before.
inline void check_decodable(const chain& c) {
    for (const codec_spec& k : c.bytes_codecs) {
        if (c.format == 2 && is_type_filter(k.name)) continue;
        if (k.impl == nullptr)
            throw std::runtime_error("codec '" + k.name + "' is not one chunkwise decodes (it decodes " +
                                     decodable(c.format) + "; zarr-python with numcodecs reads the others)");
        if (const std::string why = k.impl->accepts(k.params); !why.empty())
            throw std::runtime_error("codec '" + k.name + "': " + why);
    }
}

/// The bytes a chunk of `elems` elements holds after each of `c`'s bytes codecs (in encoding
/// order): sizes[0] the raw values, sizes[k + 1] after codec k (0: not known in advance).
inline std::vector<std::size_t> stage_sizes(const std::string& store, const chain& c, std::size_t elems,
                                            std::size_t item) {
    std::vector<std::size_t> s{elems * item};
    for (const codec_spec& k : c.bytes_codecs) {
        if (c.format == 2 && is_type_filter(k.name) && k.name != "bitround") {
            s.push_back(elems * encoded_type(store, k).size);
        } else if (k.name == "shuffle" || k.name == "bitround") {
            s.push_back(s.back());
        } else if (k.name == "crc32c") {
            s.push_back(s.back() == 0 ? 0 : s.back() + 4);
        } else {
            s.push_back(0);
        }
    }
    return s;
}

/// The size codec `k` decodes [in, in + n) to, where no earlier stage says it: what the encoded
/// data states. \throws std::runtime_error where it states none, or more than most_stated_bytes
inline std::size_t stated_size(const codec_spec& k, const unsigned char* in, std::size_t n) {
    if (k.impl->trim != nullptr) return n >= 4 ? n - 4 : 0;
    const std::size_t stated = k.impl->stated_size != nullptr ? k.impl->stated_size(k.params, in, n) : 0;
    if (stated == 0 && n > 0)
        throw std::runtime_error("codec '" + k.name + "' does not state its decoded size, which nothing before it " +
                                 "says (chunkwise reads gzip, zstd, blosc, lz4 and crc32c there)");
    if (stated > most_stated_bytes)
        throw std::runtime_error("codec '" + k.name + "' states " + std::to_string(stated) +
                                 " decoded bytes, more than chunkwise decodes at once (16 GiB)");
    return stated;
}

/// Decodes one bytes codec: [in, in + n) into [out, out + want), which it must fill exactly.
/// `elems` and `t` are the chunk's element count and stored type (for the type filters).
inline void decode_stage(const std::string& store, const codec_spec& c, const unsigned char* in, std::size_t n,
                         unsigned char* out, std::size_t want, std::size_t elems, const dtype& t, int format) {
    if (format == 2 && is_type_filter(c.name)) {
        decode_type_filter(store, c, in, n, out, elems, t);
        return;
    }
    std::size_t got = 0;
    if (c.impl->trim != nullptr) {
        got = c.impl->trim(c.params, in, n);
        if (got == want) std::memcpy(out, in, want);
    } else {
        got = c.impl->decode(c.params, in, n, out, want);
    }
    if (got < want)
        throw std::runtime_error("truncated: codec '" + c.name + "' decodes to " + std::to_string(got) +
                                 " bytes where the chunk holds " + std::to_string(want));
    if (got != want)
        throw std::runtime_error("codec '" + c.name + "' decodes to " + std::to_string(got) +
                                 " bytes where the chunk holds " + std::to_string(want));
}

/// Decodes a chunk's bytes through `c`'s bytes codecs; returns the raw values' bytes: `in` itself
/// where there is no codec, else `final_out` where given (the last stage decodes into it: it must
/// hold the chunk's bytes), else a or b. With `elems` 0 the values' size is not known (the bytes
/// after sharding): every stage takes the size its input states, and `decoded` says the result's.
inline const unsigned char* decode_bytes(const std::string& store, const chain& c, const unsigned char* in,
                                         std::size_t n, std::size_t elems, const dtype& t,
                                         std::vector<unsigned char>& a, std::vector<unsigned char>& b,
                                         unsigned char* final_out = nullptr, std::size_t* decoded = nullptr) {
    check_decodable(c);
    const std::vector<std::size_t> sizes = stage_sizes(store, c, elems, t.size);
    if (c.bytes_codecs.empty()) {
        if (elems != 0 && n != sizes[0]) {
            throw std::runtime_error((n < sizes[0] ? "truncated: " : "") + std::to_string(n) +
                                     " bytes where the chunk holds " + std::to_string(sizes[0]));
        }
        if (decoded != nullptr) *decoded = n;
        return in;
    }
    const unsigned char* cur = in;
    std::size_t cur_n = n;
    std::vector<unsigned char>* bufs[2] = {&a, &b};
    int which = 0;
    for (std::size_t k = c.bytes_codecs.size(); k-- > 0;) {
        const std::size_t want = sizes[k] != 0 ? sizes[k] : stated_size(c.bytes_codecs[k], cur, cur_n);
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
    if (decoded != nullptr) *decoded = cur_n;
    return cur;
}

}  // namespace chunkwise::zarr::detail
