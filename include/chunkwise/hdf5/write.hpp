#pragma once
/// \file
/// `chunkwise::h5::write`: an array into a new dataset of an HDF5 file (chunked, deflated on
/// request), readable by h5py, h5dump and any HDF5 reader.

#include <chunkwise/detail/hdf5_library.hpp>
#include <chunkwise/hdf5/dataset.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/partial_results.hpp>

#include <hdf5.h>

#include <algorithm>
#include <exception>
#include <utility>
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

namespace detail {

/// Rows and the shape of one result, for write_blocks.
template <class R>
std::vector<std::size_t> result_shape(const R& r) {
    if constexpr (requires { r.shape(); }) {
        const auto& s = r.shape();
        return std::vector<std::size_t>(s.begin(), s.end());
    } else {
        return {r.size()};
    }
}

/// The results held here, concatenated along axis 0 (all must agree on the other axes).
template <class R, class T>
std::vector<T> concatenate(const std::vector<R>& values, std::vector<std::size_t>& shape, const std::string& file,
                           const std::string& path) {
    std::vector<T> flat;
    for (const R& v : values) {
        const auto s = result_shape(v);
        if (shape.empty()) {
            shape = s;
            shape[0] = 0;
        } else if (s.size() != shape.size() || !std::equal(s.begin() + 1, s.end(), shape.begin() + 1)) {
            throw error(file, path, "write_blocks: block results disagree in shape beyond axis 0");
        }
        shape[0] += s[0];
        flat.insert(flat.end(), v.data(), v.data() + v.size());
    }
    return flat;
}

}  // namespace detail

#if defined(CHUNKWISE_HDF5_PARALLEL)
namespace detail {

// Every rank writes its own blocks' rows into one dataset through MPI-IO (parallel HDF5 build).
template <class T, class R>
void write_blocks_collective(MPI_Comm comm, const std::string& f, const std::string& p, partial_results<R>& results,
                             write_options opt) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    // Each rank's blocks: index, rows, and the shape beyond axis 0.
    std::vector<unsigned long long> mine;
    std::vector<std::size_t> inner;
    for (std::size_t k = 0; k < results.size(); ++k) {
        const auto s = result_shape(results.values()[k]);
        if (inner.empty()) inner.assign(s.begin() + 1, s.end());
        if (s.size() != inner.size() + 1 || !std::equal(s.begin() + 1, s.end(), inner.begin())) {
            throw error(f, p, "write_blocks: block results disagree in shape beyond axis 0");
        }
        mine.push_back(results.indices()[k]);
        mine.push_back(s[0]);
    }
    int my_count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    MPI_Allgather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displs[static_cast<std::size_t>(r)] = total;
        total += counts[static_cast<std::size_t>(r)];
    }
    std::vector<unsigned long long> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), my_count, MPI_UNSIGNED_LONG_LONG, all.data(), counts.data(), displs.data(),
                   MPI_UNSIGNED_LONG_LONG, comm);
    // The shape beyond axis 0, from the lowest rank that holds a block.
    int has = inner.empty() && results.size() == 0 ? size : rank, first_with = size;
    MPI_Allreduce(&has, &first_with, 1, MPI_INT, MPI_MIN, comm);
    unsigned long long dims = inner.size();
    MPI_Bcast(&dims, 1, MPI_UNSIGNED_LONG_LONG, first_with < size ? first_with : 0, comm);
    std::vector<unsigned long long> inner_ull(inner.begin(), inner.end());
    inner_ull.resize(dims);
    MPI_Bcast(inner_ull.data(), static_cast<int>(dims), MPI_UNSIGNED_LONG_LONG, first_with < size ? first_with : 0, comm);
    if (results.size() > 0 && !std::equal(inner.begin(), inner.end(), inner_ull.begin())) {
        throw error(f, p, "write_blocks: block results on different ranks disagree in shape beyond axis 0");
    }
    // Row offset of every block, in block order.
    std::vector<std::pair<unsigned long long, unsigned long long>> blocks;
    for (std::size_t i = 0; i + 1 < all.size(); i += 2) blocks.emplace_back(all[i], all[i + 1]);
    std::sort(blocks.begin(), blocks.end());
    std::vector<hsize_t> shape{0};
    for (auto v : inner_ull) shape.push_back(v);
    std::vector<std::pair<unsigned long long, hsize_t>> offsets;  // index -> first row
    for (const auto& [index, rows] : blocks) {
        offsets.emplace_back(index, shape[0]);
        shape[0] += rows;
    }
    std::vector<std::size_t> shape_sz(shape.begin(), shape.end());
    if ((opt.deflate > 0 || opt.shuffle) && opt.chunk.empty()) {
        opt.chunk = shape_sz;
        std::size_t row_bytes = sizeof(T);
        for (std::size_t d = 1; d < shape_sz.size(); ++d) row_bytes *= std::max<std::size_t>(shape_sz[d], 1);
        opt.chunk[0] = std::clamp<std::size_t>((std::size_t{1} << 20) / std::max<std::size_t>(row_bytes, 1), 1,
                                               std::max<std::size_t>(shape_sz[0], 1));
    }
    std::vector<T> buffer;
    for (const R& v : results.values()) buffer.insert(buffer.end(), v.data(), v.data() + v.size());

    library_lock lock;
    int exists = rank == 0 ? static_cast<int>(std::filesystem::exists(f)) : 0;
    MPI_Bcast(&exists, 1, MPI_INT, 0, comm);
    handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL);
    handle fh = exists ? handle(H5Fopen(f.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose)
                       : handle(H5Fcreate(f.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose);
    if (!fh.valid()) throw error(f, p, "write_blocks: cannot open or create the file with MPI-IO: " + last_error());
    if (H5Lexists(fh.get(), p.c_str(), H5P_DEFAULT) > 0) throw error(f, p, "write_blocks: the dataset already exists");
    H5Eclear2(H5E_DEFAULT);
    handle space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr), H5Sclose);
    handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    if (!opt.chunk.empty()) {
        std::vector<hsize_t> chunk(opt.chunk.begin(), opt.chunk.end());
        for (auto& c : chunk) c = std::max<hsize_t>(c, 1);
        H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
        if (opt.shuffle) H5Pset_shuffle(dcpl.get());
        if (opt.deflate > 0) H5Pset_deflate(dcpl.get(), static_cast<unsigned>(opt.deflate));
    }
    handle ds(H5Dcreate2(fh.get(), p.c_str(), native_type<T>(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
              H5Dclose);
    if (!ds.valid()) throw error(f, p, "write_blocks: cannot create the dataset: " + last_error());
    // This rank's rows: the union of its blocks' hyperslabs, written in one collective call.
    handle fspace(H5Dget_space(ds.get()), H5Sclose);
    H5Sselect_none(fspace.get());
    for (std::size_t k = 0; k < results.size(); ++k) {
        const auto it = std::lower_bound(offsets.begin(), offsets.end(),
                                         std::make_pair(static_cast<unsigned long long>(results.indices()[k]), hsize_t{0}));
        std::vector<hsize_t> start(shape.size(), 0), count(shape);
        start[0] = it->second;
        count[0] = result_shape(results.values()[k])[0];
        if (count[0] > 0) H5Sselect_hyperslab(fspace.get(), H5S_SELECT_OR, start.data(), nullptr, count.data(), nullptr);
    }
    const hsize_t n = buffer.size();
    handle mspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
    if (n == 0) H5Sselect_none(mspace.get());
    handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
    if (H5Dwrite(ds.get(), native_type<T>(), mspace.get(), fspace.get(), dxpl.get(), buffer.data()) < 0) {
        throw error(f, p, "write_blocks: the collective write failed: " + last_error());
    }
}

}  // namespace detail
#endif

/// Writes every block's result into one new dataset, concatenated along axis 0 in block order:
/// block results are arrays of rank N (xtensor) or std::vector (rank 1), agreeing on every axis
/// but the first. Blocks that failed under on_error::collect are left out. Without MPI the
/// calling process writes. Under MPI it is collective and every rank returns once the dataset is
/// written: with the parallel HDF5 build (CMake: CHUNKWISE_HDF5_FLAVOR=openmpi) every rank writes
/// its own blocks through MPI-IO in one collective call; with the serial build the root gathers
/// and writes, and the others throw the root's error if it fails.
/// \throws h5::error naming file and dataset
template <class Policy, class R>
void write_blocks(Policy& policy, const std::filesystem::path& file, const std::string& path,
                  partial_results<R>&& results, write_options opt = {}) {
    using T = std::remove_cv_t<typename R::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::write_blocks: block results must be arrays or vectors of an arithmetic type");
    const std::string f = file.string();
    const std::string p = path.empty() || path.front() != '/' ? "/" + path : path;
#if defined(CHUNKWISE_HDF5_PARALLEL)
    if constexpr (requires { policy.communicator(); }) {
        MPI_Comm comm = policy.communicator();
        detail::write_blocks_collective<T>(comm, f, p, results, std::move(opt));
        return;
    }
#endif
    std::vector<R> all = gather(policy, std::move(results));
    std::string message;
    std::exception_ptr root_error;
    if (policy.is_root()) {
        try {
            std::vector<std::size_t> shape;
            const std::vector<T> flat = detail::concatenate<R, T>(all, shape, f, p);
            if (shape.empty()) shape = {0};
            detail::write_raw(file, p, detail::native_type<T>(), sizeof(T), shape, flat.data(), std::move(opt));
        } catch (const error& e) {
            message = e.what();
            root_error = std::current_exception();
        }
    }
    if constexpr (requires { policy.broadcast_value(message); }) policy.broadcast_value(message);
    if (root_error) std::rethrow_exception(root_error);
    if (!message.empty()) throw error(f, p, "write_blocks failed on the root: " + message);
}

}  // namespace chunkwise::h5
