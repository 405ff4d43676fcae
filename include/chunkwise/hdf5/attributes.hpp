#pragma once
/// \file
/// Attributes of what an HDF5 file holds: `h5::set_attributes` writes them on a dataset, a group or
/// the file itself, `h5::attributes_of` reads them, as `chunkwise::attributes` (the same type
/// Zarr's attributes read into). `h5::dataset::attrs()` reads a dataset's;
/// `write_options::attributes` writes them with a new dataset.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/attributes.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/store.hpp>

#include <filesystem>
#include <string>
#include <system_error>

namespace chunkwise::h5 {

/// Writes `attrs` on the object at `object_path` in `file` (a dataset, a group, or "/" for the file
/// itself), replacing attributes of the same names and keeping the others, as h5py's
/// `obj.attrs[name] = value` does: integers as 64-bit integers, floats as doubles, strings as
/// variable-length UTF-8 (h5py reads them as `int`, `float`, `str`, and lists as numpy arrays).
/// Call it from one process, with the file not open elsewhere in this program (an `h5::dataset`
/// view of it included: HDF5 opens a file once per process, read-only or not).
/// \throws h5::error naming the file, the object and what is wrong: no such file or object, the
///         file not writable (or open in this program), an empty attribute name, a string holding a
///         NUL character; a bad attribute is refused before any is written
CHUNKWISE_HDF5_DECL void set_attributes(const std::filesystem::path& file, const std::string& object_path,
                                        const attributes& attrs);

/// The attributes of the object at `object_path` in `file` (a dataset, a group, or "/"): every
/// integer, float and string attribute, single or a list (1-D).
/// \throws h5::error naming the file, the object and what is wrong: no such file or object, or an
///         attribute chunkwise::attributes cannot hold (naming it: a compound, an array of 2 or
///         more axes, an unsigned value beyond a 64-bit signed integer)
CHUNKWISE_HDF5_DECL attributes attributes_of(const std::filesystem::path& file, const std::string& object_path);

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/attributes.ipp>
#endif
