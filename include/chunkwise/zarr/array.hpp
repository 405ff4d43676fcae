#pragma once
/// \file
/// `chunkwise::zarr::array`: a read-only view of one Zarr array (v2 or v3) in a directory store
/// that reads rows in blocks, decoding chunks in the calling thread with no lock.

#include <chunkwise/detail/hdf5/xtensor.hpp>  // xtensor's headers where 0.25 and 0.27 keep them
#include <chunkwise/detail/zarr/read.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/stats.hpp>
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

/// A selection of indices on one axis (>= 1; axis 0 holds the rows), as h5::indices: `idx` in the
/// order wanted, duplicates allowed.
struct indices {
    std::size_t axis = 1;          ///< the axis the indices select on (>= 1)
    std::vector<std::size_t> idx;  ///< the indices, in output order
};

/// A read-only view of one Zarr array in a directory store: v2 (`.zarray`, or the parent's
/// consolidated `.zmetadata`) or v3 (`zarr.json`). Cheap to copy, safe to read from many threads:
/// each read decodes the chunks it touches in the calling thread (codecs as docs/zarr.md lists),
/// and chunks with no file read as the fill value.
class array {
public:
    /// Opens the array stored in the directory `path`.
    /// \throws zarr::error naming the store if it is missing, is a file, or its metadata is
    ///         missing or malformed or names a type chunkwise does not read
    explicit array(const std::filesystem::path& path) : s_(std::make_shared<detail::state>()) {
        namespace fs = std::filesystem;
        s_->store = path.string();
        while (s_->store.size() > 1 && s_->store.back() == '/') s_->store.pop_back();
        std::error_code ec;
        const auto st = fs::status(path, ec);
        if (!fs::exists(st)) throw error(s_->store, "", "no such store (directory)");
        if (!fs::is_directory(st)) throw error(s_->store, "", "is a file, not a directory store");
        if (fs::exists(path / "zarr.json")) {
            s_->m = detail::parse_v3(s_->store, load(path / "zarr.json"));
        } else if (fs::exists(path / ".zarray")) {
            s_->m = detail::parse_v2(s_->store, load(path / ".zarray"));
            if (fs::exists(path / ".zattrs")) s_->m.attributes = load(path / ".zattrs");
        } else if (const auto c = consolidated(path)) {
            s_->m = detail::parse_v2(s_->store, *c);
        } else {
            throw error(s_->store, "", "holds neither .zarray nor zarr.json (not a Zarr array)");
        }
        detail::check_grid(s_->store, s_->m);
        if (s_->m.shape.empty()) throw error(s_->store, "", "a 0-d array: chunkwise reads arrays of 1 or more axes");
    }

    /// The store's path.
    [[nodiscard]] const std::string& path() const noexcept { return s_->store; }
    /// 2 or 3.
    [[nodiscard]] int format() const noexcept { return s_->m.format; }
    /// The extent of each axis.
    [[nodiscard]] const std::vector<std::size_t>& shape() const noexcept { return s_->m.shape; }
    /// The number of axes.
    [[nodiscard]] std::size_t rank() const noexcept { return s_->m.shape.size(); }
    /// The chunk shape (for a sharded v3 array the inner chunk: the unit of reading).
    [[nodiscard]] std::vector<std::size_t> chunks() const {
        return s_->m.codecs.shard ? s_->m.codecs.shard->inner : s_->m.chunks;
    }
    /// The shard shape of a sharded v3 array (the unit of writing), else chunks().
    [[nodiscard]] const std::vector<std::size_t>& shards() const noexcept { return s_->m.chunks; }
    /// The stored type as numpy names it ("float64", "int16", "uint8", "bool").
    [[nodiscard]] std::string dtype() const { return s_->m.type.name(); }
    /// True where the values are stored big-endian.
    [[nodiscard]] bool big_endian() const noexcept { return s_->m.type.big; }
    /// The size of one stored value in bytes.
    [[nodiscard]] std::size_t element_size() const noexcept { return s_->m.type.size; }
    /// The codec names in encoding order (v2: filters then compressor; v3: the bytes codecs, after
    /// "sharding_indexed" where sharded).
    [[nodiscard]] std::vector<std::string> codecs() const {
        std::vector<std::string> out;
        if (s_->m.codecs.shard) {
            out.push_back("sharding_indexed");
            for (const auto& c : s_->m.codecs.shard->codecs->bytes_codecs) out.push_back(c.name);
        }
        for (const auto& c : s_->m.codecs.bytes_codecs) out.push_back(c.name);
        return out;
    }
    /// The user attributes (.zattrs, or zarr.json's "attributes") as JSON text.
    [[nodiscard]] std::string attributes() const { return s_->m.attributes.dump(); }

    /// Rows [rows.begin, rows.end) of axis 0, every other axis whole, converted to T, as a rank-N
    /// tensor. T must hold every stored value exactly (an int16 array reads as int32 or float, a
    /// float64 one only as double).
    /// \throws zarr::error naming the store (and the chunk) if N is not the array's rank, T does not
    ///         hold the stored type, rows lie outside the array, or a chunk is damaged
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows) const {
        if (N != rank()) fail("read<T, " + std::to_string(N) + ">: the array has " + std::to_string(rank()) + " axes");
        std::array<std::size_t, N> shape{};
        for (std::size_t d = 0; d < N; ++d) shape[d] = d == 0 ? rows.size() : s_->m.shape[d];
        check_rows(rows);
        auto out = xt::xtensor<T, N>::from_shape(shape);
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// Rows [rows.begin, rows.end), every other axis whole, converted to T, of any rank.
    /// \throws zarr::error as the tensor read, except for the rank
    template <class T>
    [[nodiscard]] xt::xarray<T> read(const block& rows) const {
        check_rows(rows);
        std::vector<std::size_t> shape = s_->m.shape;
        shape[0] = rows.size();
        auto out = xt::xarray<T>::from_shape(shape);
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// Rows [rows.begin, rows.end) into `out`, which must hold exactly that many values (row-major).
    /// Counted as read time of the running block (chunkwise::read_scope).
    /// \throws zarr::error as the tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, std::span<T> out) const {
        check_rows(rows);
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
        if (N != rank()) fail("read<T, " + std::to_string(N) + ">: the array has " + std::to_string(rank()) + " axes");
        check_rows(rows);
        check_selection(sel);
        std::array<std::size_t, N> shape{};
        for (std::size_t d = 0; d < N; ++d) shape[d] = d == 0 ? rows.size() : d == sel.axis ? sel.idx.size() : s_->m.shape[d];
        auto out = xt::xtensor<T, N>::from_shape(shape);
        read_into(rows, sel, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// As the tensor read with indices, of any rank.
    /// \throws zarr::error as the indexed tensor read, except for the rank
    template <class T>
    [[nodiscard]] xt::xarray<T> read(const block& rows, const indices& sel) const {
        check_rows(rows);
        check_selection(sel);
        std::vector<std::size_t> shape = s_->m.shape;
        shape[0] = rows.size();
        shape[sel.axis] = sel.idx.size();
        auto out = xt::xarray<T>::from_shape(shape);
        read_into(rows, sel, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// The selection read into `out`, which must hold exactly that many values.
    /// \throws zarr::error as the indexed tensor read, or if `out` has another size
    template <class T>
    void read_into(const block& rows, const indices& sel, std::span<T> out) const {
        check_rows(rows);
        check_selection(sel);
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
    [[nodiscard]] std::span<const unsigned char> decode_chunk(std::span<const unsigned char> stored) const {
        if (s_->m.codecs.shard) fail("decode_chunk: the array is sharded (decode the shard's inner chunks by reading)");
        std::size_t elems = 1;
        for (std::size_t c : s_->m.chunks) elems *= c;
        thread_local std::vector<unsigned char> a, b;
        try {
            const unsigned char* raw = detail::decode_bytes(s_->store, s_->m.codecs, stored.data(), stored.size(), elems, s_->m.type, a, b);
            return {raw, elems * s_->m.type.size};
        } catch (const error&) {
            throw;
        } catch (const std::exception& e) {
            fail(std::string("decode_chunk: ") + e.what());
        }
    }
    /// True for a sharded v3 array (sharding_indexed).
    [[nodiscard]] bool sharded() const noexcept { return s_->m.codecs.shard != nullptr; }

private:
    static detail::json load(const std::filesystem::path& p) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        try {
            return detail::json::parse(text.str());
        } catch (const std::exception& e) {
            throw error(p.parent_path().string(), "", p.filename().string() + " is not valid JSON: " + e.what());
        }
    }
    /// The array's entry in the parent directory's consolidated metadata, if any.
    std::optional<detail::json> consolidated(const std::filesystem::path& path) const {
        const auto parent = std::filesystem::absolute(path).lexically_normal().parent_path();
        const auto name = std::filesystem::absolute(path).lexically_normal().filename().string();
        if (!std::filesystem::exists(parent / ".zmetadata")) return std::nullopt;
        const detail::json z = load(parent / ".zmetadata");
        if (!z.is_object() || !z.contains("metadata") || !z["metadata"].is_object()) return std::nullopt;
        const std::string key = name + "/.zarray";
        if (!z["metadata"].contains(key)) return std::nullopt;
        return std::optional<detail::json>(std::in_place, z["metadata"][key]);
    }
    [[noreturn]] void fail(const std::string& what) const { throw error(s_->store, "", what); }
    void check_rows(const block& rows) const {
        if (rows.begin > rows.end || rows.end > s_->m.shape[0])
            fail("rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ") lie outside the array's " +
                 std::to_string(s_->m.shape[0]) + " rows");
    }
    void check_selection(const indices& sel) const {
        if (sel.axis == 0 || sel.axis >= rank())
            fail("indices on axis " + std::to_string(sel.axis) + ": the array has axes 0-" + std::to_string(rank() - 1) +
                 " and axis 0 holds the rows");
        for (std::size_t i : sel.idx)
            if (i >= s_->m.shape[sel.axis])
                fail("index " + std::to_string(i) + " on axis " + std::to_string(sel.axis) + " lies outside its " +
                     std::to_string(s_->m.shape[sel.axis]) + " entries");
    }
    template <class T>
    void run(detail::request& q, std::span<T> out) const {
        static_assert(std::is_arithmetic_v<T>, "chunkwise::zarr::array: read into an arithmetic type");
        if (!detail::holds_exactly<T>(s_->m.type))
            fail("stored as " + s_->m.type.name() + ", which the requested type does not hold exactly: read as a wider type");
        std::size_t want = 1;
        for (std::size_t e : q.out_shape) want *= e;
        if (out.size() != want)
            fail("read_into: the buffer holds " + std::to_string(out.size()) + " values, the request needs " + std::to_string(want));
        if (want == 0) return;
        read_scope timing;
        try {
            detail::read_request<T>(*s_, q, out.data());
        } catch (const std::bad_alloc&) {
            fail("out of memory decoding a chunk of " + std::to_string(s_->m.type.size) + "-byte values");
        }
    }

    std::shared_ptr<detail::state> s_;
};

}  // namespace chunkwise::zarr
