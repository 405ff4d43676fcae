// The definitions of chunkwise/detail/zarr/type_filters.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL dtype filter_type(const std::string& store, const codec_spec& c, const char* key,
                                      const char* fallback) {
    const json* v = member(store, "filter '" + c.name + "'", c.config, key);
    if (v == nullptr && fallback == nullptr) return {};
    return parse_v2_dtype(store, v != nullptr ? *v : *member(store, "filter '" + c.name + "'", c.config, fallback));
}

CHUNKWISE_ZARR_DECL dtype decoded_type(const std::string& store, const codec_spec& c) {
    if (c.name == "astype") return filter_type(store, c, "decode_dtype", nullptr);
    if (c.name == "bitround") return {};
    return filter_type(store, c, "dtype", nullptr);
}

CHUNKWISE_ZARR_DECL dtype encoded_type(const std::string& store, const codec_spec& c) {
    if (c.name == "astype") return filter_type(store, c, "encode_dtype", nullptr);
    if (c.name == "bitround") return {'f', 0, false};  // same as the array's: sized by the caller
    return filter_type(store, c, "astype", "dtype");
}

CHUNKWISE_ZARR_DECL double filter_number(const std::string& store, const codec_spec& c, const char* key) {
    const std::string where = "filter '" + c.name + "'";
    const json& v = any_member(store, where, c.config, key, true);
    if (!v.is_number()) bad(store, "filter '" + c.name + "''s '" + key + "' is " + shown(v) + ", not a number");
    return v.get<double>();
}

CHUNKWISE_ZARR_DECL void decode_type_filter(const std::string& store, const codec_spec& c, const unsigned char* in,
                                            std::size_t n, unsigned char* out, std::size_t elems, const dtype& t) {
    if (c.name == "bitround") {
        if (n != elems * t.size)
            throw std::runtime_error("truncated: a bitround-coded chunk of " + std::to_string(n) + " bytes where " +
                                     std::to_string(elems * t.size) + " are due");
        std::memcpy(out, in, n);
        return;
    }
    const dtype d = decoded_type(store, c), a = encoded_type(store, c);
    if (d.size != t.size || d.kind != t.kind)
        throw std::runtime_error("filter '" + c.name + "' decodes to " + d.name() + ", not the array's " + t.name());
    if (n != elems * a.size)
        throw std::runtime_error((n < elems * a.size ? "truncated: a " : "a ") + c.name + "-coded chunk of " +
                                 std::to_string(n) + " bytes where " + std::to_string(elems * a.size) + " are due");
    constexpr bool native_big = std::endian::native == std::endian::big;
    const bool a_swap = a.big != native_big && a.size > 1, s_swap = d.big != native_big && d.size > 1;
    const bool scaled = c.name == "fixedscaleoffset";
    const double scale = scaled ? filter_number(store, c, "scale") : 1,
                 offset = scaled ? filter_number(store, c, "offset") : 0;
    with_type(d, [&](auto s) {
        with_type(a, [&](auto x) {
            using S = decltype(s);
            using A = decltype(x);
            if (c.name == "delta") {
                undelta<S, A>(in, out, elems, a_swap, s_swap);
            } else {
                uncast<S, A>(in, out, elems, a_swap, s_swap, scaled, scale, offset);
            }
        });
    });
}

}  // namespace chunkwise::zarr::detail
