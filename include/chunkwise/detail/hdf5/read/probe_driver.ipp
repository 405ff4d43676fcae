// The definitions of chunkwise/detail/hdf5/read/probe_driver.hpp's functions that are not templates: included at the
// end of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL handle probe_fapl() {
    const hid_t driver = probe_driver::id();
    if (driver < 0) return {};
    handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl.valid() || H5Pset_driver(fapl.get(), driver, nullptr) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return {};
    }
    return fapl;
}

}  // namespace chunkwise::h5::detail
