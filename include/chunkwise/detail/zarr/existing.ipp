// The definitions of chunkwise/detail/zarr/existing.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

inline std::string existing_shape_text(const std::vector<std::size_t>& s) { return json(s).dump(); }

// The codec entry of a v2 .zarray's compressor, or of a v3 codec list (the inner list of a shard), that is neither
// bytes nor a filter: its name and configuration (null where none).
inline json main_codec(const json& metadata, int format) {
    if (format == 2) return metadata.contains("compressor") ? metadata["compressor"] : json();
    json list = metadata.value("codecs", json::array());
    if (!list.empty() && list[0].is_object() && list[0].value("name", "") == "sharding_indexed")
        list = list[0]["configuration"].value("codecs", json::array());
    for (const json& c : list)
        if (c.is_object() && c.value("name", "") != "bytes") return c;
    return json();
}

// The write options that reproduce the codecs of `metadata` (checked afterwards by check_encoding).
inline void codec_options(const json& metadata, int format, write_options& w) {
    const json c = main_codec(metadata, format);
    if (format == 2 && metadata.contains("filters") && metadata["filters"].is_array())
        for (const json& f : metadata["filters"])
            if (f.is_object() && f.value("id", "") == "shuffle") w.shuffle = true;
    if (!c.is_object()) return;
    const std::string name = format == 2 ? c.value("id", "") : c.value("name", "");
    const json config = format == 2 ? c : c.value("configuration", json::object());
    w.codec = name;
    if (name == "blosc") {
        w.codec += ":" + config.value("cname", std::string("lz4"));
        const json s = config.value("shuffle", json());
        w.shuffle = w.shuffle || s == json(1) || s == json("shuffle");
    }
    for (const char* key : {"level", "clevel"})
        if (config.contains(key) && config[key].is_number_integer()) w.level = config[key].get<int>();
}

CHUNKWISE_ZARR_DECL existing_array open_existing(const std::string& store, const std::vector<std::size_t>& shape,
                                                 char kind, std::size_t size, const write_options& o) {
    namespace fs = std::filesystem;
    const std::string verb = mode_name(o.mode);
    const auto fail = [&](const std::string& why) { throw error(store, "", verb + ": " + why); };
    if (!removal_threads().invalid.empty())
        fail("CHUNKWISE_ZARR_REMOVERS='" + removal_threads().invalid + "' is not a count of threads from 0 to 16");
    existing_array e;
    const fs::path dir(store);
    e.metadata_name = path_exists(dir / ".zarray") ? ".zarray" : path_exists(dir / "zarr.json") ? "zarr.json" : "";
    if (e.metadata_name.empty())
        fail("no Zarr array here (write_mode::" + verb + " writes into an existing array: create it first)");
    e.metadata = load_json(store, dir / e.metadata_name);
    if (e.metadata_name == "zarr.json" && e.metadata.value("node_type", "") == "group")
        fail("a Zarr group is here, not an array");
    const meta m = e.metadata_name == ".zarray" ? parse_v2(store, e.metadata) : parse_v3(store, e.metadata);
    if (m.format == 2 && path_exists(dir / ".zattrs")) e.attrs = load_json(store, dir / ".zattrs");
    dtype want;
    want.kind = kind;
    want.size = size;
    if (m.type.kind != kind || m.type.size != size || (size > 1 && m.type.big))
        fail("the array holds " + m.type.name() + (m.type.big && size > 1 ? " (big-endian)" : "") +
             ", the values are " + want.name() + ": write values of the array's type");
    // (0): no rows at all, as write_blocks states a run with no results; they fit any array
    const bool no_rows = shape.size() == 1 && shape[0] == 0;
    if (!no_rows &&
        (shape.size() != m.shape.size() || !std::equal(shape.begin() + 1, shape.end(), m.shape.begin() + 1)))
        fail("the values' shape " + existing_shape_text(shape) + " does not fit the array's " +
             existing_shape_text(m.shape) + ": every axis but the first must be the array's");
    e.shape = e.new_shape = m.shape;
    if (o.mode == write_mode::append) {
        if (o.first_row != 0 && o.first_row != m.shape[0])
            fail("first_row " + std::to_string(o.first_row) + " is not the array's end (" + std::to_string(m.shape[0]) +
                 " rows): append adds rows at the end; update writes rows inside");
        e.first_row = m.shape[0];
        e.new_shape[0] += shape[0];
    } else if (o.first_row > m.shape[0] || shape[0] > m.shape[0] - o.first_row) {
        fail("rows [" + std::to_string(o.first_row) + ", " + std::to_string(o.first_row + shape[0]) +
             ") lie past the array's end (" + std::to_string(m.shape[0]) +
             " rows): update writes within the array; append adds rows");
    } else {
        e.first_row = o.first_row;
    }
    write_options& w = e.options;
    w.format = m.format;
    w.chunk = m.codecs.shard ? m.codecs.shard->inner : m.chunks;
    if (m.codecs.shard) w.shard = m.chunks;
    codec_options(e.metadata, m.format, w);
    if (const std::string why = options_problem(w); !why.empty())
        fail("the array's codecs are not ones chunkwise writes (" + why + ")");
    if (!o.chunk.empty() && o.chunk != w.chunk)
        fail("chunk " + existing_shape_text(o.chunk) + " differs from the array's " + existing_shape_text(w.chunk));
    if (!o.shard.empty() && o.shard != w.shard)
        fail("shard " + existing_shape_text(o.shard) + " differs from the array's " +
             (w.shard.empty() ? std::string("(none)") : existing_shape_text(w.shard)));
    if (o.format == 3 && m.format == 2) fail("format 3 asked for, the array is format 2");
    if (!o.codec.empty() || o.deflate > 0) {
        write_options asked = o;
        asked.format = m.format;
        const auto a = write_codec_of(asked), b = write_codec_of(w);
        const bool variant = o.codec.find(':') != std::string::npos;
        if (!a.problem.empty() || a.main != b.main || (a.level != 0 && a.level != b.level) ||
            (variant && a.option != b.option) || (o.shuffle && !w.shuffle))
            fail("codec " + (o.codec.empty() ? "deflate " + std::to_string(o.deflate) : o.codec) +
                 (o.level != 0 ? " level " + std::to_string(o.level) : "") + (o.shuffle ? " with shuffle" : "") +
                 " differs from the array's " + w.codec + (w.level != 0 ? " level " + std::to_string(w.level) : "") +
                 (w.shuffle ? " with shuffle" : ""));
    }
    if (!o.dimensions.empty()) {
        const json have = m.format == 2 ? e.attrs.value("_ARRAY_DIMENSIONS", json()) : m.dimension_names;
        if (json(o.dimensions) != have)
            fail("dimensions " + shown(json(o.dimensions)) + " differ from the array's " +
                 (have.is_null() ? std::string("(none)") : shown(have)));
    }
    return e;
}

CHUNKWISE_ZARR_DECL void check_encoding(const std::string& store, const existing_array& e, const std::string& generated,
                                        const write_options& o) {
    const json g = json::parse(generated);
    const bool v2 = e.metadata_name == ".zarray";
    static const char* const v2_fields[] = {"chunks", "dtype", "compressor", "filters", "order", "dimension_separator"};
    static const char* const v3_fields[] = {"chunk_grid", "data_type", "codecs", "chunk_key_encoding"};
    for (const char* field : v2 ? std::span<const char* const>(v2_fields) : std::span<const char* const>(v3_fields)) {
        json have = e.metadata.value(field, json());
        if (v2 && std::string(field) == "dimension_separator" && have.is_null()) have = ".";
        if (v2 && std::string(field) == "filters" && have == json::array()) have = json();
        if (have != g.value(field, json()))
            throw error(store, "",
                        std::string(mode_name(o.mode)) + ": the array's " + field + " " + shown(have) +
                            " is not what chunkwise writes (" + shown(g.value(field, json())) +
                            "): chunkwise writes only into arrays encoded as it encodes them");
    }
}

CHUNKWISE_ZARR_DECL state extended_state(const std::string& store, std::size_t rows) {
    state s;
    s.store = store;
    open_metadata(s);
    if (!s.m.shape.empty()) s.m.shape[0] = std::max(s.m.shape[0], rows);
    return s;
}

CHUNKWISE_ZARR_DECL void write_extent(const std::string& store, const existing_array& e) {
    json z = e.metadata;
    z["shape"] = e.new_shape;
    const std::string text = z.dump(4, ' ', true);
    write_file(store, e.metadata_name, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    chunkwise::detail::posix::sync_dir(store);
    if (e.metadata_name != ".zarray") return;  // format 3 has no consolidated metadata of its own
    try {
        consolidate(store, {{".zarray", z}, {".zattrs", e.attrs}});
    } catch (const error& err) {
        throw error(store, "",
                    std::string("append: the rows are written, but the consolidated metadata (.zmetadata) of a group "
                                "above the array was not updated: ") +
                        err.what());
    }
}

}  // namespace chunkwise::zarr::detail
