#pragma once
// Internal: names for messages: of a group's members, of a filter (filters/codec.hpp), a list
// joined by commas.
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/library.hpp>

#include <hdf5.h>

#include <string>
#include <vector>

namespace chunkwise::h5::detail {

inline std::string join(const std::vector<std::string>& parts) {
    std::string s;
    for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
    return s;
}

/// Names in a group, for "what does exist" messages. Call with the lock held.
inline std::vector<std::string> group_members(hid_t file, const std::string& group) {
    std::vector<std::string> names;
    H5Literate_by_name(
        file, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
        [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
            static_cast<std::vector<std::string>*>(data)->push_back(name);
            return 0;
        },
        &names, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    return names;
}

}  // namespace chunkwise::h5::detail
