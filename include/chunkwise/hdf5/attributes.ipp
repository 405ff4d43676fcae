// The definitions of chunkwise/hdf5/attributes.hpp's functions: included at the end of that header (header-only, the
// default), or compiled once into the hdf5 library (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md,
// "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {
namespace detail {

/// Opens the object at `object_path` in `file` (`writable`: read-write) and passes it to `use`; lock held.
template <class Use>
auto with_object(const std::filesystem::path& file, const std::string& object_path, bool writable, Use&& use) {
    const std::string name = file.string();
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) throw error(name, object_path, "no such file");
    library_lock lock;
    handle f(H5Fopen(name.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!f.valid()) {
        throw error(name, object_path,
                    std::string(writable ? "cannot be opened for writing (read-only, or open in this program: "
                                           "close its h5::dataset views first): "
                                         : "cannot be opened: ") +
                        last_error());
    }
    const std::string at = object_path.empty() ? "/" : object_path;
    if (at != "/" && H5Lexists(f.get(), at.c_str(), H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        throw error(name, object_path, "no such dataset or group");
    }
    handle o(H5Oopen(f.get(), at.c_str(), H5P_DEFAULT), H5Oclose);
    if (!o.valid()) throw error(name, object_path, "cannot be opened: " + last_error());
    return use(o.get(), name, f);
}

}  // namespace detail

CHUNKWISE_HDF5_DECL void set_attributes(const std::filesystem::path& file, const std::string& object_path,
                                        const attributes& attrs) {
    if (const std::string why = detail::attributes_problem(attrs); !why.empty())
        throw error(file.string(), object_path, why);
    detail::with_object(file, object_path, true, [&](hid_t o, const std::string& name, detail::handle& f) {
        detail::write_attributes(o, attrs, name, object_path);
        if (H5Fflush(o, H5F_SCOPE_LOCAL) < 0 || !f.close())
            throw error(name, object_path, "the attributes could not be saved (disk full?): " + detail::last_error());
    });
}

CHUNKWISE_HDF5_DECL attributes attributes_of(const std::filesystem::path& file, const std::string& object_path) {
    return detail::with_object(file, object_path, false, [&](hid_t o, const std::string& name, detail::handle&) {
        return detail::read_attributes(o, name, object_path);
    });
}

}  // namespace chunkwise::h5
