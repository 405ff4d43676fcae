#pragma once
/// \file
/// Zarr groups: `zarr::create_group` makes one (format 2: `.zgroup` with consolidated `.zmetadata`;
/// format 3: zarr.json of node type "group"), with attributes. An array or group written in a
/// group's directory is its member; the `.zmetadata` of the format-2 groups above it is kept
/// current as it is written, so that readers of consolidated metadata (zarr-python's
/// `open_consolidated`, xarray's `open_zarr`) see it.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/attributes.hpp>
#include <chunkwise/detail/zarr/groups.hpp>
#include <chunkwise/detail/zarr/write.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr/attributes.hpp>
#include <chunkwise/zarr/error.hpp>

#include <filesystem>
#include <string>

namespace chunkwise::zarr {

/// Makes a Zarr group in the directory `path` (created where missing), with attributes `attrs`, in
/// Zarr format `format` (2 or 3). A group of that format there already is kept, its attributes
/// set as zarr::set_attributes sets them. Format 2 writes `.zgroup`, `.zattrs` where there are
/// attributes, and `.zmetadata` (consolidated metadata, which chunkwise keeps current as arrays
/// and groups are written in the group); a group made inside another gets an entry in the
/// consolidated metadata of the groups above it.
/// \throws zarr::error naming the store and what is wrong: a format other than 2 or 3, an array
///         there ("not overwritten"), a group of the other format, files that are not Zarr, a
///         directory above it that is a Zarr array, a bad attribute
CHUNKWISE_ZARR_DECL void create_group(const std::filesystem::path& path, const attributes& attrs = {}, int format = 2);

}  // namespace chunkwise::zarr

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/zarr/group.ipp>
#endif
