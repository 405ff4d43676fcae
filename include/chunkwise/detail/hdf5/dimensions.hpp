#pragma once
// Dimension names of HDF5 datasets in netCDF-4's convention (HDF5 dimension scales), so that netCDF readers and
// xarray's h5netcdf engine see them: each name is a dimension scale dataset beside the dataset (a coordinate
// variable written before, or an empty one marked "not a netCDF variable"), attached through the DIMENSION_LIST and
// REFERENCE_LIST attributes. Written with HDF5's core API (object references), as the HDF5 high-level library's
// H5DS functions write them: that library is not part of every HDF5 install chunkwise builds against.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/attributes.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/hdf5/error.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace chunkwise::h5::detail {

/// Why `names` cannot name the axes of a dataset of `shape` written at `path` of `file` ("" if they can): a count
/// or name dimensions_problem refuses, a name taken by an object that is no dimension scale, a scale of another
/// length (but for one that is no netCDF variable and only the dataset being replaced at `path` uses: it is made
/// again). Checked before anything in the file changes. Library lock held.
CHUNKWISE_HDF5_DECL std::string dimensions_conflict(hid_t file, const std::string& path,
                                                    const std::vector<std::string>& names,
                                                    const std::vector<std::size_t>& shape);

/// Names the axes of the open dataset `dset` at `path` of `file` (`shape` its extent): attaches to axis d the
/// dimension scale `names[d]` in the dataset's group, made where missing. A 1-D dataset named as its one dimension
/// becomes that dimension's scale itself (a coordinate variable). Where `unlimited_first` (a growable dataset), a
/// scale made for axis 0 is unlimited, as netCDF-4's unlimited dimensions are. Call with the library lock held.
/// \throws h5::error naming the dimension where its name is taken by an object that is not a dimension scale, or
///         its scale has another length than the axis (an unlimited scale takes any)
CHUNKWISE_HDF5_DECL void attach_dimensions(hid_t file, hid_t dset, const std::string& file_name,
                                           const std::string& path, const std::vector<std::string>& names,
                                           const std::vector<std::size_t>& shape, bool unlimited_first = false);

/// Before the dataset at `path` is removed: takes it off the scales its axes are attached to, and removes the scales
/// no dataset uses any more that are not netCDF variables. Best effort (never throws). Library lock held.
CHUNKWISE_HDF5_DECL void detach_dimensions(hid_t file, const std::string& path) noexcept;

/// The dimension name of each axis of `dset` (the last part of each attached scale's path; "" for an axis with
/// none), empty where no axis has one. Library lock held.
/// \throws h5::error naming `file` and `path` where the dimension list cannot be read
CHUNKWISE_HDF5_DECL std::vector<std::string> read_dimensions(hid_t dset, const std::string& file,
                                                             const std::string& path);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/dimensions.ipp>
#endif
