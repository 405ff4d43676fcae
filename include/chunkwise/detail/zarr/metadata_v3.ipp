// The definitions of chunkwise/detail/zarr/metadata_v3.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL std::vector<std::size_t> transpose_order(const std::string& store, const json& conf,
                                                             std::size_t rank) {
    const std::vector<std::size_t> order =
        sizes(store, any_member(store, "transpose's configuration", conf, "order", true), "order");
    std::vector<bool> used(rank, false);
    if (order.size() != rank) bad(store, "transpose order " + shown(conf) + " is not a permutation of the axes");
    for (std::size_t o : order) {
        if (o >= rank || used[o]) bad(store, "transpose order " + shown(conf) + " is not a permutation of the axes");
        used[o] = true;
    }
    return order;
}

CHUNKWISE_ZARR_DECL std::shared_ptr<shard_spec> parse_shard(const std::string& store, const json& conf,
                                                            std::size_t rank, std::size_t item, std::size_t level) {
    if (level + 1 >= most_shard_levels)
        bad(store, "sharding nested " + std::to_string(most_shard_levels) + " levels deep or more is not read");
    const std::string where = "sharding_indexed's configuration";
    auto s = std::make_shared<shard_spec>();
    s->inner = sizes(store, any_member(store, where, conf, "chunk_shape", true), "chunk_shape");
    if (s->inner.size() != rank) bad(store, "sharding chunk_shape has another rank than the array");
    s->codecs = std::make_shared<chain>(
        parse_v3_codecs(store, any_member(store, where, conf, "codecs", true), rank, item, level + 1));
    s->index = std::make_shared<chain>(
        parse_v3_codecs(store, any_member(store, where, conf, "index_codecs", true), 2, 8, level + 1));
    if (s->index->shard) bad(store, "a shard index through sharding_indexed is not read");
    const std::string at = text_member(store, where, conf, "index_location", "end");
    if (at != "start" && at != "end") bad(store, "sharding index_location '" + bounded_text(at) + "'");
    s->index_at_start = at == "start";
    return s;
}

CHUNKWISE_ZARR_DECL chain parse_v3_codecs(const std::string& store, const json& list, std::size_t rank,
                                          std::size_t item, std::size_t level) {
    if (!list.is_array() || list.empty()) bad(store, "'codecs' is not a list of codecs");
    chain c;
    c.format = 3;
    c.perm = identity(rank);
    bool seen_bytes = false;
    for (const json& j : list) {
        const std::string name = text_member(store, "a codec", j, "name");
        const json& conf = object_member(store, "codec '" + name + "'", j, "configuration");
        if (name == "transpose") {
            if (seen_bytes) bad(store, "transpose after the array-to-bytes codec");
            const std::vector<std::size_t> order = transpose_order(store, conf, rank);
            std::vector<std::size_t> p(rank);
            for (std::size_t k = 0; k < rank; ++k) p[k] = c.perm[order[k]];
            c.perm = p;
        } else if (name == "bytes" || name == "sharding_indexed") {
            if (seen_bytes) bad(store, "two array-to-bytes codecs");
            seen_bytes = true;
            if (name == "bytes") {
                const std::string endian = text_member(store, "codec 'bytes'", conf, "endian", "little");
                if (endian != "little" && endian != "big")
                    bad(store, "bytes codec endian '" + bounded_text(endian) + "'");
                c.big = endian == "big" && item > 1;
            } else {
                c.shard = parse_shard(store, conf, rank, item, level);
            }
        } else {
            if (!seen_bytes) bad(store, "codec '" + name + "' before the array-to-bytes codec (bytes)");
            c.bytes_codecs.push_back(bind_codec(name, conf, 3));
        }
    }
    if (!seen_bytes) bad(store, "no array-to-bytes codec (bytes or sharding_indexed) in 'codecs'");
    return c;
}

CHUNKWISE_ZARR_DECL void to_array_axes(chain& c, const std::vector<std::size_t>& to_array) {
    std::vector<std::size_t> full(c.perm.size());
    for (std::size_t k = 0; k < full.size(); ++k) full[k] = to_array[c.perm[k]];
    c.perm = full;
    if (!c.shard) return;
    shard_spec& s = *c.shard;
    s.index_axes = full;
    std::vector<std::size_t> inner(s.inner.size());
    for (std::size_t k = 0; k < full.size(); ++k) inner[full[k]] = s.inner[k];
    s.inner = inner;
    to_array_axes(*s.codecs, full);
}

CHUNKWISE_ZARR_DECL meta parse_v3(const std::string& store, const json& z) {
    if (!z.is_object()) bad(store, "zarr.json is not a JSON object");
    if (!z.contains("zarr_format") || z["zarr_format"] != 3) bad(store, "zarr.json's zarr_format is not 3");
    const std::string node = text_member(store, "zarr.json", z, "node_type", "");
    if (node != "array")
        bad(store, "zarr.json describes a " + (node.empty() ? "node of no type" : node) + ", not an array");
    meta m;
    m.format = 3;
    m.shape = sizes(store, any_member(store, "zarr.json", z, "shape", true), "shape");
    m.type = parse_v3_dtype(store, any_member(store, "zarr.json", z, "data_type", true));
    const json& grid = object_member(store, "zarr.json", z, "chunk_grid", true);
    if (text_member(store, "zarr.json's chunk_grid", grid, "name") != "regular")
        bad(store, "chunk_grid " + shown(grid) + " is not a regular grid");
    const json& grid_conf = object_member(store, "zarr.json's chunk_grid", grid, "configuration", true);
    m.chunks =
        sizes(store, any_member(store, "chunk_grid's configuration", grid_conf, "chunk_shape", true), "chunk_shape");
    m.fill = parse_fill(store, any_member(store, "zarr.json", z, "fill_value"), m.type);
    const json default_keys = {{"name", "default"}};
    const json& keys = member(store, "zarr.json", z, "chunk_key_encoding") != nullptr
                           ? object_member(store, "zarr.json", z, "chunk_key_encoding")
                           : default_keys;
    const std::string encoding = text_member(store, "zarr.json's chunk_key_encoding", keys, "name");
    if (encoding != "default" && encoding != "v2") bad(store, "chunk_key_encoding '" + bounded_text(encoding) + "'");
    m.v3_default_keys = encoding == "default";
    const json& key_conf = object_member(store, "zarr.json's chunk_key_encoding", keys, "configuration");
    const std::string sep =
        text_member(store, "chunk_key_encoding's configuration", key_conf, "separator", m.v3_default_keys ? "/" : ".");
    if (sep != "." && sep != "/") bad(store, "chunk key separator '" + bounded_text(sep) + "'");
    m.separator = sep[0];
    const std::string file = "zarr.json";
    const json& transformers = any_member(store, file, z, "storage_transformers");
    if (!transformers.is_null() && (!transformers.is_array() || !transformers.empty()))
        bad(store, "storage transformers are not read (storage_transformers " + shown(transformers) + ")");
    m.codecs = parse_v3_codecs(store, any_member(store, "zarr.json", z, "codecs", true), m.shape.size(), m.type.size);
    to_array_axes(m.codecs, identity(m.shape.size()));
    m.type.big = innermost(m.codecs).big;
    if (z.contains("attributes")) m.attributes = z["attributes"];
    if (const json* names = member(store, file, z, "dimension_names"); names != nullptr && !names->is_null()) {
        bool fits = names->is_array() && names->size() == m.shape.size();
        for (std::size_t d = 0; fits && d < names->size(); ++d) fits = (*names)[d].is_string() || (*names)[d].is_null();
        if (!fits)
            bad(store, "dimension_names " + shown(*names) + " is not a list of " + std::to_string(m.shape.size()) +
                           " names (strings or null)");
        m.dimension_names = *names;
    }
    return m;
}

}  // namespace chunkwise::zarr::detail
