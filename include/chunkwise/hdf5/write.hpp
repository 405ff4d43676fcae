#pragma once
/// \file
/// `chunkwise::h5::write`: an array into a new dataset of an HDF5 file (chunked, deflated on
/// request), readable by h5py, h5dump and any HDF5 reader.

#include <chunkwise/detail/hdf5_library.hpp>
#include <chunkwise/hdf5/dataset.hpp>
#include <chunkwise/hdf5/error.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::h5 {

/// How `write` stores a dataset.
struct write_options {
    std::vector<std::size_t> chunk;  ///< chunk shape; empty: contiguous (or automatic when deflating)
    int deflate = 0;                 ///< 0: no compression; 1-9: deflate level (chunked storage)
    bool shuffle = false;            ///< byte shuffle before deflate (helps floats compress)
};

namespace detail {

inline void write_raw(const std::filesystem::path& file, const std::string& path, hid_t mem_type, std::size_t elem_size,
                      const std::vector<std::size_t>& shape, const void* data, write_options opt) {
    const std::string f = file.string();
    const std::string p = path.empty() || path.front() != '/' ? "/" + path : path;
    auto fail = [&](const std::string& m) { throw error(f, p, m); };
    if (shape.empty()) fail("write: an array of rank 0 has no rows");
    if (opt.deflate < 0 || opt.deflate > 9) fail("write: deflate level must be 0-9, got " + std::to_string(opt.deflate));
    if (!opt.chunk.empty() && opt.chunk.size() != shape.size()) {
        fail("write: the chunk shape has " + std::to_string(opt.chunk.size()) + " axes, the array " +
             std::to_string(shape.size()));
    }
    if ((opt.deflate > 0 || opt.shuffle) && opt.chunk.empty()) {
        // Whole rows, about 1 MiB per chunk.
        std::size_t row_bytes = elem_size;
        for (std::size_t d = 1; d < shape.size(); ++d) row_bytes *= std::max<std::size_t>(shape[d], 1);
        opt.chunk = shape;
        opt.chunk[0] = std::clamp<std::size_t>((std::size_t{1} << 20) / std::max<std::size_t>(row_bytes, 1), 1,
                                               std::max<std::size_t>(shape[0], 1));
    }
    library_lock lock;
    std::error_code ec;
    handle fh = std::filesystem::exists(file, ec)
                    ? handle(H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose)
                    : handle(H5Fcreate(f.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!fh.valid()) fail("write: cannot open or create the file: " + last_error());
    if (H5Lexists(fh.get(), p.c_str(), H5P_DEFAULT) > 0) fail("write: the dataset already exists");
    H5Eclear2(H5E_DEFAULT);
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    if (!opt.chunk.empty()) {
        std::vector<hsize_t> chunk(opt.chunk.size());
        for (std::size_t d = 0; d < chunk.size(); ++d) chunk[d] = std::max<std::size_t>(opt.chunk[d], 1);
        H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
        if (opt.shuffle) H5Pset_shuffle(dcpl.get());
        if (opt.deflate > 0) H5Pset_deflate(dcpl.get(), static_cast<unsigned>(opt.deflate));
    }
    handle ds(H5Dcreate2(fh.get(), p.c_str(), mem_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) fail("write: cannot create the dataset: " + last_error());
    std::size_t count = 1;
    for (std::size_t s : shape) count *= s;
    if (count > 0 && H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        fail("write: writing failed: " + last_error());
    }
}

}  // namespace detail

/// Writes `array` (an xtensor container: xarray, xtensor, in row-major order) into the new
/// dataset `path` of `file`, creating the file and intermediate groups as needed.
/// The file must not be open for reading in this process at the same time (an HDF5 rule): let
/// h5::dataset views of it go first. Under MPI, gather first and write on the root.
/// \throws h5::error naming file and dataset if the dataset exists, the file cannot be written,
///         or the options do not fit the array
template <class Array>
void write(const std::filesystem::path& file, const std::string& path, const Array& array, write_options opt = {}) {
    using T = std::remove_cv_t<typename Array::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::write: the array's values must be an arithmetic type (not bool)");
    const auto& s = array.shape();
    std::vector<std::size_t> shape(s.begin(), s.end());
    detail::write_raw(file, path, detail::native_type<T>(), sizeof(T), shape, array.data(), std::move(opt));
}

/// Writes `values` as a 1-D dataset; otherwise as the array overload.
template <class T>
void write(const std::filesystem::path& file, const std::string& path, const std::vector<T>& values,
           write_options opt = {}) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::write: the values must be an arithmetic type (not bool)");
    detail::write_raw(file, path, detail::native_type<T>(), sizeof(T), {values.size()}, values.data(), std::move(opt));
}

}  // namespace chunkwise::h5
