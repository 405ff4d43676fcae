#pragma once
/// \file
/// `chunkwise::h5::dataset`: a read-only view of one HDF5 dataset that reads rows in blocks,
/// decoding chunks in the calling thread (whole rows, selected `h5::indices` of one axis, or
/// ragged records); and `h5::read_buffer`, a worker's reusable buffer.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/attributes.hpp>
#include <chunkwise/detail/hdf5/dimensions.hpp>
#include <chunkwise/detail/hdf5/open.hpp>
#include <chunkwise/detail/hdf5/read/box.hpp>
#include <chunkwise/detail/hdf5/read/instances.hpp>
#include <chunkwise/detail/hdf5/read/ragged.hpp>
#include <chunkwise/detail/hdf5/read/select.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/ragged.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/tensor.hpp>

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

/// A buffer a worker reuses from block to block (the store-neutral `chunkwise::read_buffer`).
using chunkwise::read_buffer;
/// A selection of indices on one axis (the store-neutral `chunkwise::indices`): `ds.read<T,
/// N>(rows, h5::indices{1, {4, 8, 15}})` reads atoms 4, 8 and 15 of every frame in rows.
using indices = chunkwise::indices;
/// The view `dataset::read(rows, read_buffer&)` returns (`chunkwise::tensor_view`).
using chunkwise::tensor_view;

/// A read-only view of one dataset of an HDF5 file; cheap to copy, safe to read from many threads.
/// It models `chunkwise::chunked_array`, as zarr::array does.
///
/// Reads return rows [begin, end) of axis 0 with every other axis whole, as T. T must hold every
/// stored value exactly (an int16 dataset reads as int32 or float, a float64 one only as double or
/// long double; bool only from h5py's bool), unless the view was opened with
/// read_options{.convert = true}: then H5Dread's conversions apply. Contiguous datasets, and
/// chunked ones whose filters chunkwise decodes, are read with pread (or, into blocks of 16 MiB or
/// more, copied from mappings of the file; CHUNKWISE_HDF5_MMAP) outside any lock and decoded in
/// the calling thread: reading scales with threads. Everything else (filters without a decoder in
/// this build, chunks never written, conversions that round or clip) is read by H5Dread under
/// chunkwise's HDF5 lock: correct, serial. See docs/hdf5.md.
class dataset {
public:
    /// Opens `path` in `file` read-only ("a/b", "/a/b/" and "./a/b" name the same dataset).
    /// \throws h5::error naming the file and the dataset: no such file, not an HDF5 file (or
    ///         truncated or corrupted), no such dataset (naming what the nearest group holds), a
    ///         group where a dataset was expected, a scalar or null dataset, a shape too large
    ///         for this machine's address space, an impossible chunk shape
    dataset(const std::filesystem::path& file, const std::string& path, read_options opt = {})
            : s_(detail::open_dataset(file, path)), opt_(opt) {}

    /// The same dataset read with other options (shares everything else with this view).
    [[nodiscard]] dataset with(read_options opt) const;
    /// The read options of this view.
    [[nodiscard]] const read_options& options() const noexcept { return opt_; }

    /// Extent of every axis.
    [[nodiscard]] std::vector<std::size_t> shape() const { return s_->dims; }
    /// Number of axes.
    [[nodiscard]] std::size_t rank() const noexcept { return s_->dims.size(); }
    /// The chunk shape: the unit a partition never splits. A contiguous dataset reads in chunks of
    /// one row (every other axis whole).
    [[nodiscard]] std::vector<std::size_t> chunks() const;
    /// Chunk extent of every axis; nullopt when the dataset is not chunked.
    [[nodiscard]] std::optional<std::vector<std::size_t>> chunk_shape() const {
        if (s_->chunk.empty()) return std::nullopt;
        return s_->chunk;
    }
    /// The file's path, as given.
    [[nodiscard]] const std::string& file() const noexcept { return s_->file; }
    /// The dataset's absolute path in the file.
    [[nodiscard]] const std::string& path() const noexcept { return s_->path; }
    /// The stored type as numpy names it ("float32", "int16", "uint8", "bool"), as zarr::array::dtype;
    /// for types that are not numbers, their description ("string", "compound").
    [[nodiscard]] std::string dtype() const { return s_->type.numpy_name(); }
    /// The stored element type described, e.g. "32-bit float, big-endian".
    [[nodiscard]] const std::string& type_name() const noexcept { return s_->type.text; }
    /// Bytes per stored element.
    [[nodiscard]] std::size_t element_size() const noexcept { return s_->element_bytes; }
    /// Bytes the dataset's values take in the file (compressed where filtered; 0 where nothing was
    /// written): what a pass over the whole dataset reads from storage.
    [[nodiscard]] std::uint64_t stored_bytes() const;
    /// The codecs (HDF5 filters), in the order applied when writing (e.g. {"shuffle", "deflate"}),
    /// as zarr::array::codecs.
    [[nodiscard]] const std::vector<std::string>& codecs() const noexcept { return s_->filter_names; }
    /// The dataset's attributes (units, descriptions), as zarr::array::attrs.
    /// \throws h5::error naming an attribute chunkwise::attributes cannot hold (h5::attributes_of)
    [[nodiscard]] attributes attrs() const;
    /// The name of each axis, from the dimension scales attached to it (netCDF-4's dimensions; "" for
    /// an axis with none); a dimension scale's own name where the dataset is one (a coordinate
    /// variable); empty where the dataset names none. As zarr::array::dimensions.
    /// \throws h5::error where its dimension list cannot be read
    [[nodiscard]] std::vector<std::string> dimensions() const;
    /// The filter pipeline: codecs() under its HDF5 name.
    [[nodiscard]] const std::vector<std::string>& filters() const noexcept { return s_->filter_names; }
    /// True when reads into T decode in the calling thread, outside the lock (see the class comment).
    template <class T>
    [[nodiscard]] bool decodes_in_worker() const {
        if constexpr (std::is_same_v<T, bool>) {
            return detail::decodes_in_worker<std::uint8_t>(*s_);
        } else {
            return detail::decodes_in_worker<T>(*s_);
        }
    }

    /// Rows [rows.begin, rows.end) of axis 0, every other axis whole, as T, as a rank-N tensor.
    /// \throws h5::error (checked in this order, the same words as zarr::array) if N is not the
    ///         dataset's rank, rows lie outside it, T does not hold the stored values (or they are
    ///         not numbers), the read needs more memory than the machine has or allocating it fails,
    ///         or the file cannot be read
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows) const {
        const std::size_t count = check_read<T>(N, rows, nullptr);
        xt::xtensor<T, N> out;
        try {
            out = xt::xtensor<T, N>::from_shape(out_shape<N>(rows, nullptr));
        } catch (const std::bad_alloc&) {
            s_->fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }

    /// Rows [rows.begin, rows.end) of axis 0, every other axis whole, as T.
    /// \throws h5::error as the tensor read, except for the rank
    template <class T>
    [[nodiscard]] xt::xarray<T> read(const block& rows) const {
        const std::size_t count = check_read<T>(0, rows, nullptr);
        std::vector<std::size_t> shape = s_->dims;
        shape[0] = rows.size();
        xt::xarray<T> out;
        try {
            out = xt::xarray<T>::from_shape(shape);
        } catch (const std::bad_alloc&) {
            s_->fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }

    /// Rows [rows.begin, rows.end) into `buffer`, as a rank-N view valid until the next read into
    /// it: the block loop that allocates nothing per block.
    /// \throws h5::error as the tensor read
    template <class T, std::size_t N>
    [[nodiscard]] tensor_view<T, N> read(const block& rows, read_buffer<T>& buffer) const {
        const std::size_t count = check_read<T>(N, rows, nullptr);
        T* data = nullptr;
        try {
            data = buffer.reserve(count);
        } catch (const std::bad_alloc&) {
            s_->fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, std::span<T>(data, count));
        return view_of<T, N>(data, count, out_shape<N>(rows, nullptr));
    }

    /// Reads rows [rows.begin, rows.end) into `out`, which must hold exactly
    /// rows.size() * (elements per row) values. Counted as read time of the running block
    /// (chunkwise::read_scope).
    /// \throws h5::error as the tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, std::span<T> out) const {
        const std::size_t want = check_read<T>(0, rows, nullptr, out.size());
        if (want == 0) return;
        read_scope timing;
        const std::size_t n = rank();
        std::vector<std::size_t> lo(n, 0), hi = s_->dims;
        lo[0] = rows.begin;
        hi[0] = rows.end;
        if constexpr (std::is_same_v<T, bool>) {
            auto* bytes = reinterpret_cast<std::uint8_t*>(out.data());
            detail::read_box<std::uint8_t>(*s_, lo.data(), hi.data(), bytes);
            for (std::size_t i = 0; i < want; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
        } else {
            detail::read_box<T>(*s_, lo.data(), hi.data(), out.data());
        }
    }

    /// Rows [rows.begin, rows.end) of axis 0 and, on `sel.axis`, only the indices `sel.idx` in
    /// their order (duplicates allowed), every other axis whole: shape (rows, ..., idx.size(), ...).
    /// Chunks holding none of the indices are not read; chunks are decoded as for whole rows
    /// (outside the lock where the class comment says), each at most once per call.
    /// \throws h5::error as the tensor read, or naming the axis or the index that lies outside
    ///         the dataset
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows, const indices& sel) const {
        const std::size_t count = check_read<T>(N, rows, &sel);
        xt::xtensor<T, N> out;
        try {
            out = xt::xtensor<T, N>::from_shape(out_shape<N>(rows, &sel));
        } catch (const std::bad_alloc&) {
            s_->fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, sel, std::span<T>(out.data(), out.size()));
        return out;
    }

    /// Reads rows [rows.begin, rows.end) of the indices `sel` (as the tensor read above) into
    /// `out`, which must hold exactly that many values. Counted as read time.
    /// \throws h5::error as the indexed tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, const indices& sel, std::span<T> out) const {
        const std::size_t want = check_read<T>(0, rows, &sel, out.size());
        if (want == 0) return;
        read_scope timing;
        if constexpr (std::is_same_v<T, bool>) {
            auto* bytes = reinterpret_cast<std::uint8_t*>(out.data());
            detail::read_selected<std::uint8_t>(*s_, rows.begin, rows.end, sel.axis, sel.idx, bytes);
            for (std::size_t i = 0; i < want; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
        } else {
            detail::read_selected<T>(*s_, rows.begin, rows.end, sel.axis, sel.idx, out.data());
        }
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
            s_->fail("read_ragged: holds " + s_->type.numpy_name() +
                     " values, not variable-length sequences of numbers" +
                     (s_->type.numeric && s_->type_defect.empty()
                          ? std::string(" (read it with read)")
                          : std::string("; chunkwise reads numbers, enums (as their integers) and variable-length "
                                        "sequences of them, not this type")));
        }
        if (rank() != 1) {
            s_->fail("read_ragged: reads 1-D datasets of records; this one has shape " + detail::shape_text(s_->dims));
        }
        if (const std::string why = chunkwise::detail::rows_problem(rows, s_->dims); !why.empty()) s_->fail(why);
        read_scope timing;
        return detail::read_vlen<T>(*s_, rows.begin, rows.end);
    }

private:
    /// The shape of a rank-N read of rows (and `sel`).
    template <std::size_t N>
    std::array<std::size_t, N> out_shape(const block& rows, const indices* sel) const {
        std::array<std::size_t, N> shape{};
        shape[0] = rows.size();
        for (std::size_t d = 1; d < N; ++d) shape[d] = sel != nullptr && d == sel->axis ? sel->idx.size() : s_->dims[d];
        return shape;
    }

    /// Checks a read of `rows` (and `sel`) into T: of rank n (0: any), into a buffer of `have`
    /// values (npos: one to be allocated), in the order and words zarr::array checks them. Returns
    /// the values the read gives. \throws h5::error naming what is wrong
    template <class T>
    std::size_t check_read(std::size_t n, const block& rows, const indices* sel,
                           std::size_t have = static_cast<std::size_t>(-1)) const {
        static_assert(std::is_arithmetic_v<T>, "chunkwise::h5::dataset::read: T must be an arithmetic type");
        namespace cd = chunkwise::detail;
        std::string why = n != 0 ? cd::rank_problem(n, s_->dims) : std::string();
        if (why.empty()) why = cd::rows_problem(rows, s_->dims);
        if (why.empty() && sel != nullptr) why = cd::selection_problem(*sel, s_->dims);
        if (why.empty()) why = type_problem<T>();
        double values = static_cast<double>(rows.size());
        for (std::size_t d = 1; d < rank(); ++d)
            values *= static_cast<double>(sel != nullptr && d == sel->axis ? sel->idx.size() : s_->dims[d]);
        if (why.empty() && have != static_cast<std::size_t>(-1)) {
            why = cd::buffer_problem(have, static_cast<std::size_t>(values), rows);
        } else if (why.empty()) {
            why = cd::memory_problem(values, sizeof(T), rows);
        }
        if (!why.empty()) s_->fail(why);
        return static_cast<std::size_t>(values);
    }

    /// "" where T may read the stored values, else why not.
    template <class T>
    std::string type_problem() const {
        if (!s_->type_defect.empty()) return "has an unusable element type (" + s_->type_defect + "; corrupted?)";
        if (!s_->type.numeric) {
            return "holds " +
                   (s_->ragged ? "variable-length sequences of " + s_->ragged_base.numpy_name() : s_->type.text) +
                   " values, which do not convert to a number type" +
                   (s_->ragged ? std::string(" (read them with read_ragged)")
                               : std::string("; chunkwise reads numbers, enums (as their integers) and "
                                             "variable-length sequences of them, not this type"));
        }
        if (std::is_same_v<T, bool> && !s_->type.is_bool)
            return "stored as " + dtype() + ", not as bool: bool reads arrays stored as bool";
        if (!opt_.convert && !detail::holds_exactly<T>(s_->type))
            return chunkwise::detail::conversion_problem<T>(dtype());
        return {};
    }

    friend struct detail::dataset_access;
    std::shared_ptr<const detail::dataset_state> s_;
    read_options opt_;
};

namespace detail {
/// The state behind a dataset view (for chunkwise's own tests of what a read path relies on).
struct dataset_access {
    static const dataset_state& state(const dataset& d) noexcept { return *d.s_; }
};
}  // namespace detail

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/dataset.ipp>
#endif
