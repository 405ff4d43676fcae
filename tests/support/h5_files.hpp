#pragma once
// Test files, written through the HDF5 C API: every storage layout, filter, byte order and type
// the tests read back.
#include "test_util.hpp"

#include <hdf5.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace test {

struct layout_case {
    std::string name;
    bool chunked = false;
    bool deflate = false;
    bool shuffle = false;
    bool fletcher32 = false;
    bool scaleoffset = false;
};

inline const std::vector<layout_case>& layouts() {
    static const std::vector<layout_case> all{
        {"contiguous", false},
        {"chunked", true},
        {"deflate+shuffle", true, true, true},
        {"deflate", true, true},
        {"fletcher32", true, false, false, true},
        {"scaleoffset", true, false, false, false, true},
    };
    return all;
}

/// The layout called `name` ("contiguous", "chunked", "deflate+shuffle", ...).
inline const layout_case& layout(const std::string& name) {
    for (const auto& l : layouts()) {
        if (l.name == name) return l;
    }
    throw std::invalid_argument("test: no layout " + name);
}

struct type_case {
    std::string name;
    hid_t file_type;  // stored type (any byte order)
    hid_t mem_type;   // the native type the values are generated in
};

inline const std::vector<type_case>& types() {
    static const std::vector<type_case> all{
        {"f32le", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE}, {"f64be", H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE},
        {"f32be", H5T_IEEE_F32BE, H5T_NATIVE_DOUBLE}, {"i16le", H5T_STD_I16LE, H5T_NATIVE_DOUBLE},
        {"i32be", H5T_STD_I32BE, H5T_NATIVE_DOUBLE},  {"u8", H5T_STD_U8LE, H5T_NATIVE_DOUBLE},
        {"i64le", H5T_STD_I64LE, H5T_NATIVE_DOUBLE},  {"u16be", H5T_STD_U16BE, H5T_NATIVE_DOUBLE},
    };
    return all;
}

/// The type called `name` ("f32le", "f64be", "i16le", ...).
inline const type_case& type(const std::string& name) {
    for (const auto& t : types()) {
        if (t.name == name) return t;
    }
    throw std::invalid_argument("test: no type " + name);
}

/// Writes dataset `name` of `shape` into `file` (created if missing) with values that exercise
/// the type: fractions and negatives for floats, the whole range for small integers.
inline void write_dataset(const std::filesystem::path& file, const std::string& name, const std::vector<hsize_t>& shape,
                          const type_case& type, const layout_case& layout, const std::vector<hsize_t>& chunk) {
    // HDF5 1.x's file format, whatever the release (tests change bytes of its object headers,
    // which carry no checksum there; HDF5 2.x writes checksummed ones by default).
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST);
    hid_t f = std::filesystem::exists(file) ? H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl)
                                            : H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0) throw std::runtime_error("test: cannot create " + file.string());
    hid_t space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (layout.chunked) {
        H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
        if (layout.shuffle) H5Pset_shuffle(dcpl);
        if (layout.deflate) H5Pset_deflate(dcpl, 4);
        if (layout.fletcher32) H5Pset_fletcher32(dcpl);
        if (layout.scaleoffset) {
            const bool is_float = H5Tget_class(type.file_type) == H5T_FLOAT;
            H5Pset_scaleoffset(dcpl, is_float ? H5Z_SO_FLOAT_DSCALE : H5Z_SO_INT,
                               is_float ? 3 : H5Z_SO_INT_MINBITS_DEFAULT);
        }
    }
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(f, name.c_str(), type.file_type, space, lcpl, dcpl, H5P_DEFAULT);
    if (d < 0) throw std::runtime_error("test: cannot create dataset " + name);
    std::size_t n = 1;
    for (hsize_t s : shape) n *= s;
    std::vector<double> v(n);
    const bool is_float = H5Tget_class(type.file_type) == H5T_FLOAT;
    const bool is_signed = is_float || H5Tget_sign(type.file_type) == H5T_SGN_2;
    const double span =
        is_float ? 1e6 : std::min(1e9, std::ldexp(1.0, static_cast<int>(8 * H5Tget_size(type.file_type)) - 1));
    for (std::size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>((i * 2654435761u) % 100003) / 100003.0;  // in [0, 1)
        double val = (is_signed ? 2 * x - 1 : x) * span;
        v[i] = is_float ? val / 7.0 : std::floor(val);
    }
    if (n > 0) H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(d);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
}

/// Rows [begin, end) of a dataset as HDF5 itself converts them to the native type `mem`.
template <class T>
std::vector<T> h5dread_rows(const std::filesystem::path& file, const std::string& name, hid_t mem, std::size_t begin,
                            std::size_t end) {
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    const int rank = H5Sget_simple_extent_ndims(fs);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), start(dims.size(), 0);
    H5Sget_simple_extent_dims(fs, dims.data(), nullptr);
    start[0] = begin;
    dims[0] = end - begin;
    std::size_t n = 1;
    for (hsize_t s : dims) n *= s;
    std::vector<T> out(n);
    if (n > 0) {
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start.data(), nullptr, dims.data(), nullptr);
        hid_t ms = H5Screate_simple(rank, dims.data(), nullptr);
        H5Dread(d, mem, ms, fs, H5P_DEFAULT, out.data());
        H5Sclose(ms);
    }
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
    return out;
}

/// Rows [begin, end) as H5Dread gives them (whole trailing axes), or nullopt where HDF5 fails
/// (HDF5's error printing silenced). The reference every chunkwise read is compared with.
template <class T>
std::optional<std::vector<T>> try_h5dread(const std::filesystem::path& file, const std::string& name, hid_t mem,
                                          std::size_t begin, std::size_t end) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::optional<std::vector<T>> out;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = f < 0 ? -1 : H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    const hid_t fs = d < 0 ? -1 : H5Dget_space(d);
    const int rank = fs < 0 ? -1 : H5Sget_simple_extent_ndims(fs);
    if (rank > 0) {
        std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), start(dims.size(), 0);
        H5Sget_simple_extent_dims(fs, dims.data(), nullptr);
        if (end <= dims[0] && begin <= end) {
            start[0] = begin;
            dims[0] = end - begin;
            std::size_t n = 1;
            for (hsize_t s : dims) n *= s;
            std::vector<T> values;
            try {
                values.resize(n);
            } catch (const std::bad_alloc&) {
                n = 0;  // too large to hold: no reference
            }
            bool ok = values.size() == n && (n > 0 || dims[0] == 0 || values.empty());
            if (ok && n > 0) {
                const hid_t ms = H5Screate_simple(rank, dims.data(), nullptr);
                ok = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start.data(), nullptr, dims.data(), nullptr) >= 0 &&
                     H5Dread(d, mem, ms, fs, H5P_DEFAULT, values.data()) >= 0;
                H5Sclose(ms);
            }
            if (ok) out = std::move(values);
        }
    }
    if (fs >= 0) H5Sclose(fs);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return out;
}

}  // namespace test
