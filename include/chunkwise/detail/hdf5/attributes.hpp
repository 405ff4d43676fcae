#pragma once
// Attributes of HDF5 objects (a dataset, a group, the file's root) as chunkwise::attributes: written with HDF5's own
// types (64-bit integers, doubles, variable-length UTF-8 strings; scalars or 1-D), read from any integer, float or
// string attribute of at most one axis.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/store.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace chunkwise::h5::detail {

/// Why `attrs` cannot be written ("" if they can): an empty name, a string holding a NUL character.
CHUNKWISE_HDF5_DECL std::string attributes_problem(const attributes& attrs);

/// Writes `attrs` on `object` (an open dataset, group or file), replacing attributes of the same names and keeping
/// the others. Call with the library lock held.
/// \throws h5::error naming `file`, `path` and the attribute that could not be written
CHUNKWISE_HDF5_DECL void write_attributes(hid_t object, const attributes& attrs, const std::string& file,
                                          const std::string& path);

/// Every attribute of `object` but those of the dimension scales convention (DIMENSION_LIST, REFERENCE_LIST,
/// netCDF-4's _Netcdf4Dimid and _Netcdf4Coordinates, and CLASS and NAME on a dimension scale), which dimensions()
/// reads. Call with the library lock held.
/// \throws h5::error naming `file`, `path` and the attribute, where one is not an integer, float or string of at
///         most one axis (or cannot be read)
CHUNKWISE_HDF5_DECL attributes read_attributes(hid_t object, const std::string& file, const std::string& path);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/attributes.ipp>
#endif
