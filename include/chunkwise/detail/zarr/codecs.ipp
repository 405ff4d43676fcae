// The definitions of chunkwise/detail/zarr/codecs.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL std::string decodable(int format) {
    std::string out;
    for (const codecs::codec* c : codecs::all_codecs()) {
        const char* own = format == 3 ? c->zarr_v3 : c->zarr_v2;
        if (own != nullptr && (c->decode != nullptr || c->trim != nullptr))
            out += std::string(out.empty() ? "" : ", ") + own;
    }
    return out + (format == 2 ? ", " + std::string(type_filter_names) : "");
}

CHUNKWISE_ZARR_DECL void check_decodable(const chain& c) {
    for (const codec_spec& k : c.bytes_codecs) {
        if (c.format == 2 && is_type_filter(k.name)) continue;
        if (k.impl == nullptr)
            throw std::runtime_error("codec '" + k.name + "' is not one chunkwise decodes (it decodes " +
                                     decodable(c.format) + "; zarr-python with numcodecs reads the others)");
        if (const std::string why = k.impl->accepts(k.params); !why.empty())
            throw std::runtime_error("codec '" + k.name + "': " + why);
    }
}

CHUNKWISE_ZARR_DECL std::vector<std::size_t> stage_sizes(const std::string& store, const chain& c, std::size_t elems,
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

CHUNKWISE_ZARR_DECL std::size_t stated_size(const codec_spec& k, const unsigned char* in, std::size_t n) {
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

CHUNKWISE_ZARR_DECL void decode_stage(const std::string& store, const codec_spec& c, const unsigned char* in,
                                      std::size_t n, unsigned char* out, std::size_t want, std::size_t elems,
                                      const dtype& t, int format) {
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

CHUNKWISE_ZARR_DECL const unsigned char* decode_bytes(const std::string& store, const chain& c, const unsigned char* in,
                                                      std::size_t n, std::size_t elems, const dtype& t,
                                                      std::vector<unsigned char>& a, std::vector<unsigned char>& b,
                                                      unsigned char* final_out, std::size_t* decoded) {
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
