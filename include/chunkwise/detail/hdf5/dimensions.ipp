// The definitions of chunkwise/detail/hdf5/dimensions.hpp's functions: included at the end of that header
// (header-only, the default), or compiled once into the hdf5 library (CHUNKWISE_HDF5_SEPARATE_COMPILATION;
// docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {
namespace dimension_io {

// The NAME netCDF-4 gives a dimension scale that is no variable (followed by the length, in 10 columns).
inline constexpr char not_a_variable[] = "This is a netCDF dimension but not a netCDF variable.";

// One entry of a scale's REFERENCE_LIST, laid out as the HDF5 high-level library lays it out.
struct ref_entry {
    hobj_ref_t ref;
    int dim;
};

inline handle ref_list_type() {
    handle t(H5Tcreate(H5T_COMPOUND, sizeof(ref_entry)), H5Tclose);
    if (t.valid() && (H5Tinsert(t.get(), "dataset", HOFFSET(ref_entry, ref), H5T_STD_REF_OBJ) < 0 ||
                      H5Tinsert(t.get(), "dimension", HOFFSET(ref_entry, dim), H5T_NATIVE_INT) < 0))
        t.reset();
    return t;
}

// Writes the fixed-length, NUL-terminated string attribute the convention uses; false where HDF5 refused.
inline bool put_text(hid_t object, const char* name, const std::string& value) {
    handle t(H5Tcopy(H5T_C_S1), H5Tclose);
    const handle s(H5Screate(H5S_SCALAR), H5Sclose);
    if (!t.valid() || !s.valid() || H5Tset_size(t.get(), value.size() + 1) < 0 ||
        H5Tset_strpad(t.get(), H5T_STR_NULLTERM) < 0)
        return false;
    if (H5Aexists(object, name) > 0 && H5Adelete(object, name) < 0) return false;
    handle a(H5Acreate2(object, name, t.get(), s.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    return a.valid() && H5Awrite(a.get(), t.get(), value.c_str()) >= 0 && a.close();
}

// The string attribute `name` of `object`; "" where it has none or it holds no string.
inline std::string text_of(hid_t object, const char* name) {
    std::string out;
    if (H5Aexists(object, name) > 0) {
        try {
            const attribute v = attribute_io::read_value(object, name);
            if (const auto* s = std::get_if<std::string>(&v)) out = *s;
        } catch (const std::runtime_error&) {
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return out;
}

inline bool is_scale(hid_t object) { return text_of(object, "CLASS") == "DIMENSION_SCALE"; }

// The entries of a scale's REFERENCE_LIST. \throws std::runtime_error where it cannot be read
inline std::vector<ref_entry> read_refs(hid_t scale) {
    std::vector<ref_entry> out;
    if (H5Aexists(scale, "REFERENCE_LIST") <= 0) return out;
    const handle a(H5Aopen(scale, "REFERENCE_LIST", H5P_DEFAULT), H5Aclose);
    const handle space(a.valid() ? H5Aget_space(a.get()) : H5I_INVALID_HID, H5Sclose);
    const handle t = ref_list_type();
    if (!space.valid() || !t.valid()) throw std::runtime_error("its REFERENCE_LIST cannot be opened: " + last_error());
    out.resize(static_cast<std::size_t>(std::max<hssize_t>(H5Sget_simple_extent_npoints(space.get()), 0)));
    if (!out.empty() && H5Aread(a.get(), t.get(), out.data()) < 0)
        throw std::runtime_error("its REFERENCE_LIST cannot be read: " + last_error());
    return out;
}

// Replaces a scale's REFERENCE_LIST (removed where `refs` is empty); false where HDF5 refused.
inline bool write_refs(hid_t scale, const std::vector<ref_entry>& refs) {
    if (H5Aexists(scale, "REFERENCE_LIST") > 0 && H5Adelete(scale, "REFERENCE_LIST") < 0) return false;
    if (refs.empty()) return true;
    const handle t = ref_list_type();
    const hsize_t n = refs.size();
    const handle s(H5Screate_simple(1, &n, nullptr), H5Sclose);
    if (!t.valid() || !s.valid()) return false;
    handle a(H5Acreate2(scale, "REFERENCE_LIST", t.get(), s.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    return a.valid() && H5Awrite(a.get(), t.get(), refs.data()) >= 0 && a.close();
}

// The scales of each axis, as DIMENSION_LIST holds them (empty: none). \throws std::runtime_error
inline std::vector<std::vector<hobj_ref_t>> read_dimension_list(hid_t dset) {
    std::vector<std::vector<hobj_ref_t>> out;
    if (H5Aexists(dset, "DIMENSION_LIST") <= 0) return out;
    const handle a(H5Aopen(dset, "DIMENSION_LIST", H5P_DEFAULT), H5Aclose);
    const handle space(a.valid() ? H5Aget_space(a.get()) : H5I_INVALID_HID, H5Sclose);
    const handle t(H5Tvlen_create(H5T_STD_REF_OBJ), H5Tclose);
    if (!space.valid() || !t.valid()) throw std::runtime_error("its DIMENSION_LIST cannot be opened: " + last_error());
    std::vector<hvl_t> raw(static_cast<std::size_t>(std::max<hssize_t>(H5Sget_simple_extent_npoints(space.get()), 0)));
    if (raw.empty()) return out;
    if (H5Aread(a.get(), t.get(), raw.data()) < 0)
        throw std::runtime_error("its DIMENSION_LIST cannot be read: " + last_error());
    for (const hvl_t& v : raw) {
        const auto* p = static_cast<const hobj_ref_t*>(v.p);
        out.emplace_back(p, p + (p != nullptr ? v.len : 0));
    }
#if H5_VERSION_GE(1, 12, 0)
    H5Treclaim(t.get(), space.get(), H5P_DEFAULT, raw.data());
#else
    H5Dvlen_reclaim(t.get(), space.get(), H5P_DEFAULT, raw.data());
#endif
    return out;
}

// An object reference to `path` in `file`; false where HDF5 refused.
inline bool reference_to(hid_t file, const std::string& path, hobj_ref_t& ref) {
    return H5Rcreate(&ref, file, path.c_str(), H5R_OBJECT, -1) >= 0;
}

// The last part of an HDF5 path ("/g/time" -> "time").
inline std::string last_part(const std::string& path) {
    const std::size_t k = path.find_last_of('/');
    return k == std::string::npos ? path : path.substr(k + 1);
}

// The path of the object `id` is open as ("" where it has none).
inline std::string name_of(hid_t id) {
    const ssize_t n = H5Iget_name(id, nullptr, 0);
    if (n <= 0) return {};
    std::string s(static_cast<std::size_t>(n) + 1, '\0');
    H5Iget_name(id, s.data(), s.size());
    s.resize(static_cast<std::size_t>(n));
    return s;
}

}  // namespace dimension_io

CHUNKWISE_HDF5_DECL std::string dimensions_conflict(hid_t file, const std::string& path,
                                                    const std::vector<std::string>& names,
                                                    const std::vector<std::size_t>& shape) {
    namespace io = dimension_io;
    if (names.empty()) return {};
    if (std::string why = chunkwise::detail::dimensions_problem(names, shape.size()); !why.empty()) return why;
    const std::string base = io::last_part(path);
    if (shape.size() == 1 && names[0] == base) return {};  // a coordinate variable
    const std::size_t cut = path.find_last_of('/');
    const std::string group = cut == std::string::npos ? std::string() : path.substr(0, cut + 1);
    std::string why;
    for (std::size_t d = 0; d < shape.size() && why.empty(); ++d) {
        const std::string& name = names[d];
        if (name == base) {
            why = "axis " + std::to_string(d) + " is named '" + name +
                  "', the dataset's own name: only a 1-D dataset (a coordinate variable) names its own dimension";
            break;
        }
        const std::string at = group + name;
        if (H5Lexists(file, at.c_str(), H5P_DEFAULT) <= 0) continue;
        const handle o(H5Oopen(file, at.c_str(), H5P_DEFAULT), H5Oclose);
        if (!o.valid() || H5Iget_type(o.get()) != H5I_DATASET || !io::is_scale(o.get())) {
            why = "dimension '" + name + "': " + at + " exists and is not a dimension scale";
            break;
        }
        const handle space(H5Dget_space(o.get()), H5Sclose);
        hsize_t n = 0, most = 0;
        const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
        if (rank == 1) H5Sget_simple_extent_dims(space.get(), &n, &most);
        if (rank == 1 && (n == shape[d] || most == H5S_UNLIMITED)) continue;  // unlimited: its variables' length
#ifndef H5_NO_DEPRECATED_SYMBOLS
        // A scale that is no variable, used by the dataset being replaced alone, is made again at the new length.
        hobj_ref_t self{};
        if (rank == 1 && io::text_of(o.get(), "NAME").rfind(io::not_a_variable, 0) == 0 &&
            H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0 && io::reference_to(file, path, self)) {
            try {
                const std::vector<io::ref_entry> refs = io::read_refs(o.get());
                if (std::all_of(refs.begin(), refs.end(), [&](const io::ref_entry& e) { return e.ref == self; }))
                    continue;
            } catch (const std::runtime_error&) {
            }
        }
#endif
        why = "dimension '" + name + "' has " +
              (rank == 1 ? std::to_string(n) + " values" : std::to_string(rank) + " axes") + " in the file (" + at +
              "), axis " + std::to_string(d) + " of the dataset " + std::to_string(shape[d]);
    }
    H5Eclear2(H5E_DEFAULT);
    return why;
}

CHUNKWISE_HDF5_DECL void attach_dimensions(hid_t file, hid_t dset, const std::string& file_name,
                                           const std::string& path, const std::vector<std::string>& names,
                                           const std::vector<std::size_t>& shape, bool unlimited_first) {
    namespace io = dimension_io;
    if (names.empty()) return;
    if (const std::string why = dimensions_conflict(file, path, names, shape); !why.empty())
        throw error(file_name, path, "dimension names: " + why);
#ifdef H5_NO_DEPRECATED_SYMBOLS
    throw error(file_name, path,
                "dimension names need HDF5's object references (H5Rcreate), which this HDF5 build leaves out "
                "(built with H5_NO_DEPRECATED_SYMBOLS)");
#else
    const auto fail = [&](const std::string& what) { throw error(file_name, path, "dimension names: " + what); };
    const std::string base = io::last_part(path);
    const std::size_t cut = path.find_last_of('/');
    const std::string group = cut == std::string::npos ? std::string() : path.substr(0, cut + 1);  // "" or ".../"
    if (shape.size() == 1 && names[0] == base) {  // a coordinate variable: the dataset is its own dimension
        if (!io::put_text(dset, "CLASS", "DIMENSION_SCALE") || !io::put_text(dset, "NAME", base))
            fail("the dataset cannot be made the scale of dimension '" + base + "': " + last_error());
        return;
    }
    hobj_ref_t self{};
    if (!io::reference_to(file, path, self)) fail("cannot refer to the dataset: " + last_error());
    std::vector<hobj_ref_t> scales(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const std::string& name = names[d];
        const std::string at = group + name;
        if (H5Lexists(file, at.c_str(), H5P_DEFAULT) <= 0) {  // checked by dimensions_conflict where it exists
            H5Eclear2(H5E_DEFAULT);
            // An unlimited axis 0 (a growable dataset) gets an unlimited dimension, as netCDF-4 makes one: its
            // readers take its length from the variables that use it.
            const bool unlimited = d == 0 && unlimited_first;
            const hsize_t n = shape[d], most = unlimited ? H5S_UNLIMITED : n, chunk = 1024;
            const handle space(H5Screate_simple(1, &n, &most), H5Sclose);
            const handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
            if (unlimited && dcpl.valid()) H5Pset_chunk(dcpl.get(), 1, &chunk);
            const handle s(
                H5Dcreate2(file, at.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                H5Dclose);
            char length[24];
            std::snprintf(length, sizeof length, "%10zu", shape[d]);
            if (!s.valid() || !io::put_text(s.get(), "CLASS", "DIMENSION_SCALE") ||
                !io::put_text(s.get(), "NAME", std::string(io::not_a_variable) + length))
                fail("the scale of dimension '" + name + "' (" + at + ") cannot be made: " + last_error());
        }
        if (!io::reference_to(file, at, scales[d])) fail("cannot refer to " + at + ": " + last_error());
        const handle o(H5Oopen(file, at.c_str(), H5P_DEFAULT), H5Oclose);
        std::vector<io::ref_entry> refs;
        try {
            refs = io::read_refs(o.get());
        } catch (const std::runtime_error& e) {
            fail(at + ": " + e.what());
        }
        refs.push_back({self, static_cast<int>(d)});
        if (!io::write_refs(o.get(), refs)) fail(at + "'s REFERENCE_LIST cannot be written: " + last_error());
    }
    const handle t(H5Tvlen_create(H5T_STD_REF_OBJ), H5Tclose);
    const hsize_t rank = shape.size();
    const handle space(H5Screate_simple(1, &rank, nullptr), H5Sclose);
    std::vector<hvl_t> lists(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) lists[d] = hvl_t{1, &scales[d]};
    if (!t.valid() || !space.valid()) fail("cannot describe DIMENSION_LIST: " + last_error());
    if (H5Aexists(dset, "DIMENSION_LIST") > 0) H5Adelete(dset, "DIMENSION_LIST");
    handle a(H5Acreate2(dset, "DIMENSION_LIST", t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.valid() || H5Awrite(a.get(), t.get(), lists.data()) < 0 || !a.close())
        fail("DIMENSION_LIST cannot be written: " + last_error());
#endif
}

CHUNKWISE_HDF5_DECL void detach_dimensions(hid_t file, const std::string& path) noexcept {
#ifndef H5_NO_DEPRECATED_SYMBOLS
    namespace io = dimension_io;
    try {
        const handle d(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose);
        hobj_ref_t self{};
        if (d.valid() && io::reference_to(file, path, self)) {
            std::vector<hobj_ref_t> seen;
            for (const std::vector<hobj_ref_t>& axis : io::read_dimension_list(d.get())) {
                for (hobj_ref_t ref : axis) {
                    if (std::find(seen.begin(), seen.end(), ref) != seen.end()) continue;
                    seen.push_back(ref);
                    handle s(H5Rdereference2(d.get(), H5P_DEFAULT, H5R_OBJECT, &ref), H5Oclose);
                    if (!s.valid()) continue;
                    std::vector<io::ref_entry> refs = io::read_refs(s.get());
                    std::erase_if(refs, [&](const io::ref_entry& e) { return e.ref == self; });
                    io::write_refs(s.get(), refs);
                    if (refs.empty() && io::text_of(s.get(), "NAME").rfind(io::not_a_variable, 0) == 0) {
                        const std::string at = io::name_of(s.get());
                        s.reset();
                        if (!at.empty()) H5Ldelete(file, at.c_str(), H5P_DEFAULT);
                    }
                }
            }
        }
    } catch (...) {
    }
#else
    (void)file;
    (void)path;
#endif
    H5Eclear2(H5E_DEFAULT);
}

CHUNKWISE_HDF5_DECL std::vector<std::string> read_dimensions(hid_t dset, const std::string& file,
                                                             const std::string& path) {
    namespace io = dimension_io;
    std::vector<std::string> out;
    if (io::is_scale(dset)) {
        const handle space(H5Dget_space(dset), H5Sclose);
        if (space.valid() && H5Sget_simple_extent_ndims(space.get()) == 1) out.push_back(io::last_part(path));
        return out;
    }
    std::vector<std::vector<hobj_ref_t>> lists;
    try {
        lists = io::read_dimension_list(dset);
    } catch (const std::runtime_error& e) {
        throw error(file, path, e.what());
    }
    for (const std::vector<hobj_ref_t>& axis : lists) {
        std::string name;
        if (!axis.empty()) {
            hobj_ref_t ref = axis.front();
            const handle s(H5Rdereference2(dset, H5P_DEFAULT, H5R_OBJECT, &ref), H5Oclose);
            if (!s.valid())
                throw error(file, path, "a dimension scale of its DIMENSION_LIST cannot be opened: " + last_error());
            name = io::last_part(io::name_of(s.get()));
        }
        out.push_back(std::move(name));
    }
    H5Eclear2(H5E_DEFAULT);
    return out;
}

}  // namespace chunkwise::h5::detail
