#pragma once
/// \file
/// Attributes of Zarr arrays and groups: `zarr::set_attributes` writes them (.zattrs in format 2,
/// zarr.json's "attributes" in format 3), `zarr::attributes_of` reads them, as
/// `chunkwise::attributes` (the same type HDF5's attributes read into). `zarr::array::attrs()`
/// reads an array's; `write_options::attributes` writes them with a new array.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/attributes.hpp>
#include <chunkwise/detail/zarr/groups.hpp>
#include <chunkwise/detail/zarr/open.hpp>
#include <chunkwise/detail/zarr/write.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr/array.hpp>
#include <chunkwise/zarr/error.hpp>

#include <filesystem>
#include <string>
#include <system_error>

namespace chunkwise::zarr {

/// Writes `attrs` on the Zarr array or group in the directory `path` (format 2 or 3), replacing
/// attributes of the same names and keeping the others, as zarr-python's `attrs.update` does. The
/// file is replaced whole (written aside, then renamed), and the consolidated `.zmetadata` of the
/// node and of the format-2 groups above it is updated too. Call it from one process at a time: two writers of the same
/// array's attributes at once keep one's.
/// \throws zarr::error naming the store and what is wrong: no array or group there, an empty
///         attribute name, a float JSON cannot hold (NaN, infinity), metadata that is not a JSON
///         object; a bad attribute is refused before anything is written
CHUNKWISE_ZARR_DECL void set_attributes(const std::filesystem::path& path, const attributes& attrs);

/// The attributes of the Zarr array or group in the directory `path` (an array known only from its
/// group's `.zmetadata` included).
/// \throws zarr::error naming the store and what is wrong: no array or group there, or an attribute
///         chunkwise::attributes cannot hold (naming it: a boolean, null, an object, a mixed list)
CHUNKWISE_ZARR_DECL attributes attributes_of(const std::filesystem::path& path);

}  // namespace chunkwise::zarr

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/zarr/attributes.ipp>
#endif
