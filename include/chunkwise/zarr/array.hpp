#pragma once
/// \file
/// `chunkwise::zarr::array`: a read-only view of one Zarr array (v2 or v3) in a directory store
/// that reads rows in blocks, decoding chunks in the calling thread with no lock.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/attributes.hpp>
#include <chunkwise/detail/zarr/open.hpp>
#include <chunkwise/detail/zarr/read_box.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/tensor.hpp>
#include <chunkwise/zarr/error.hpp>

#include <array>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace chunkwise::zarr {

/// A selection of indices on one axis (the store-neutral `chunkwise::indices`, as h5::indices).
using indices = chunkwise::indices;
/// A buffer a worker reuses from block to block (`chunkwise::read_buffer`).
using chunkwise::read_buffer;
/// The view `array::read(rows, read_buffer&)` returns (`chunkwise::tensor_view`).
using chunkwise::tensor_view;

/// A read-only view of one Zarr array in a directory store: v2 (`.zarray`, or the parent's
/// consolidated `.zmetadata`) or v3 (`zarr.json`). Cheap to copy, safe to read from many threads:
/// each read decodes the chunks it touches in the calling thread (codecs as docs/zarr.md lists),
/// and chunks with no file read as the fill value. It models `chunkwise::chunked_array`, as
/// h5::dataset does, and reads by the same rules: T must hold every stored value exactly (bool
/// only from bool arrays), unless the view was opened with read_options{.convert = true}.
class array {
public:
    /// Opens the array stored in the directory `path`.
    /// \throws zarr::error naming the store if it is missing, is a file, or its metadata is
    ///         missing or malformed or names a type chunkwise does not read
    explicit array(const std::filesystem::path& path, read_options opt = {});

    /// The same array read with other options (shares everything else with this view).
    [[nodiscard]] array with(read_options opt) const;
    /// The read options of this view.
    [[nodiscard]] const read_options& options() const noexcept { return opt_; }

    /// The store's directory.
    [[nodiscard]] const std::string& store() const noexcept { return s_->store; }
    /// The store's directory (kept for one release: store()).
    [[nodiscard]] const std::string& path() const noexcept { return s_->store; }
    /// 2 or 3.
    [[nodiscard]] int format() const noexcept { return s_->m.format; }
    /// The extent of each axis.
    [[nodiscard]] std::vector<std::size_t> shape() const { return s_->m.shape; }
    /// The number of axes.
    [[nodiscard]] std::size_t rank() const noexcept { return s_->m.shape.size(); }
    /// The chunk shape (for a sharded v3 array the inner chunk: the unit of reading).
    [[nodiscard]] std::vector<std::size_t> chunks() const {
        return s_->m.codecs.shard ? s_->m.codecs.shard->inner : s_->m.chunks;
    }
    /// The shard shape of a sharded v3 array (the unit of writing), else chunks().
    [[nodiscard]] const std::vector<std::size_t>& shards() const noexcept { return s_->m.chunks; }
    /// The stored type as numpy names it ("float64", "int16", "uint8", "bool"), as h5::dataset::dtype.
    [[nodiscard]] std::string dtype() const { return s_->m.type.name(); }
    /// True where the values are stored big-endian.
    [[nodiscard]] bool big_endian() const noexcept { return s_->m.type.big; }
    /// The size of one stored value in bytes.
    [[nodiscard]] std::size_t element_size() const noexcept { return s_->m.type.size; }
    /// The codec names in encoding order, as the metadata names them (v2: filters then compressor;
    /// v3: the bytes codecs, after "sharding_indexed" where sharded), as h5::dataset::codecs.
    [[nodiscard]] std::vector<std::string> codecs() const;
    /// The user attributes (.zattrs, or zarr.json's "attributes") as JSON text.
    [[nodiscard]] std::string attributes() const { return s_->m.attributes.dump(); }
    /// The user attributes, as h5::dataset::attrs (in format 2 without _ARRAY_DIMENSIONS, which
    /// dimensions() reads).
    /// \throws zarr::error naming an attribute chunkwise::attributes cannot hold (a boolean, null,
    ///         an object, a mixed list: attributes() gives its JSON text)
    [[nodiscard]] chunkwise::attributes attrs() const;
    /// The name of each axis (format 2: the _ARRAY_DIMENSIONS attribute xarray writes; format 3:
    /// "dimension_names", "" for a null name); empty where the array names none.
    /// \throws zarr::error where _ARRAY_DIMENSIONS is not a list of one name per axis
    [[nodiscard]] std::vector<std::string> dimensions() const;

    /// Rows [rows.begin, rows.end) of axis 0, every other axis whole, as T, as a rank-N tensor.
    /// \throws zarr::error (checked in this order, the same words as h5::dataset) if N is not the
    ///         array's rank, rows lie outside it, T does not hold the stored values, the read needs
    ///         more memory than the machine has or allocating it fails, or a chunk is damaged
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows) const {
        const std::size_t count = check_read<T>(N, rows, nullptr);
        xt::xtensor<T, N> out;
        try {
            out = xt::xtensor<T, N>::from_shape(out_shape<N>(rows, nullptr));
        } catch (const std::bad_alloc&) {
            fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// Rows [rows.begin, rows.end), every other axis whole, as T, of any rank.
    /// \throws zarr::error as the tensor read, except for the rank
    template <class T>
    [[nodiscard]] xt::xarray<T> read(const block& rows) const {
        const std::size_t count = check_read<T>(0, rows, nullptr);
        std::vector<std::size_t> shape = s_->m.shape;
        shape[0] = rows.size();
        xt::xarray<T> out;
        try {
            out = xt::xarray<T>::from_shape(shape);
        } catch (const std::bad_alloc&) {
            fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// Rows [rows.begin, rows.end) into `buffer`, as a rank-N view valid until the next read into
    /// it: the block loop that allocates nothing per block.
    /// \throws zarr::error as the tensor read
    template <class T, std::size_t N>
    [[nodiscard]] tensor_view<T, N> read(const block& rows, read_buffer<T>& buffer) const {
        const std::size_t count = check_read<T>(N, rows, nullptr);
        T* data = nullptr;
        try {
            data = buffer.reserve(count);
        } catch (const std::bad_alloc&) {
            fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, std::span<T>(data, count));
        return view_of<T, N>(data, count, out_shape<N>(rows, nullptr));
    }
    /// Rows [rows.begin, rows.end) into `out`, which must hold exactly that many values (row-major).
    /// Counted as read time of the running block (chunkwise::read_scope).
    /// \throws zarr::error as the tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, std::span<T> out) const {
        check_read<T>(0, rows, nullptr, out.size());
        detail::request q;
        q.lo.assign(rank(), 0);
        q.hi = s_->m.shape;
        q.lo[0] = rows.begin;
        q.hi[0] = rows.end;
        q.out_shape = q.hi;
        q.out_shape[0] = rows.size();
        run<T>(q, out);
    }

    /// Rows [rows.begin, rows.end) and, on `sel.axis`, only the indices `sel.idx` in their order
    /// (duplicates allowed), every other axis whole. Chunks holding none of the indices are not read.
    /// \throws zarr::error as the tensor read, or naming the axis or index outside the array
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows, const indices& sel) const {
        const std::size_t count = check_read<T>(N, rows, &sel);
        xt::xtensor<T, N> out;
        try {
            out = xt::xtensor<T, N>::from_shape(out_shape<N>(rows, &sel));
        } catch (const std::bad_alloc&) {
            fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, sel, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// As the tensor read with indices, of any rank.
    /// \throws zarr::error as the indexed tensor read, except for the rank
    template <class T>
    [[nodiscard]] xt::xarray<T> read(const block& rows, const indices& sel) const {
        const std::size_t count = check_read<T>(0, rows, &sel);
        std::vector<std::size_t> shape = s_->m.shape;
        shape[0] = rows.size();
        shape[sel.axis] = sel.idx.size();
        xt::xarray<T> out;
        try {
            out = xt::xarray<T>::from_shape(shape);
        } catch (const std::bad_alloc&) {
            fail(chunkwise::detail::allocation_problem(static_cast<double>(count), sizeof(T), rows));
        }
        read_into(rows, sel, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// The selection read into `out`, which must hold exactly that many values.
    /// \throws zarr::error as the indexed tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, const indices& sel, std::span<T> out) const {
        check_read<T>(0, rows, &sel, out.size());
        detail::request q;
        q.lo.assign(rank(), 0);
        q.hi = s_->m.shape;
        q.lo[0] = rows.begin;
        q.hi[0] = rows.end;
        q.out_shape = q.hi;
        q.out_shape[0] = rows.size();
        q.out_shape[sel.axis] = sel.idx.size();
        q.sel_axis = sel.axis;
        q.sel = &sel.idx;
        run<T>(q, out);
    }

    /// One stored chunk's bytes (a chunk file of an array that is not sharded) decoded by the
    /// array's codecs: the chunk's values as stored (their type and byte order, row-major over the
    /// chunk, F order or transposed as the metadata says), in this thread's buffers (or `stored`
    /// itself where there is no codec), valid until its next decode_chunk. For tools and
    /// benchmarks that time the codecs alone.
    /// \throws zarr::error if the array is sharded or the bytes do not decode to one chunk
    [[nodiscard]] std::span<const unsigned char> decode_chunk(std::span<const unsigned char> stored) const;
    /// True for a sharded v3 array (sharding_indexed).
    [[nodiscard]] bool sharded() const noexcept { return s_->m.codecs.shard != nullptr; }

private:
    [[noreturn]] void fail(const std::string& what) const { throw error(s_->store, "", what); }

    /// The shape of a rank-N read of rows (and `sel`).
    template <std::size_t N>
    std::array<std::size_t, N> out_shape(const block& rows, const indices* sel) const {
        std::array<std::size_t, N> shape{};
        shape[0] = rows.size();
        for (std::size_t d = 1; d < N; ++d)
            shape[d] = sel != nullptr && d == sel->axis ? sel->idx.size() : s_->m.shape[d];
        return shape;
    }

    /// Checks a read of `rows` (and `sel`) into T: of rank n (0: any), into a buffer of `have`
    /// values (npos: one to be allocated), in the order and words h5::dataset checks them. Returns
    /// the values the read gives. \throws zarr::error naming what is wrong
    template <class T>
    std::size_t check_read(std::size_t n, const block& rows, const indices* sel,
                           std::size_t have = static_cast<std::size_t>(-1)) const {
        static_assert(std::is_arithmetic_v<T>, "chunkwise::zarr::array::read: T must be an arithmetic type");
        namespace cd = chunkwise::detail;
        const std::vector<std::size_t>& dims = s_->m.shape;
        std::string why = n != 0 ? cd::rank_problem(n, dims) : std::string();
        if (why.empty()) why = cd::rows_problem(rows, dims);
        if (why.empty() && sel != nullptr) why = cd::selection_problem(*sel, dims);
        if (why.empty() && std::is_same_v<T, bool> && s_->m.type.kind != 'b')
            why = "stored as " + dtype() + ", not as bool: bool reads arrays stored as bool";
        if (why.empty() && !opt_.convert && !detail::holds_exactly<T>(s_->m.type))
            why = cd::conversion_problem<T>(dtype());
        double values = static_cast<double>(rows.size());
        for (std::size_t d = 1; d < rank(); ++d)
            values *= static_cast<double>(sel != nullptr && d == sel->axis ? sel->idx.size() : dims[d]);
        if (why.empty() && have != static_cast<std::size_t>(-1)) {
            why = cd::buffer_problem(have, static_cast<std::size_t>(values), rows);
        } else if (why.empty()) {
            why = cd::memory_problem(values, sizeof(T), rows);
        }
        if (!why.empty()) fail(why);
        return static_cast<std::size_t>(values);
    }

    template <class T>
    void run(detail::request& q, std::span<T> out) const {
        std::size_t want = 1;
        for (std::size_t e : q.out_shape) want *= e;
        if (want == 0) return;
        read_scope timing;
        try {
            detail::read_request<T>(*s_, q, out.data());
        } catch (const std::bad_alloc&) {
            fail("out of memory decoding a chunk of " + std::to_string(s_->m.type.size) + "-byte values");
        }
    }

    std::shared_ptr<detail::state> s_;
    read_options opt_;
};

}  // namespace chunkwise::zarr

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/zarr/array.ipp>
#endif
