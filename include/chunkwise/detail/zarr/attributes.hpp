#pragma once
// Zarr attributes (.zattrs in v2, "attributes" in zarr.json in v3) as chunkwise::attributes, both ways, and their
// writing on an existing array or group.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/json_fields.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr/error.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

namespace chunkwise::zarr::detail {

/// `attrs` as a JSON object.
/// \throws zarr::error naming `store` and the attribute: an empty name, or a float JSON cannot hold (NaN, infinity)
CHUNKWISE_ZARR_DECL json attributes_json(const std::string& store, const attributes& attrs);

/// The attributes object `j` (read from `file` of `store`) as chunkwise::attributes.
/// \throws zarr::error naming the attribute where its value is not a number, a string or a list of one of them
CHUNKWISE_ZARR_DECL attributes attributes_from_json(const std::string& store, const std::string& file, const json& j);

/// What the directory `path` holds: a v2 array (".zarray"), a v2 group (".zgroup"), or v3 ("zarr.json").
/// \throws zarr::error naming `path` where it is none of these
CHUNKWISE_ZARR_DECL std::string node_file(const std::filesystem::path& path);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/attributes.ipp>
#endif
