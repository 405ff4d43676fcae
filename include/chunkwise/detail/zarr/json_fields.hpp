#pragma once
// Internal: Zarr metadata's JSON read safely: values quoted in messages cut to 200 characters
// (`shown`), and every member read through one helper that checks its JSON type, so that a field of
// the wrong type is a zarr::error naming the store, the file and the field, never the JSON
// library's type_error.
#include <chunkwise/zarr/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace chunkwise::zarr::detail {

using json = nlohmann::json;

[[noreturn]] inline void bad(const std::string& store, const std::string& what) { throw error(store, "", what); }

/// The most characters of a value that a message quotes.
inline constexpr std::size_t quoted_most = 200;

/// `text` for a message: itself, or its first characters and "…" where longer than quoted_most.
inline std::string bounded_text(const std::string& text) {
    if (text.size() <= quoted_most) return text;
    return text.substr(0, quoted_most) + "…";
}

/// Appends `j` as JSON text to `out`, stopping once out holds more than `most` characters.
inline void append_shown(std::string& out, const json& j, std::size_t most) {
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

/// `j` as JSON text for a message, at most about quoted_most characters ("…" where cut).
inline std::string shown(const json& j) {
    std::string out;
    append_shown(out, j, quoted_most);
    return bounded_text(out);
}

/// The member `name` of `j` (a JSON object, described in messages as `where`: "zarr.json",
/// "zarr.json's chunk_grid"), or null where it has none. \throws zarr::error where j is no object
inline const json* member(const std::string& store, const std::string& where, const json& j, const char* name) {
    if (!j.is_object()) bad(store, where + " is " + shown(j) + ", not a JSON object");
    const auto it = j.find(name);
    return it == j.end() ? nullptr : &*it;
}

/// The string member `name` of `j`; `fallback` where absent (null: required).
/// \throws zarr::error naming the field where it is missing or not a string
inline std::string text_member(const std::string& store, const std::string& where, const json& j, const char* name,
                               const char* fallback = nullptr) {
    const json* v = member(store, where, j, name);
    if (v == nullptr) {
        if (fallback != nullptr) return fallback;
        bad(store, where + " has no '" + name + "'");
    }
    if (!v->is_string()) bad(store, where + "'s '" + name + "' is " + shown(*v) + ", not a string");
    return v->get<std::string>();
}

/// The object member `name` of `j`; an empty object where absent and not `required`.
/// \throws zarr::error naming the field where it is missing (and required) or not an object
inline const json& object_member(const std::string& store, const std::string& where, const json& j, const char* name,
                                 bool required = false) {
    static const json empty = json::object();
    const json* v = member(store, where, j, name);
    if (v == nullptr) {
        if (!required) return empty;
        bad(store, where + " has no '" + name + "'");
    }
    if (!v->is_object()) bad(store, where + "'s '" + name + "' is " + shown(*v) + ", not a JSON object");
    return *v;
}

/// The member `name` of `j`, of any JSON type; null JSON where absent and not `required`.
inline const json& any_member(const std::string& store, const std::string& where, const json& j, const char* name,
                              bool required = false) {
    static const json none;
    const json* v = member(store, where, j, name);
    if (v == nullptr && required) bad(store, where + " has no '" + name + "'");
    return v != nullptr ? *v : none;
}

}  // namespace chunkwise::zarr::detail
