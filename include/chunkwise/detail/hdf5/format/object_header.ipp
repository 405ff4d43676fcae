// The definitions of chunkwise/detail/hdf5/format/object_header.hpp's functions that are not templates: included at the
// end of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::uint64_t le(const unsigned char* p, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
}

CHUNKWISE_HDF5_DECL std::string layout_defect(const unsigned char* m, std::size_t size, const header_reader& r) {
    if (size < 2) return {};
    const unsigned version = m[0];
    auto dims_ok = [](const unsigned char* p, std::size_t count, std::size_t width, std::size_t room) -> std::string {
        if (count * width > room) return {};  // cannot tell: leave it to HDF5
        for (std::size_t i = 0; i < count; ++i) {
            if (le(p + i * width, width) == 0) return "a chunk dimension of 0";
        }
        return {};
    };
    if (version == 1 || version == 2) {
        if (size < 8) return {};
        const unsigned rank = m[1], cls = m[2];
        if (cls != 2) return {};
        if (rank < 2 || rank > 33) return "a chunked layout of dimensionality " + std::to_string(rank);
        const std::size_t at = 8 + r.addr_size();
        return at <= size ? dims_ok(m + at, rank, 4, size - at) : std::string();
    }
    if (version == 3) {
        if (m[1] != 2 || size < 3) return {};
        const unsigned rank = m[2];
        if (rank < 2 || rank > 33) return "a chunked layout of dimensionality " + std::to_string(rank);
        const std::size_t at = 3 + r.addr_size();
        return at <= size ? dims_ok(m + at, rank, 4, size - at) : std::string();
    }
    if (version == 4) {
        if (m[1] != 2 || size < 5) return {};
        const unsigned rank = m[3], width = m[4];
        if (rank < 2 || rank > 33) return "a chunked layout of dimensionality " + std::to_string(rank);
        if (width < 1 || width > 8) return "chunk dimensions encoded in " + std::to_string(width) + " bytes";
        return dims_ok(m + 5, rank, width, size - 5);
    }
    return {};
}

CHUNKWISE_HDF5_DECL std::vector<unsigned char> layout_message(const header_reader& r, std::uint64_t addr) {
    std::vector<unsigned char> out;
    for_each_message(r, addr, [&](unsigned type, const unsigned char* body, std::size_t size) {
        if (type != 0x0008) return false;
        out.assign(body, body + size);
        return true;
    });
    return out;
}

CHUNKWISE_HDF5_DECL bool object_address(hid_t file, const std::string& path, haddr_t& addr, H5O_type_t& type,
                                        unsigned long& fileno) {
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t info{};
    const bool ok = H5Oget_info_by_name3(file, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
                    H5VLnative_token_to_addr(file, info.token, &addr) >= 0;
#else
    H5O_info_t info{};
    const bool ok = H5Oget_info_by_name2(file, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0;
    addr = info.addr;
#endif
    H5Eclear2(H5E_DEFAULT);
    type = info.type;
    fileno = info.fileno;
    return ok;
}

CHUNKWISE_HDF5_DECL std::string dataset_layout_defect(hid_t file, const std::string& path, int fd) {
    haddr_t addr = HADDR_UNDEF, root_addr = HADDR_UNDEF;
    H5O_type_t type = H5O_TYPE_UNKNOWN, root_type = H5O_TYPE_UNKNOWN;
    unsigned long fileno = 0, root_fileno = 0;
    if (!object_address(file, path, addr, type, fileno) ||
        !object_address(file, "/", root_addr, root_type, root_fileno)) {
        return {};
    }
    // Only objects in this file (an external link leads elsewhere), and only datasets.
    if (type != H5O_TYPE_DATASET || addr == HADDR_UNDEF || fileno != root_fileno) return {};
    handle fcpl(H5Fget_create_plist(file), H5Pclose);
    std::size_t sizeof_addr = 0, sizeof_size = 0;
    hsize_t userblock = 0;
    if (!fcpl.valid() || H5Pget_sizes(fcpl.get(), &sizeof_addr, &sizeof_size) < 0 ||
        H5Pget_userblock(fcpl.get(), &userblock) < 0 || sizeof_addr < 2 || sizeof_addr > 8 || sizeof_size < 2 ||
        sizeof_size > 8) {
        H5Eclear2(H5E_DEFAULT);
        return {};
    }
    const header_reader r(fd, userblock, static_cast<unsigned>(sizeof_addr), static_cast<unsigned>(sizeof_size));
    return header_layout_defect(r, addr);
}

}  // namespace chunkwise::h5::detail
