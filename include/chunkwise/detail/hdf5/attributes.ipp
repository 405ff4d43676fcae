// The definitions of chunkwise/detail/hdf5/attributes.hpp's functions: included at the end of that header
// (header-only, the default), or compiled once into the hdf5 library (CHUNKWISE_HDF5_SEPARATE_COMPILATION;
// docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::string attributes_problem(const attributes& attrs) {
    for (const auto& [name, value] : attrs) {
        if (name.empty()) return "an attribute with an empty name";
        const auto holds_nul = [](const std::string& s) { return s.find('\0') != std::string::npos; };
        bool nul = false;
        if (const auto* s = std::get_if<std::string>(&value)) nul = holds_nul(*s);
        if (const auto* v = std::get_if<std::vector<std::string>>(&value)) {
            for (const std::string& s : *v) nul = nul || holds_nul(s);
        }
        if (nul) return "attribute '" + name + "': a string holding a NUL character (HDF5 strings end at the first)";
    }
    return {};
}

namespace attribute_io {

// A variable-length UTF-8 string type (what h5py writes for str and reads back as str).
inline handle utf8_string_type() {
    handle t(H5Tcopy(H5T_C_S1), H5Tclose);
    if (t.valid() && (H5Tset_size(t.get(), H5T_VARIABLE) < 0 || H5Tset_cset(t.get(), H5T_CSET_UTF8) < 0)) t.reset();
    return t;
}

// Creates attribute `name` of `count` values (scalar where `scalar`) of `file_type`, written from `data` as
// `mem_type`; false where HDF5 refused.
inline bool put_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t mem_type, bool scalar,
                          std::size_t count, const void* data) {
    const hsize_t n = count;
    handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
    if (!space.valid()) return false;
    handle a(H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.valid()) return false;
    if (count > 0 && H5Awrite(a.get(), mem_type, data) < 0) return false;
    return a.close();
}

inline bool put_value(hid_t object, const std::string& name, const attribute& value) {
    return std::visit(
        [&](const auto& v) -> bool {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::int64_t>) {
                return put_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, true, 1, &v);
            } else if constexpr (std::is_same_v<V, double>) {
                return put_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, true, 1, &v);
            } else if constexpr (std::is_same_v<V, std::vector<std::int64_t>>) {
                return put_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, false, v.size(), v.data());
            } else if constexpr (std::is_same_v<V, std::vector<double>>) {
                return put_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, false, v.size(), v.data());
            } else {
                const handle t = utf8_string_type();
                if (!t.valid()) return false;
                if constexpr (std::is_same_v<V, std::string>) {
                    const char* p = v.c_str();
                    return put_attribute(object, name, t.get(), t.get(), true, 1, &p);
                } else {
                    std::vector<const char*> p;
                    for (const std::string& s : v) p.push_back(s.c_str());
                    return put_attribute(object, name, t.get(), t.get(), false, p.size(), p.data());
                }
            }
        },
        value);
}

}  // namespace attribute_io

CHUNKWISE_HDF5_DECL void write_attributes(hid_t object, const attributes& attrs, const std::string& file,
                                          const std::string& path) {
    if (const std::string why = attributes_problem(attrs); !why.empty()) throw error(file, path, why);
    for (const auto& [name, value] : attrs) {
        const htri_t exists = H5Aexists(object, name.c_str());
        if (exists > 0 && H5Adelete(object, name.c_str()) < 0)
            throw error(file, path, "attribute '" + name + "': the old value cannot be removed: " + last_error());
        if (exists < 0 || !attribute_io::put_value(object, name, value))
            throw error(file, path, "attribute '" + name + "' cannot be written: " + last_error());
    }
}

namespace attribute_io {

inline herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* names) {
    static_cast<std::vector<std::string>*>(names)->emplace_back(name);
    return 0;
}

// The strings of a string attribute of `n` values (`type` its file type).
inline std::vector<std::string> read_strings(hid_t a, hid_t type, std::size_t n, const std::string& where) {
    std::vector<std::string> out;
    if (H5Tis_variable_str(type) > 0) {
        handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
        if (!mem.valid() || H5Tset_size(mem.get(), H5T_VARIABLE) < 0 || H5Tset_cset(mem.get(), H5Tget_cset(type)) < 0)
            throw std::runtime_error(where + "cannot describe its strings: " + last_error());
        std::vector<char*> p(n, nullptr);
        if (n > 0 && H5Aread(a, mem.get(), p.data()) < 0)
            throw std::runtime_error(where + "cannot be read: " + last_error());
        for (char* s : p) out.emplace_back(s != nullptr ? s : "");
        handle space(H5Aget_space(a), H5Sclose);
#if H5_VERSION_GE(1, 12, 0)
        if (n > 0) H5Treclaim(mem.get(), space.get(), H5P_DEFAULT, p.data());
#else
        if (n > 0) H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, p.data());
#endif
        return out;
    }
    const std::size_t size = H5Tget_size(type);
    std::vector<char> bytes(size * n + 1, '\0');
    if (n > 0 && H5Aread(a, type, bytes.data()) < 0)
        throw std::runtime_error(where + "cannot be read: " + last_error());
    const bool space_padded = H5Tget_strpad(type) == H5T_STR_SPACEPAD;
    for (std::size_t i = 0; i < n; ++i) {
        std::string s(bytes.data() + i * size, size);
        if (const auto end = s.find('\0'); end != std::string::npos) s.resize(end);
        if (space_padded) s.erase(s.find_last_not_of(' ') + 1);
        out.push_back(std::move(s));
    }
    return out;
}

// One attribute's value; throws std::runtime_error saying what is wrong (the caller names file and path).
inline attribute read_value(hid_t object, const std::string& name) {
    const std::string where = "attribute '" + name + "' ";
    handle a(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!a.valid()) throw std::runtime_error(where + "cannot be opened: " + last_error());
    handle space(H5Aget_space(a.get()), H5Sclose), type(H5Aget_type(a.get()), H5Tclose);
    if (!space.valid() || !type.valid()) throw std::runtime_error(where + "cannot be described: " + last_error());
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (H5Sget_simple_extent_type(space.get()) == H5S_NULL) throw std::runtime_error(where + "holds no value (null)");
    if (rank < 0 || rank > 1)
        throw std::runtime_error(where + "has " + std::to_string(rank) +
                                 " axes: chunkwise::attributes holds single values and lists");
    const bool scalar = rank == 0;
    const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
    const H5T_class_t kind = H5Tget_class(type.get());
    if (kind == H5T_INTEGER) {
        const bool huge_unsigned = H5Tget_sign(type.get()) == H5T_SGN_NONE && H5Tget_size(type.get()) >= 8;
        std::vector<std::int64_t> v(n);
        if (huge_unsigned) {
            std::vector<std::uint64_t> u(n);
            if (n > 0 && H5Aread(a.get(), H5T_NATIVE_UINT64, u.data()) < 0)
                throw std::runtime_error(where + "cannot be read: " + last_error());
            for (std::size_t i = 0; i < n; ++i) {
                if (u[i] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                    throw std::runtime_error(where + "holds " + std::to_string(u[i]) +
                                             ", beyond a 64-bit signed integer");
                v[i] = static_cast<std::int64_t>(u[i]);
            }
        } else if (n > 0 && H5Aread(a.get(), H5T_NATIVE_INT64, v.data()) < 0) {
            throw std::runtime_error(where + "cannot be read: " + last_error());
        }
        if (scalar) return v.at(0);
        return v;
    }
    if (kind == H5T_FLOAT) {
        std::vector<double> v(n);
        if (n > 0 && H5Aread(a.get(), H5T_NATIVE_DOUBLE, v.data()) < 0)
            throw std::runtime_error(where + "cannot be read: " + last_error());
        if (scalar) return v.at(0);
        return v;
    }
    if (kind == H5T_STRING) {
        std::vector<std::string> v = read_strings(a.get(), type.get(), n, where);
        if (scalar) return v.at(0);
        return v;
    }
    throw std::runtime_error(where + "is not an integer, float or string (HDF5 type class " +
                             std::to_string(static_cast<int>(kind)) + "): chunkwise::attributes cannot hold it");
}

}  // namespace attribute_io

CHUNKWISE_HDF5_DECL attributes read_attributes(hid_t object, const std::string& file, const std::string& path) {
    std::vector<std::string> names;
    hsize_t at = 0;
    if (H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &at, attribute_io::collect_name, &names) < 0)
        throw error(file, path, "its attributes cannot be listed: " + last_error());
    // The dimension scales convention's own attributes (detail/hdf5/dimensions.hpp) are read by dimensions().
    bool scale = false;
    if (std::find(names.begin(), names.end(), "CLASS") != names.end()) {
        try {
            const attribute c = attribute_io::read_value(object, "CLASS");
            scale = std::holds_alternative<std::string>(c) && std::get<std::string>(c) == "DIMENSION_SCALE";
        } catch (const std::runtime_error&) {
        }
        H5Eclear2(H5E_DEFAULT);
    }
    attributes out;
    for (const std::string& name : names) {
        if (name == "DIMENSION_LIST" || name == "REFERENCE_LIST" || name == "_Netcdf4Dimid" ||
            name == "_Netcdf4Coordinates" || (scale && (name == "CLASS" || name == "NAME")))
            continue;
        try {
            out.emplace(name, attribute_io::read_value(object, name));
        } catch (const std::runtime_error& e) {
            throw error(file, path, e.what());
        }
    }
    return out;
}

}  // namespace chunkwise::h5::detail
