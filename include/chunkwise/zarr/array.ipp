// The definitions of chunkwise/zarr/array.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr {

CHUNKWISE_ZARR_DECL array::array(const std::filesystem::path& path, read_options opt)
        : s_(std::make_shared<detail::state>()), opt_(opt) {
    s_->store = path.string();
    while (s_->store.size() > 1 && s_->store.back() == '/') s_->store.pop_back();
    detail::open_metadata(*s_);
}

CHUNKWISE_ZARR_DECL chunkwise::attributes array::attrs() const {
    if (s_->m.format == 3) return detail::attributes_from_json(s_->store, "zarr.json", s_->m.attributes);
    if (!s_->m.attributes.is_object() || !s_->m.attributes.contains("_ARRAY_DIMENSIONS"))
        return detail::attributes_from_json(s_->store, ".zattrs", s_->m.attributes);
    detail::json rest = s_->m.attributes;
    rest.erase("_ARRAY_DIMENSIONS");
    return detail::attributes_from_json(s_->store, ".zattrs", rest);
}

CHUNKWISE_ZARR_DECL std::vector<std::string> array::dimensions() const {
    const detail::json& m = s_->m.attributes;
    const detail::json* names = &s_->m.dimension_names;
    if (s_->m.format == 2) {
        if (!m.is_object() || !m.contains("_ARRAY_DIMENSIONS")) return {};
        names = &m["_ARRAY_DIMENSIONS"];
        bool fits = names->is_array() && names->size() == s_->m.shape.size();
        for (std::size_t d = 0; fits && d < names->size(); ++d) fits = (*names)[d].is_string();
        if (!fits)
            throw error(s_->store, "",
                        "attribute _ARRAY_DIMENSIONS " + detail::shown(*names) + " is not a list of " +
                            std::to_string(s_->m.shape.size()) + " names");
    }
    std::vector<std::string> out;
    if (names->is_null()) return out;
    for (const detail::json& n : *names) out.push_back(n.is_string() ? n.get<std::string>() : std::string());
    return out;
}

CHUNKWISE_ZARR_DECL auto array::with(read_options opt) const -> array {
    array a = *this;
    a.opt_ = opt;
    return a;
}

CHUNKWISE_ZARR_DECL auto array::codecs() const -> std::vector<std::string> {
    std::vector<std::string> out;
    if (s_->m.codecs.shard) {
        out.push_back("sharding_indexed");
        for (const auto& c : s_->m.codecs.shard->codecs->bytes_codecs) out.push_back(c.name);
    }
    for (const auto& c : s_->m.codecs.bytes_codecs) out.push_back(c.name);
    return out;
}

CHUNKWISE_ZARR_DECL auto array::decode_chunk(std::span<const unsigned char> stored) const
    -> std::span<const unsigned char> {
    if (s_->m.codecs.shard) fail("decode_chunk: the array is sharded (decode the shard's inner chunks by reading)");
    std::size_t elems = 1;
    for (std::size_t c : s_->m.chunks) elems *= c;
    thread_local std::vector<unsigned char> a, b;
    try {
        const unsigned char* raw =
            detail::decode_bytes(s_->store, s_->m.codecs, stored.data(), stored.size(), elems, s_->m.type, a, b);
        return {raw, elems * s_->m.type.size};
    } catch (const error&) {
        throw;
    } catch (const std::exception& e) {
        fail(std::string("decode_chunk: ") + e.what());
    }
}

}  // namespace chunkwise::zarr
