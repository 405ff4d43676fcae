// The definitions of chunkwise/detail/hdf5/names.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::string join(const std::vector<std::string>& parts) {
    std::string s;
    for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
    return s;
}

CHUNKWISE_HDF5_DECL std::vector<std::string> group_members(hid_t file, const std::string& group) {
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
