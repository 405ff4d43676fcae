#pragma once
// Internal: names for messages: of a group's members, of a filter (filters/codec.hpp), a list
// joined by commas.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/library.hpp>

#include <hdf5.h>

#include <string>
#include <vector>

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::string join(const std::vector<std::string>& parts);

/// Names in a group, for "what does exist" messages. Call with the lock held.
CHUNKWISE_HDF5_DECL std::vector<std::string> group_members(hid_t file, const std::string& group);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/names.ipp>
#endif
