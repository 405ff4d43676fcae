#pragma once
// Internal: Zarr metadata's JSON read safely: values quoted in messages cut to 200 characters
// (`shown`), and every member read through one helper that checks its JSON type, so that a field of
// the wrong type is a zarr::error naming the store, the file and the field, never the JSON
// library's type_error.
#include <chunkwise/detail/core/compiled.hpp>
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
CHUNKWISE_ZARR_DECL void append_shown(std::string& out, const json& j, std::size_t most);

/// `j` as JSON text for a message, at most about quoted_most characters ("…" where cut).
CHUNKWISE_ZARR_DECL std::string shown(const json& j);

/// The member `name` of `j` (a JSON object, described in messages as `where`: "zarr.json",
/// "zarr.json's chunk_grid"), or null where it has none. \throws zarr::error where j is no object
CHUNKWISE_ZARR_DECL const json* member(const std::string& store, const std::string& where, const json& j,
                                       const char* name);

/// The string member `name` of `j`; `fallback` where absent (null: required).
/// \throws zarr::error naming the field where it is missing or not a string
CHUNKWISE_ZARR_DECL std::string text_member(const std::string& store, const std::string& where, const json& j,
                                            const char* name, const char* fallback = nullptr);

/// These return a reference into `j` (or to a static), never into `store` or `where`: GCC 14 and later are told so,
/// lest -Wdangling-reference warn where `where` is a temporary.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 14
#define CHUNKWISE_ZARR_INTO_J [[gnu::no_dangling]]
#else
#define CHUNKWISE_ZARR_INTO_J
#endif

/// The object member `name` of `j`; an empty object where absent and not `required`.
/// \throws zarr::error naming the field where it is missing (and required) or not an object
CHUNKWISE_ZARR_INTO_J CHUNKWISE_ZARR_DECL const json& object_member(const std::string& store, const std::string& where,
                                                                    const json& j, const char* name,
                                                                    bool required = false);

/// The member `name` of `j`, of any JSON type; null JSON where absent and not `required`.
CHUNKWISE_ZARR_INTO_J CHUNKWISE_ZARR_DECL const json& any_member(const std::string& store, const std::string& where,
                                                                 const json& j, const char* name,
                                                                 bool required = false);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/json_fields.ipp>
#endif
