#pragma once
/// \file
/// `chunkwise::h5::write` and `write_blocks`: arrays and block results into a new dataset of an
/// HDF5 file (chunked, deflated on request), readable by h5py, h5dump and any HDF5 reader.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/types.hpp>
#include <chunkwise/detail/hdf5/write/create.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/hdf5/chunk_writer.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/ragged.hpp>
#include <chunkwise/hdf5/stream_writer.hpp>
#include <chunkwise/hdf5/write_options.hpp>
#include <chunkwise/map_blocks.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/policy.hpp>

#include <hdf5.h>

// A parallel build of HDF5 (its H5pubconf.h defines H5_HAVE_PARALLEL) switches on collective
// MPI-IO writes from distributed policies; CHUNKWISE_HDF5_PARALLEL=0 keeps the streamed path (the root writes).
#if !defined(CHUNKWISE_HDF5_PARALLEL) && defined(H5_HAVE_PARALLEL)
#define CHUNKWISE_HDF5_PARALLEL 1
#endif
#if defined(CHUNKWISE_HDF5_PARALLEL) && CHUNKWISE_HDF5_PARALLEL
#include <chunkwise/detail/hdf5/write/mpio.hpp>
#endif

#include <algorithm>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <mutex>
#include <span>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::h5 {

namespace detail {

// heap_bytes: bytes stored beside the elements (variable-length values).
CHUNKWISE_HDF5_DECL void write_raw(const std::filesystem::path& file, const std::string& path, hid_t mem_type,
                                   std::size_t elem_size, const std::vector<std::size_t>& shape, const void* data,
                                   write_options opt, std::size_t heap_bytes = 0);

/// Rows [row0, row0 + rows) of what a write gives, row-major at `data`.
struct rows_piece {
    std::size_t row0 = 0, rows = 0;
    const void* data = nullptr;
};

/// Writes values of `shape`, in the memory type `mem_type`, given as `pieces`, into the existing dataset `path` of
/// `file`, as `opt.mode` (append or update) asks: checked against the dataset (type, other axes, chunks, filters,
/// dimension names, room for the elements and `heap_bytes` of variable-length values), then one H5Dwrite per piece
/// at its rows (an append first extends axis 0); attributes in `opt` are set after the data.
/// \throws h5::error "append: ..." or "update: ..." naming what is wrong
CHUNKWISE_HDF5_DECL void write_existing(const std::filesystem::path& file, const std::string& path, hid_t mem_type,
                                        std::size_t elem_size, const std::vector<std::size_t>& shape,
                                        const std::vector<rows_piece>& pieces, const write_options& opt,
                                        std::size_t heap_bytes = 0);

/// Writes `shape` values of T at `data`: through HDF5's filters (deflate, shuffle), or, for a
/// codec HDF5 cannot apply itself (write_options::codec), chunk by chunk encoded here
/// (h5::chunk_writer).
template <class T>
void write_values(const std::filesystem::path& file, const std::string& path, const std::vector<std::size_t>& shape,
                  const T* data, write_options opt) {
    if (opt.mode == write_mode::append || opt.mode == write_mode::update) {
        write_existing(file, path, native_type<T>(), sizeof(T), shape, {{0, shape.empty() ? 0 : shape[0], data}}, opt);
        return;
    }
    if (opt.codec.empty()) {
        write_raw(file, path, native_type<T>(), sizeof(T), shape, data, std::move(opt));
        return;
    }
    complete_options(opt, shape, sizeof(T), file.string(), normalize_path(path));  // the chunks
    std::size_t count = 1;
    for (std::size_t s : shape) count *= s;
    chunk_writer<T> w(file, path, shape, std::move(opt));
    if (count > 0) w.write_rows(0, std::span<const T>(data, count));
    w.close();
}

/// The write path of element type T: `extern` declares it, nothing defines it (compiled mode:
/// the library compiles it once for each arithmetic type, as detail/hdf5/read/instances.hpp
/// does the reads).
#define CHUNKWISE_HDF5_WRITE_INSTANCES(EXTERN, T)                                          \
    EXTERN template void write_values<T>(const std::filesystem::path&, const std::string&, \
                                         const std::vector<std::size_t>&, const T*, write_options);
#if !CHUNKWISE_HDF5_HEADER_ONLY
/// One element type's write path, declared extern.
#define CHUNKWISE_HDF5_EXTERN_WRITE(T) CHUNKWISE_HDF5_WRITE_INSTANCES(extern, T)
CHUNKWISE_ARITHMETIC_TYPES(CHUNKWISE_HDF5_EXTERN_WRITE)
#undef CHUNKWISE_HDF5_EXTERN_WRITE
#endif

/// The shape of `values` joined along axis 0 (empty for none), and each one's first row in `row0` (if given).
/// \throws h5::error where they disagree beyond axis 0
template <class R>
std::vector<std::size_t> joined_shape(const std::vector<R>& values, std::vector<std::size_t>* row0,
                                      const std::string& file, const std::string& path) {
    std::vector<std::size_t> shape;
    for (const R& v : values) {
        const auto s = result_shape(v);
        if (shape.empty()) {
            shape = s;
            shape[0] = 0;
        } else if (s.size() != shape.size() || !std::equal(s.begin() + 1, s.end(), shape.begin() + 1)) {
            throw error(file, path, "write_blocks: block results disagree in shape beyond axis 0");
        }
        if (row0 != nullptr) row0->push_back(shape[0]);
        shape[0] += s[0];
    }
    return shape;
}

/// The results held here, concatenated along axis 0 (all must agree on the other axes).
template <class R, class T>
std::vector<T> concatenate(const std::vector<R>& values, std::vector<std::size_t>& shape, const std::string& file,
                           const std::string& path) {
    shape = joined_shape(values, nullptr, file, path);
    std::vector<T> flat;
    for (const R& v : values) flat.insert(flat.end(), v.data(), v.data() + v.size());
    return flat;
}

/// write_blocks in one process: each result streamed to its rows by the policy's workers, encoded where it is
/// written (h5::stream_writer), nothing copied or gathered.
template <class T, class Policy, class R>
void write_blocks_streamed(Policy& policy, const std::filesystem::path& file, const std::string& path,
                           const partial_results<R>& results, write_options opt) {
    const std::vector<R>& values = results.values();
    std::vector<std::size_t> row0;
    std::vector<std::size_t> shape = joined_shape(values, &row0, file.string(), path);
    if (shape.empty()) shape = {0};
    stream_writer<T> w(file, path, shape, std::move(opt));
    const std::size_t workers = std::max<std::size_t>(policy.workers(), 1);
    if (workers == 1 || values.size() <= 1) {
        for (std::size_t k = 0; k < values.size(); ++k) w.write(row0[k], values[k]);
    } else {
        std::mutex guard;
        std::exception_ptr first;
        (void)map_blocks(policy, chunkwise::partition(values.size(), parts{workers * 4}), [&](const block& b) {
            for (std::size_t k = b.begin; k < b.end; ++k) {
                try {
                    w.write(row0[k], values[k]);
                } catch (...) {
                    const std::lock_guard<std::mutex> lock(guard);
                    if (!first) first = std::current_exception();
                    return 0;
                }
            }
            return 0;
        });
        if (first) std::rethrow_exception(first);
    }
    w.close();
}

/// write_blocks under MPI: every rank learns every block's rows (an all_gather of a few numbers), then streams its
/// own results, encoded by its own workers, through one collective h5::stream_writer (the root into the file, the
/// others through their spill files). No rank holds another's results.
template <class T, class Policy, class R>
void write_blocks_distributed(Policy& policy, const std::filesystem::path& file, const std::string& path,
                              const partial_results<R>& results, write_options opt) {
    const std::vector<R>& values = results.values();
    std::vector<std::vector<std::size_t>> mine;
    for (std::size_t k = 0; k < values.size(); ++k) {
        std::vector<std::size_t> v{results.indices()[k]};
        const auto s = result_shape(values[k]);
        v.insert(v.end(), s.begin(), s.end());
        mine.push_back(std::move(v));
    }
    partial_results<std::vector<std::size_t>> shapes(results.total_blocks(), results.indices(), std::move(mine), {});
    const std::vector<std::vector<std::size_t>> all = chunkwise::all_gather(policy, std::move(shapes));
    std::vector<std::size_t> shape, row0(results.total_blocks(), 0);
    for (const auto& v : all) {  // in block order, alike on every rank
        if (shape.empty()) {
            shape.assign(v.begin() + 1, v.end());
            shape[0] = 0;
        } else if (v.size() != shape.size() + 1 || !std::equal(v.begin() + 2, v.end(), shape.begin() + 1)) {
            throw error(file.string(), path, "write_blocks: block results disagree in shape beyond axis 0");
        }
        row0[v[0]] = shape[0];
        shape[0] += v[1];
    }
    if (shape.empty()) shape = {0};
    stream_writer<T> w(policy, file, path, shape, std::move(opt));
    auto body = [&](std::size_t k) { w.write(row0[results.indices()[k]], values[k]); };
    const exec_result r = chunkwise::detail::policy_access::execute_range(policy, 0, values.size(), body,
                                                                          on_error::fail_fast, policy.rank());
    try {
        w.close();  // collective: every rank comes here, its own writes failed or not
    } catch (...) {
        if (!r.failures.empty() && r.failures.front().error) std::rethrow_exception(r.failures.front().error);
        throw;
    }
}

}  // namespace detail

/// Writes `array` (an xtensor container: xarray, xtensor, in row-major order) into the new
/// dataset `path` of `file`, creating the file and intermediate groups as needed.
/// The file must not be open for reading in this process at the same time (an HDF5 rule): let
/// h5::dataset views of it go first. Under MPI, gather first and write on the root.
/// Every close is checked: when it returns, the data is in the file. When writing fails (a full
/// disk), nothing is left that blocks a retry: a file it created is removed, a dataset it added to
/// an existing file is unlinked.
/// \throws h5::error naming file and dataset if the dataset exists, the file cannot be written,
///         or the options do not fit the array
template <class Array>
void write(const std::filesystem::path& file, const std::string& path, const Array& array, write_options opt = {}) {
    using T = std::remove_cv_t<typename Array::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::write: the array's values must be an arithmetic type (not bool)");
    const auto& s = array.shape();
    std::vector<std::size_t> shape(s.begin(), s.end());
    detail::write_values<T>(file, path, shape, array.data(), std::move(opt));
}

/// Writes `values` as a 1-D dataset; otherwise as the array overload.
template <class T>
void write(const std::filesystem::path& file, const std::string& path, const std::vector<T>& values,
           write_options opt = {}) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::write: the values must be an arithmetic type (not bool)");
    detail::write_values<T>(file, path, {values.size()}, values.data(), std::move(opt));
}

/// Writes `records` as a new 1-D dataset of variable-length sequences of T (HDF5's vlen type, what
/// h5py's `vlen_dtype(T)` makes: h5py reads it as an object array of numpy arrays), creating the
/// file and groups as needed; read it back with `dataset::read_ragged`. Options as for write
/// (a chunk shape of one axis; compression applies to the records' heap references, not to their
/// values). With write_mode::append the records go at the end of an existing dataset of sequences of T
/// (made with write_options::growable), with update at its rows from `first_row`: threads may update
/// rows of one dataset at once, each call its own H5Dwrite under HDF5's lock (the values' heap has one
/// writer at a time). The same rules as write: the file must not be open for reading here; under MPI,
/// gather and write on the root.
/// \throws h5::error naming file and dataset if the dataset exists (create), does not hold sequences of T
///         or lacks the rows (append, update), the file cannot be written, or the options do not fit
template <class T>
void write_ragged(const std::filesystem::path& file, const std::string& path, const ragged<T>& records,
                  write_options opt = {}) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::write_ragged: the values must be an arithmetic type (not bool)");
    std::vector<hvl_t> refs(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const std::span<const T> r = records[i];
        refs[i].len = r.size();
        refs[i].p = const_cast<T*>(r.data());  // HDF5 only reads through it
    }
    detail::handle type;
    {
        detail::library_lock lock;
        type = detail::handle(H5Tvlen_create(detail::native_type<T>()), H5Tclose);
    }
    if (!type.valid()) {
        throw error(file.string(), detail::normalize_path(path),
                    "write_ragged: cannot make the variable-length type: " + detail::last_error());
    }
    if (opt.mode == write_mode::append || opt.mode == write_mode::update) {
        detail::write_existing(file, path, type.get(), sizeof(hvl_t), {records.size()},
                               {{0, records.size(), refs.data()}}, opt, records.values().size() * sizeof(T));
        return;
    }
    detail::write_raw(file, path, type.get(), sizeof(hvl_t), {records.size()}, refs.data(), std::move(opt),
                      records.values().size() * sizeof(T));
}

/// Writes every block's result into one new dataset, concatenated along axis 0 in block order:
/// block results are arrays of rank N (xtensor) or std::vector (rank 1), agreeing on every axis
/// but the first. Blocks that failed under on_error::collect are left out; with none left the
/// dataset is written empty (shape (0) for vectors), with serial and parallel HDF5 alike. Without
/// MPI the calling process writes. Under MPI it is collective: every rank passes the same file,
/// dataset, element type and options (else every rank throws std::invalid_argument naming each
/// rank's value), and every rank returns once the dataset is written, or throws the same h5::error:
/// with a parallel build of HDF5 (H5_HAVE_PARALLEL; Debian: CHUNKWISE_HDF5_FLAVOR=openmpi) and no codec, every rank
/// writes its own blocks through MPI-IO in one collective call, after the ranks have agreed that every rank's
/// results fit; otherwise every rank encodes its own results on its workers and streams them as h5::stream_writer
/// does under MPI (the root into the file, the others through spill files the root writes in at the end): no rank
/// gathers another's results. With write_mode::append or update the results go into the existing dataset instead,
/// each at its rows (from `first_row`), the same way.
/// \throws h5::error naming file and dataset
template <class Policy, class R>
void write_blocks(Policy& policy, const std::filesystem::path& file, const std::string& path,
                  partial_results<R>&& results, write_options opt = {}) {
    using T = std::remove_cv_t<typename R::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::write_blocks: block results must be arrays or vectors of an arithmetic type");
    const std::string f = file.string();
    const std::string p = detail::normalize_path(path);
    if constexpr (distributed_policy<Policy>) {
        // Every rank is writing the results of the same map_blocks call, to the same file and
        // dataset, with the same element type and options, or every rank throws (naming each
        // rank's value) before any collective file operation.
        using access = chunkwise::detail::policy_access;
        access::agree_on_call(policy, "h5::write_blocks", results.call_id(), results.total_blocks());
        std::error_code ec;
        const std::filesystem::path absolute = std::filesystem::absolute(file, ec).lexically_normal();
        access::check_same(policy, "files", ec ? f : absolute.string());
        access::check_same(policy, "datasets", p);
        access::check_same(policy, "element types", detail::element_type_of<T>().text);
        access::check_same(policy, "write_options", detail::options_text(opt));
    }
    if constexpr (!distributed_policy<Policy>) {
        if (opt.mode == write_mode::append || opt.mode == write_mode::update) {  // each result at its rows
            std::vector<std::size_t> row0;
            std::vector<std::size_t> shape = detail::joined_shape(results.values(), &row0, f, p);
            if (shape.empty()) shape = {0};
            std::vector<detail::rows_piece> pieces;
            for (std::size_t k = 0; k < row0.size(); ++k)
                pieces.push_back({row0[k], shape[0] == 0 ? 0 : detail::result_shape(results.values()[k])[0],
                                  results.values()[k].data()});
            detail::write_existing(file, p, detail::native_type<T>(), sizeof(T), shape, pieces, opt);
            return;
        }
        detail::write_blocks_streamed<T>(policy, file, p, results, std::move(opt));
        return;
    }
#if defined(CHUNKWISE_HDF5_PARALLEL) && CHUNKWISE_HDF5_PARALLEL
    // (Codecs HDF5 cannot apply go through the root, encoded there.)
    if constexpr (distributed_policy<Policy>) {
        if (opt.codec.empty() && opt.mode != write_mode::append && opt.mode != write_mode::update) {
            detail::write_blocks_collective<T>(policy, f, p, results, std::move(opt));
            return;
        }
    }
#endif
    if constexpr (distributed_policy<Policy>)
        detail::write_blocks_distributed<T>(policy, file, p, results, std::move(opt));
}

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/write.ipp>
#endif
