// The definitions of chunkwise/detail/hdf5/state.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL bool checked_product(const std::vector<std::size_t>& v, std::size_t& out, std::size_t from) {
    std::size_t p = 1;
    for (std::size_t i = from; i < v.size(); ++i) {
        if (__builtin_mul_overflow(p, v[i], &p)) return false;
    }
    out = p;
    return true;
}

CHUNKWISE_HDF5_DECL const probe_file* probed_file_of(hid_t object) {
    handle fid(H5Iget_file_id(object), H5Fclose);
    if (!fid.valid()) return nullptr;
    handle fapl(H5Fget_access_plist(fid.get()), H5Pclose);
    void* vfd = nullptr;
    const probe_file* f = nullptr;
    if (fapl.valid() && H5Pget_driver(fapl.get()) == probe_driver::id() &&
        H5Fget_vfd_handle(fid.get(), fapl.get(), &vfd) >= 0 && vfd != nullptr) {
        // The driver hands out &probe_file::fd.
        f = reinterpret_cast<const probe_file*>(static_cast<const char*>(vfd) - offsetof(probe_file, fd));
    }
    H5Eclear2(H5E_DEFAULT);
    return f;
}

}  // namespace chunkwise::h5::detail
