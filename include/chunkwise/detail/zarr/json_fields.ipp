// The definitions of chunkwise/detail/zarr/json_fields.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL void append_shown(std::string& out, const json& j, std::size_t most) {
    if (out.size() > most) return;
    if (j.is_array() || j.is_object()) {
        out += j.is_array() ? '[' : '{';
        bool first = true;
        for (auto it = j.begin(); it != j.end() && out.size() <= most; ++it) {
            if (!first) out += ", ";
            first = false;
            if (j.is_object()) out += json(it.key()).dump() + ": ";
            append_shown(out, it.value(), most);
        }
        if (out.size() <= most) out += j.is_array() ? ']' : '}';
    } else if (j.is_string()) {
        const std::string& v = j.get_ref<const std::string&>();
        out += json(v.size() > most ? v.substr(0, most) : v).dump();
    } else {
        out += j.dump();
    }
}

CHUNKWISE_ZARR_DECL std::string shown(const json& j) {
    std::string out;
    append_shown(out, j, quoted_most);
    return bounded_text(out);
}

CHUNKWISE_ZARR_DECL const json* member(const std::string& store, const std::string& where, const json& j,
                                       const char* name) {
    if (!j.is_object()) bad(store, where + " is " + shown(j) + ", not a JSON object");
    const auto it = j.find(name);
    return it == j.end() ? nullptr : &*it;
}

CHUNKWISE_ZARR_DECL std::string text_member(const std::string& store, const std::string& where, const json& j,
                                            const char* name, const char* fallback) {
    const json* v = member(store, where, j, name);
    if (v == nullptr) {
        if (fallback != nullptr) return fallback;
        bad(store, where + " has no '" + name + "'");
    }
    if (!v->is_string()) bad(store, where + "'s '" + name + "' is " + shown(*v) + ", not a string");
    return v->get<std::string>();
}

CHUNKWISE_ZARR_DECL const json& object_member(const std::string& store, const std::string& where, const json& j,
                                              const char* name, bool required) {
    static const json empty = json::object();
    const json* v = member(store, where, j, name);
    if (v == nullptr) {
        if (!required) return empty;
        bad(store, where + " has no '" + name + "'");
    }
    if (!v->is_object()) bad(store, where + "'s '" + name + "' is " + shown(*v) + ", not a JSON object");
    return *v;
}

CHUNKWISE_ZARR_DECL const json& any_member(const std::string& store, const std::string& where, const json& j,
                                           const char* name, bool required) {
    static const json none;
    const json* v = member(store, where, j, name);
    if (v == nullptr && required) bad(store, where + " has no '" + name + "'");
    return v != nullptr ? *v : none;
}

}  // namespace chunkwise::zarr::detail
