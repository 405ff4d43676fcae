// The definitions of chunkwise/detail/zarr/metadata.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL codec_spec bind_codec(std::string name, json config, int format) {
    namespace cs = chunkwise::detail::codecs;
    codec_spec c{std::move(name), std::move(config), nullptr, {}};
    c.impl = cs::find_zarr_codec(c.name, format);
    if (c.impl != nullptr && c.impl->zarr_params != nullptr && c.config.is_object()) {
        const std::string keys = c.impl->zarr_params;
        for (std::size_t at = 0; at <= keys.size();) {
            const std::size_t end = std::min(keys.find(',', at), keys.size());
            const auto v = c.config.find(keys.substr(at, end - at));
            const bool given = v != c.config.end() && v->is_number_unsigned() && v->get<std::uint64_t>() <= 0xFFFFFFFFu;
            c.params.push_back(given ? static_cast<unsigned>(v->get<std::uint64_t>()) : 0u);
            at = end + 1;
        }
    }
    return c;
}

CHUNKWISE_ZARR_DECL std::vector<std::size_t> sizes(const std::string& store, const json& j, const char* field) {
    if (!j.is_array()) bad(store, std::string("'") + field + "' is not a list of integers");
    std::vector<std::size_t> out;
    for (const json& v : j) {
        if (!v.is_number_unsigned())
            bad(store, std::string("'") + field + "' holds " + shown(v) + ", not an integer >= 0");
        out.push_back(v.get<std::size_t>());
    }
    return out;
}

CHUNKWISE_ZARR_DECL dtype parse_v2_dtype(const std::string& store, const json& j) {
    if (!j.is_string()) bad(store, "dtype " + shown(j) + " is not a numeric type (structured types are not read)");
    const std::string s = j.get<std::string>();
    if (s.size() < 3 || (s[0] != '<' && s[0] != '>' && s[0] != '|') ||
        std::string("iufb").find(s[1]) == std::string::npos)
        bad(store,
            "dtype '" + bounded_text(s) + "' is not one chunkwise reads (integers, unsigned integers, floats, bool)");
    dtype t;
    t.kind = s[1];
    t.big = s[0] == '>';
    const std::string digits = s.substr(2);
    if (digits != "1" && digits != "2" && digits != "4" && digits != "8")
        bad(store, "dtype '" + bounded_text(s) + "' has an item size chunkwise does not read");
    t.size = static_cast<std::size_t>(digits[0] - '0');
    if ((t.kind == 'f' && t.size < 4) || (t.kind == 'b' && t.size != 1))
        bad(store, "dtype '" + bounded_text(s) + "' is not one chunkwise reads (float16 is not)");
    return t;
}

CHUNKWISE_ZARR_DECL dtype parse_v3_dtype(const std::string& store, const json& j) {
    const std::string s = j.is_string() ? j.get<std::string>() : shown(j);
    dtype t;
    if (s == "bool") return dtype{'b', 1, false};
    const auto at = s.find_first_of("0123456789");
    const std::string base = s.substr(0, at);
    const std::string bits = at == std::string::npos ? "" : s.substr(at);
    if (base == "int")
        t.kind = 'i';
    else if (base == "uint")
        t.kind = 'u';
    else if (base == "float")
        t.kind = 'f';
    else
        bad(store, "data_type " + shown(j) + " is not one chunkwise reads (integers, unsigned integers, floats, bool)");
    if (bits != "8" && bits != "16" && bits != "32" && bits != "64")
        bad(store, "data_type " + shown(j) + " is not one chunkwise reads");
    t.size = static_cast<std::size_t>(std::stoi(bits) / 8);
    if (t.kind == 'f' && t.size < 4)
        bad(store, "data_type " + shown(j) + " is not one chunkwise reads (float16 is not)");
    return t;
}

CHUNKWISE_ZARR_DECL std::vector<unsigned char> parse_fill(const std::string& store, const json& j, const dtype& t) {
    const auto refuse = [&] { bad(store, "fill_value " + shown(j) + " is not a value of type " + t.name()); };
    if (j.is_null()) return std::vector<unsigned char>(t.size, 0);
    if (t.kind == 'b') {
        if (!j.is_boolean() && !j.is_number_integer()) refuse();
        return {static_cast<unsigned char>(j.is_boolean() ? j.get<bool>() : j.get<long long>() != 0)};
    }
    if (t.kind == 'f') {
        double v = 0;
        if (j.is_string()) {
            const std::string s = j.get<std::string>();
            if (s == "NaN")
                v = std::numeric_limits<double>::quiet_NaN();
            else if (s == "Infinity")
                v = std::numeric_limits<double>::infinity();
            else if (s == "-Infinity")
                v = -std::numeric_limits<double>::infinity();
            else if (s.size() == 2 + 2 * t.size && s.rfind("0x", 0) == 0) {
                std::uint64_t bits = 0;
                try {
                    bits = std::stoull(s.substr(2), nullptr, 16);
                } catch (const std::exception&) {
                    refuse();
                }
                if (t.size == 4) return bytes_of(static_cast<std::uint32_t>(bits));
                return bytes_of(bits);
            } else
                refuse();
        } else if (j.is_number()) {
            v = j.get<double>();
        } else
            refuse();
        if (t.size == 4) return bytes_of(static_cast<float>(v));
        return bytes_of(v);
    }
    if (!j.is_number_integer()) refuse();
    const bool neg = j.is_number_integer() && !j.is_number_unsigned() && j.get<long long>() < 0;
    if (t.kind == 'u' && neg) refuse();
    const std::uint64_t u = neg ? static_cast<std::uint64_t>(j.get<long long>()) : j.get<std::uint64_t>();
    std::vector<unsigned char> out(t.size);
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out.data(), &u, t.size);
    } else {
        for (std::size_t b = 0; b < t.size; ++b) out[b] = static_cast<unsigned char>(u >> (8 * (t.size - 1 - b)));
    }
    return out;
}

CHUNKWISE_ZARR_DECL std::vector<std::size_t> identity(std::size_t n) {
    std::vector<std::size_t> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = i;
    return p;
}

CHUNKWISE_ZARR_DECL codec_spec v2_codec(const std::string& store, const json& j) {
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string())
        bad(store, "a compressor or filter " + shown(j) + " without an 'id'");
    return bind_codec(j["id"].get<std::string>(), j, 2);
}

CHUNKWISE_ZARR_DECL meta parse_v2(const std::string& store, const json& z) {
    if (!z.is_object()) bad(store, ".zarray is not a JSON object");
    for (const char* f : {"shape", "chunks", "dtype", "order"})
        if (!z.contains(f)) bad(store, std::string(".zarray has no '") + f + "'");
    if (!z.contains("zarr_format") || z["zarr_format"] != 2) bad(store, ".zarray's zarr_format is not 2");
    meta m;
    m.format = 2;
    m.shape = sizes(store, z["shape"], "shape");
    m.chunks = sizes(store, z["chunks"], "chunks");
    m.type = parse_v2_dtype(store, z["dtype"]);
    m.fill = parse_fill(store, z.value("fill_value", json()), m.type);
    const json& order = z["order"];
    if (order != "C" && order != "F") bad(store, "order " + shown(order) + " is neither \"C\" nor \"F\"");
    m.codecs.big = m.type.big;
    m.codecs.perm = identity(m.shape.size());
    if (order == "F") std::reverse(m.codecs.perm.begin(), m.codecs.perm.end());
    if (z.contains("dimension_separator")) {
        const json& s = z["dimension_separator"];
        if (s != "." && s != "/") bad(store, "dimension_separator " + shown(s) + " is neither \".\" nor \"/\"");
        m.separator = s.get<std::string>()[0];
    }
    if (z.contains("filters") && !z["filters"].is_null()) {
        if (!z["filters"].is_array()) bad(store, "'filters' is not a list");
        for (const json& f : z["filters"]) m.codecs.bytes_codecs.push_back(v2_codec(store, f));
    }
    if (z.contains("compressor") && !z["compressor"].is_null())
        m.codecs.bytes_codecs.push_back(v2_codec(store, z["compressor"]));
    return m;
}

CHUNKWISE_ZARR_DECL std::uint64_t inner_chunks(const std::string& store, const std::vector<std::size_t>& extent,
                                               const shard_spec& s) {
    std::uint64_t count = 1;
    for (std::size_t d = 0; d < extent.size(); ++d) {
        if (s.inner[d] == 0 || extent[d] % s.inner[d] != 0)
            bad(store, "the shard shape is not a multiple of the inner chunk shape");
        const std::uint64_t per = extent[d] / s.inner[d];
        if (__builtin_mul_overflow(count, per, &count) || count > most_inner_chunks)
            bad(store, "shards of more than " + std::to_string(most_inner_chunks) +
                           " inner chunks each (an index of more than 1 GiB) are not read");
    }
    return count;
}

CHUNKWISE_ZARR_DECL void check_grid(const std::string& store, const meta& m) {
    if (m.chunks.size() != m.shape.size())
        bad(store, "chunks of rank " + std::to_string(m.chunks.size()) + " for an array of rank " +
                       std::to_string(m.shape.size()));
    for (std::size_t c : m.chunks)
        if (c == 0) bad(store, "a chunk extent of 0");
    std::vector<std::size_t> extent = m.chunks;
    for (const chain* c = &m.codecs; c->shard; c = c->shard->codecs.get()) {
        (void)inner_chunks(store, extent, *c->shard);
        extent = c->shard->inner;
    }
    // A chunk is decoded whole into memory: one of more than 16 GiB is refused, not allocated.
    double bytes = static_cast<double>(m.type.size);
    for (std::size_t c : extent) bytes *= static_cast<double>(c);
    if (bytes > 16.0 * 1024 * 1024 * 1024)
        bad(store, "chunks of " + std::to_string(bytes / (1 << 30)) + " GiB (more than 16 GiB)");
}

CHUNKWISE_ZARR_DECL std::string chunk_key(const meta& m, const std::vector<std::size_t>& at) {
    std::string k = m.v3_default_keys ? "c" : "";
    for (std::size_t d = 0; d < at.size(); ++d) {
        if (d > 0 || m.v3_default_keys) k += m.separator;
        k += std::to_string(at[d]);
    }
    if (k.empty()) k = "0";  // a 0-d array's one chunk
    return k;
}

}  // namespace chunkwise::zarr::detail
