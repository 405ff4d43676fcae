#pragma once
/// \file
/// `chunkwise::h5::dataset`: a read-only view of one HDF5 dataset that reads rows in blocks,
/// decoding chunks in the calling thread (whole rows, selected `h5::indices` of one axis, or
/// ragged records); and `h5::read_buffer`, a worker's reusable buffer.

#include <chunkwise/detail/hdf5/open.hpp>
#include <chunkwise/detail/hdf5/read/box.hpp>
#include <chunkwise/detail/hdf5/read/ragged.hpp>
#include <chunkwise/detail/hdf5/read/select.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/detail/hdf5/xtensor.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/ragged.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/stats.hpp>

#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::h5 {

class dataset;
namespace detail {
struct dataset_access;
}

/// A buffer a worker reuses from block to block: `ds.read<T, N>(rows, buffer)` fills it and
/// returns an xtensor view of the block in it, so a pass over many blocks allocates (and page
/// faults) once per worker, not once per block. It grows to the largest block read and keeps
/// that size; the view is valid until the next read into the same buffer. Keep one per thread
/// (e.g. `thread_local` inside the block function).
template <class T>
class read_buffer {
public:
    read_buffer() = default;
    /// Elements it holds room for.
    [[nodiscard]] std::size_t capacity() const noexcept { return storage_.size(); }
    /// Gives back the memory.
    void release() noexcept { std::vector<T>().swap(storage_); }

    /// Room for at least `elements` values; returns their start. (For dataset::read.)
    T* reserve(std::size_t elements) {
        if (storage_.size() < elements) {
            std::vector<T>().swap(storage_);  // never hold the old and the new at once
            storage_.resize(elements);
        }
        return storage_.data();
    }

private:
    std::vector<T> storage_;
};

/// A selection of indices on one axis (1 or more; axis 0 holds the rows): `idx` in the order
/// wanted, duplicates allowed. `ds.read<T, N>(rows, h5::indices{1, {4, 8, 15}})` reads atoms 4, 8
/// and 15 of every frame in rows.
struct indices {
    std::size_t axis = 1;          ///< the axis the indices select on (>= 1)
    std::vector<std::size_t> idx;  ///< the indices, in output order
};

/// The view `dataset::read(rows, read_buffer&)` returns: an xtensor expression of rank N over
/// the buffer's memory (shape(), data(), element access, any xtensor function).
template <class T, std::size_t N>
using tensor_view = decltype(xt::adapt(std::declval<T*>(), std::size_t{}, xt::no_ownership(),
                                       std::declval<std::array<std::size_t, N>>()));

/// A read-only view of one dataset of an HDF5 file; cheap to copy, safe to read from many threads.
///
/// Reads return rows [begin, end) of axis 0 with every other axis whole, converted to T as
/// H5Dread converts them. Contiguous datasets, and chunked ones with no filters or only deflate
/// and shuffle, whose values T holds exactly, are read with pread (or, into blocks of 16 MiB or
/// more, copied from mappings of the file; CHUNKWISE_HDF5_MMAP) outside any lock and decoded
/// (inflate, unshuffle, convert) in the calling thread: reading scales with threads. Everything
/// else (other filters, conversions that round or clip, chunks never written) is read by H5Dread
/// under chunkwise's HDF5 lock: correct, serial. See docs/hdf5.md.
class dataset {
public:
    /// Opens `path` in `file` read-only ("a/b", "/a/b/" and "./a/b" name the same dataset).
    /// \throws h5::error naming the file and the dataset: no such file, not an HDF5 file (or
    ///         truncated or corrupted), no such dataset (naming what the nearest group holds), a
    ///         group where a dataset was expected, a scalar or null dataset, a shape too large
    ///         for this machine's address space, an impossible chunk shape
    dataset(const std::filesystem::path& file, const std::string& path) : s_(detail::open_dataset(file, path)) {}

    /// Extent of every axis.
    [[nodiscard]] std::vector<std::size_t> shape() const { return s_->dims; }
    /// Number of axes.
    [[nodiscard]] std::size_t rank() const noexcept { return s_->dims.size(); }
    /// Chunk extent of every axis; nullopt when the dataset is not chunked.
    [[nodiscard]] std::optional<std::vector<std::size_t>> chunk_shape() const {
        if (s_->chunk.empty()) return std::nullopt;
        return s_->chunk;
    }
    /// The file's path, as given.
    [[nodiscard]] const std::string& file() const noexcept { return s_->file; }
    /// The dataset's absolute path in the file.
    [[nodiscard]] const std::string& path() const noexcept { return s_->path; }
    /// The stored element type, e.g. "32-bit float, big-endian".
    [[nodiscard]] const std::string& type_name() const noexcept { return s_->type.text; }
    /// Bytes per stored element.
    [[nodiscard]] std::size_t element_size() const noexcept { return s_->element_bytes; }
    /// Bytes the dataset's values take in the file (compressed where filtered; 0 where nothing was
    /// written): what a pass over the whole dataset reads from storage.
    [[nodiscard]] std::uint64_t stored_bytes() const {
        detail::library_lock lock;
        const hsize_t bytes = H5Dget_storage_size(s_->dset_h.get());
        H5Eclear2(H5E_DEFAULT);
        return static_cast<std::uint64_t>(bytes);
    }
    /// The filter pipeline, in the order applied when writing (e.g. {"shuffle", "deflate"}).
    [[nodiscard]] const std::vector<std::string>& filters() const noexcept { return s_->filter_names; }
    /// True when reads into T decode in the calling thread, outside the lock (see the class comment).
    template <class T>
    [[nodiscard]] bool decodes_in_worker() const {
        return detail::decodes_in_worker<T>(*s_);
    }

    /// Rows [rows.begin, rows.end) of axis 0, every other axis whole, converted to T, as a
    /// rank-N tensor.
    /// \throws h5::error if N is not the dataset's rank, the stored type does not convert to a
    ///         number, rows lie outside the dataset, memory runs out, or the file cannot be read
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows) const {
        const auto shape = tensor_shape<N>(rows);
        check_allocation<T>(rows);
        xt::xtensor<T, N> out;
        try {
            out = xt::xtensor<T, N>::from_shape(shape);
        } catch (const std::bad_alloc&) {
            allocation_failed<T>(rows);
        }
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }

    /// Rows [rows.begin, rows.end) of axis 0, every other axis whole, converted to T.
    /// \throws h5::error as the tensor read, except for the rank
    template <class T>
    [[nodiscard]] xt::xarray<T> read(const block& rows) const {
        check_rows(rows);
        std::vector<std::size_t> shape = s_->dims;
        shape[0] = rows.size();
        check_allocation<T>(rows);
        xt::xarray<T> out;
        try {
            out = xt::xarray<T>::from_shape(shape);
        } catch (const std::bad_alloc&) {
            allocation_failed<T>(rows);
        }
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }

    /// Rows [rows.begin, rows.end) into `buffer`, as a rank-N view valid until the next read into
    /// it: the block loop that allocates nothing per block.
    /// \throws h5::error as the tensor read
    template <class T, std::size_t N>
    [[nodiscard]] tensor_view<T, N> read(const block& rows, read_buffer<T>& buffer) const {
        const auto shape = tensor_shape<N>(rows);
        const std::size_t count = rows.size() * s_->row_elements;
        check_allocation<T>(rows);
        T* data = nullptr;
        try {
            data = buffer.reserve(count);
        } catch (const std::bad_alloc&) {
            allocation_failed<T>(rows);
        }
        read_into(rows, std::span<T>(data, count));
        return xt::adapt(static_cast<T*>(data), count, xt::no_ownership(),
                         shape);  // a prvalue: the view holds the pointer, not a reference to it
    }

    /// Reads rows [rows.begin, rows.end) into `out`, which must hold exactly
    /// rows.size() * (elements per row) values. Counted as read time of the running block
    /// (chunkwise::read_scope).
    /// \throws h5::error as the tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, std::span<T> out) const {
        check_type<T>();
        check_rows(rows);
        const std::size_t want = rows.size() * s_->row_elements;
        if (out.size() != want) {
            s_->fail("read_into: the buffer holds " + std::to_string(out.size()) + " values, rows [" +
                     std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ") need " + std::to_string(want));
        }
        if (want == 0) return;
        read_scope timing;
        const std::size_t n = rank();
        std::vector<std::size_t> lo(n, 0), hi = s_->dims;
        lo[0] = rows.begin;
        hi[0] = rows.end;
        detail::read_box<T>(*s_, lo.data(), hi.data(), out.data());
    }

    /// Rows [rows.begin, rows.end) of axis 0 and, on `sel.axis`, only the indices `sel.idx` in
    /// their order (duplicates allowed), every other axis whole: shape (rows, ..., idx.size(), ...).
    /// Chunks holding none of the indices are not read; chunks are decoded as for whole rows
    /// (outside the lock where the class comment says), each at most once per call.
    /// \throws h5::error as the tensor read, or naming the axis or the index that lies outside
    ///         the dataset
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows, const indices& sel) const {
        std::array<std::size_t, N> shape = tensor_shape<N>(rows);
        detail::check_selection(*s_, sel.axis, sel.idx);
        shape[sel.axis] = sel.idx.size();
        double count = 1;
        for (std::size_t d : shape) count *= static_cast<double>(d);
        check_values<T>(count, rows);
        xt::xtensor<T, N> out;
        try {
            out = xt::xtensor<T, N>::from_shape(shape);
        } catch (const std::bad_alloc&) {
            allocation_failed<T>(rows);
        }
        read_into(rows, sel, std::span<T>(out.data(), out.size()));
        return out;
    }

    /// Reads rows [rows.begin, rows.end) of the indices `sel` (as the tensor read above) into
    /// `out`, which must hold exactly that many values. Counted as read time.
    /// \throws h5::error as the indexed tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, const indices& sel, std::span<T> out) const {
        check_type<T>();
        check_rows(rows);
        detail::check_selection(*s_, sel.axis, sel.idx);
        std::size_t want = rows.size();  // rows x every other axis, the selected one counting idx.size()
        for (std::size_t d = 1; d < rank(); ++d) want *= d == sel.axis ? sel.idx.size() : s_->dims[d];
        if (out.size() != want) {
            s_->fail("read_into: the buffer holds " + std::to_string(out.size()) + " values, rows [" +
                     std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ") of " +
                     std::to_string(sel.idx.size()) + " indices on axis " + std::to_string(sel.axis) + " need " +
                     std::to_string(want));
        }
        if (want == 0) return;
        read_scope timing;
        detail::read_selected<T>(*s_, rows.begin, rows.end, sel.axis, sel.idx, out.data());
    }

    /// True when the dataset holds variable-length sequences of numbers (read them with read_ragged).
    [[nodiscard]] bool is_ragged() const noexcept { return s_->ragged; }
    /// True when the values convert to a number type (read them with read / read_into).
    [[nodiscard]] bool is_numeric() const noexcept { return s_->type.numeric && s_->type_defect.empty(); }

    /// Records [rows.begin, rows.end) of a 1-D variable-length dataset (as h5py's
    /// `vlen_dtype(...)` writes), converted to T by HDF5's rules. The records are read by HDF5
    /// under chunkwise's lock (their values live in HDF5's global heap) and copied outside it.
    /// Counted as read time.
    /// \throws h5::error if the dataset is not variable-length numbers or not 1-D, rows lie
    ///         outside it, or the file cannot be read
    template <class T>
    [[nodiscard]] ragged<T> read_ragged(const block& rows) const {
        static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                      "chunkwise::h5::dataset::read_ragged: T must be an arithmetic type (not bool)");
        if (!s_->ragged) {
            // Point to read only where read can serve it: never in a circle.
            s_->fail("read_ragged: holds " + s_->type.text + " values, not variable-length sequences of numbers" +
                     (s_->type.numeric && s_->type_defect.empty()
                          ? std::string(" (read it with read)")
                          : std::string("; chunkwise reads numbers, enums (as their integers) and variable-length "
                                        "sequences of them, not this type")));
        }
        if (rank() != 1) {
            s_->fail("read_ragged: reads 1-D datasets of records; this one has shape " + detail::shape_text(s_->dims));
        }
        check_rows(rows);
        read_scope timing;
        return detail::read_vlen<T>(*s_, rows.begin, rows.end);
    }

private:
    template <std::size_t N>
    std::array<std::size_t, N> tensor_shape(const block& rows) const {
        if (N != rank()) {
            s_->fail("read<T, " + std::to_string(N) + ">: the dataset has rank " + std::to_string(rank()) + " (shape " +
                     detail::shape_text(s_->dims) + ")");
        }
        check_rows(rows);
        std::array<std::size_t, N> shape{};
        shape[0] = rows.size();
        for (std::size_t d = 1; d < N; ++d) shape[d] = s_->dims[d];
        return shape;
    }

    // Refuses, before allocating, a read larger than this machine's memory (an allocation that
    // size cannot succeed; sanitizers abort on it rather than throw).
    template <class T>
    void check_allocation(const block& rows) const {
        check_values<T>(static_cast<double>(rows.size()) * static_cast<double>(s_->row_elements), rows);
    }
    template <class T>
    void check_values(double values, const block& rows) const {
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        if (pages <= 0 || page <= 0) return;
        const double memory = static_cast<double>(pages) * static_cast<double>(page);
        const double bytes = values * sizeof(T);
        if (bytes > memory) {
            s_->fail("rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ") need " +
                     std::to_string(bytes) + " bytes as " + std::to_string(sizeof(T)) +
                     "-byte values, more than this machine's memory (" + std::to_string(memory) +
                     " bytes): cannot allocate them; read fewer rows");
        }
    }

    template <class T>
    [[noreturn]] void allocation_failed(const block& rows) const {
        s_->fail("cannot allocate " + std::to_string(rows.size()) + " rows of " + std::to_string(s_->row_elements) +
                 " values of " + std::to_string(sizeof(T)) + " bytes for rows [" + std::to_string(rows.begin) + ", " +
                 std::to_string(rows.end) + ")");
    }

    void check_rows(const block& rows) const {
        if (rows.begin > rows.end || rows.end > s_->dims[0]) {
            s_->fail("rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) +
                     ") are outside axis 0 of extent " + std::to_string(s_->dims[0]));
        }
    }

    template <class T>
    void check_type() const {
        static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                      "chunkwise::h5::dataset::read: T must be an arithmetic type (not bool)");
        if (!s_->type_defect.empty()) {
            s_->fail("has an unusable element type (" + s_->type_defect + "; corrupted?)");
        }
        if (!s_->type.numeric) {
            s_->fail("holds " + s_->type.text + " values, which do not convert to a number type" +
                     (s_->ragged ? std::string(" (read them with read_ragged)")
                                 : std::string("; chunkwise reads numbers, enums (as their integers) and "
                                               "variable-length sequences of them, not this type")));
        }
    }

    friend struct detail::dataset_access;
    std::shared_ptr<const detail::dataset_state> s_;
};

namespace detail {
/// The state behind a dataset view (for chunkwise's own tests of what a read path relies on).
struct dataset_access {
    static const dataset_state& state(const dataset& d) noexcept { return *d.s_; }
};
}  // namespace detail

}  // namespace chunkwise::h5
