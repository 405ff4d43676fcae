// The definitions of chunkwise/detail/hdf5/read/select.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::string selection_problem(const std::vector<std::size_t>& dims, std::size_t axis,
                                                  const std::vector<std::size_t>& idx, const char* what) {
    const std::size_t n = dims.size();
    if (axis == 0 || axis >= n) {
        return "indices on axis " + std::to_string(axis) + ": the " + what + " has rank " + std::to_string(n) +
               " (shape " + shape_text(dims) + "); indices select on axes 1 to " + std::to_string(n - 1) +
               " (axis 0 holds the rows)";
    }
    for (std::size_t j = 0; j < idx.size(); ++j) {
        if (idx[j] >= dims[axis]) {
            return "index " + std::to_string(idx[j]) + " (position " + std::to_string(j) +
                   " of the indices) is outside axis " + std::to_string(axis) + " of extent " +
                   std::to_string(dims[axis]);
        }
    }
    return {};
}

}  // namespace chunkwise::h5::detail
