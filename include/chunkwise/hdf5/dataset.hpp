#pragma once
/// \file
/// `chunkwise::h5::dataset`: a read-only view of one HDF5 dataset that reads rows in blocks,
/// decoding chunks in the calling thread; and `h5::partition`, chunk-aligned blocks.

#include <chunkwise/detail/hdf5_decode.hpp>
#include <chunkwise/detail/hdf5_library.hpp>
#include <chunkwise/detail/xtensor.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/stats.hpp>

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

namespace chunkwise::h5 {

namespace detail {

template <class T>
hid_t native_type() {
    if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
    else if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
    else if constexpr (std::is_same_v<T, long double>) return H5T_NATIVE_LDOUBLE;
    else if constexpr (std::is_same_v<T, signed char>) return H5T_NATIVE_SCHAR;
    else if constexpr (std::is_same_v<T, char>) return H5T_NATIVE_CHAR;
    else if constexpr (std::is_same_v<T, unsigned char>) return H5T_NATIVE_UCHAR;
    else if constexpr (std::is_same_v<T, short>) return H5T_NATIVE_SHORT;
    else if constexpr (std::is_same_v<T, unsigned short>) return H5T_NATIVE_USHORT;
    else if constexpr (std::is_same_v<T, int>) return H5T_NATIVE_INT;
    else if constexpr (std::is_same_v<T, unsigned>) return H5T_NATIVE_UINT;
    else if constexpr (std::is_same_v<T, long>) return H5T_NATIVE_LONG;
    else if constexpr (std::is_same_v<T, unsigned long>) return H5T_NATIVE_ULONG;
    else if constexpr (std::is_same_v<T, long long>) return H5T_NATIVE_LLONG;
    else if constexpr (std::is_same_v<T, unsigned long long>) return H5T_NATIVE_ULLONG;
    else static_assert(sizeof(T) == 0, "chunkwise::h5: T must be an arithmetic type (not bool)");
}

enum class storage { contiguous, chunked, other };

/// Everything a dataset view shares between its copies. Immutable after opening.
struct dataset_state {
    std::string file, path;
    handle file_h, dset_h;
    std::vector<std::size_t> dims;
    std::vector<std::size_t> chunk;  // empty: not chunked
    element_type type;
    std::string type_text;           // for messages, e.g. "32-bit float, big-endian"
    bool numeric = false;            // integer or IEEE float: readable as arithmetic T
    storage layout = storage::other;
    std::vector<int> filters;        // pipeline order
    std::vector<std::string> filter_names;
    bool decodable = false;          // every filter is one chunkwise decodes itself
    haddr_t contiguous_address = HADDR_UNDEF;
    int fd = -1;                     // for pread of contiguous data
    std::size_t row_elements = 1;    // elements per row (product of dims[1..])

    ~dataset_state() {
        if (fd >= 0) ::close(fd);
    }

    [[noreturn]] void fail(const std::string& message) const { throw error(file, path, message); }
};

inline std::string join(const std::vector<std::string>& parts) {
    std::string s;
    for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
    return s;
}

/// Names in a group, for "what does exist" messages. Call with the lock held.
inline std::vector<std::string> group_members(hid_t file, const std::string& group) {
    std::vector<std::string> names;
    H5Literate_by_name(
        file, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
        [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
            static_cast<std::vector<std::string>*>(data)->push_back(name);
            return 0;
        },
        &names, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    return names;
}

/// Checks that `path` names a dataset; otherwise throws naming the nearest existing group and
/// what it holds. Call with the lock held.
inline void check_dataset_path(const dataset_state& s) {
    std::string prefix;
    std::string walked = "/";
    std::size_t pos = 0;
    const std::string& path = s.path;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string::npos) next = path.size();
        const std::string part = path.substr(pos, next - pos);
        pos = next + 1;
        if (part.empty()) continue;
        prefix += "/" + part;
        const htri_t exists = H5Lexists(s.file_h.get(), prefix.c_str(), H5P_DEFAULT);
        if (exists <= 0) {
            H5Eclear2(H5E_DEFAULT);
            const auto members = group_members(s.file_h.get(), walked);
            s.fail("no dataset '" + path + "': '" + part + "' is not in group '" + walked + "', which holds " +
                   (members.empty() ? std::string("nothing") : join(members)));
        }
        H5I_type_t kind = H5I_BADID;
        {
            handle object(H5Oopen(s.file_h.get(), prefix.c_str(), H5P_DEFAULT), H5Oclose);
            if (!object.valid()) s.fail("cannot open '" + prefix + "': " + last_error());
            kind = H5Iget_type(object.get());
        }
        const bool last = pos > path.size();
        if (last && kind == H5I_GROUP) {
            const auto members = group_members(s.file_h.get(), prefix);
            s.fail("is a group, not a dataset; it holds " + (members.empty() ? std::string("nothing") : join(members)));
        }
        if (last && kind != H5I_DATASET) s.fail("is not a dataset (a named datatype?)");
        if (!last && kind != H5I_GROUP) s.fail("'" + prefix + "' is not a group");
        walked = prefix;
    }
    if (prefix.empty()) s.fail("the root group '/' is not a dataset");
}

inline void describe_type(dataset_state& s, hid_t type) {
    const H5T_class_t cls = H5Tget_class(type);
    const std::size_t size = H5Tget_size(type);
    const bool big = H5Tget_order(type) == H5T_ORDER_BE;
    const std::string order = big ? "big-endian" : "little-endian";
    switch (cls) {
        case H5T_INTEGER: {
            const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
            s.type = {is_signed ? element_type::kind::signed_int : element_type::kind::unsigned_int, size, big};
            s.type_text = std::to_string(size * 8) + "-bit " + (is_signed ? "signed" : "unsigned") + " integer, " + order;
            s.numeric = true;
            break;
        }
        case H5T_FLOAT: {
            const bool ieee = H5Tequal(type, H5T_IEEE_F32LE) > 0 || H5Tequal(type, H5T_IEEE_F32BE) > 0 ||
                              H5Tequal(type, H5T_IEEE_F64LE) > 0 || H5Tequal(type, H5T_IEEE_F64BE) > 0;
            s.type = {ieee ? element_type::kind::floating : element_type::kind::other, size, big};
            s.type_text = std::to_string(size * 8) + "-bit " + (ieee ? "" : "non-IEEE ") + "float, " + order;
            s.numeric = true;
            break;
        }
        case H5T_STRING: s.type_text = "string"; break;
        case H5T_COMPOUND: s.type_text = "compound"; break;
        case H5T_ENUM: s.type_text = "enum"; break;
        case H5T_VLEN: s.type_text = "variable-length sequence"; break;
        case H5T_ARRAY: s.type_text = "array"; break;
        case H5T_OPAQUE: s.type_text = "opaque"; break;
        case H5T_BITFIELD: s.type_text = "bitfield"; break;
        case H5T_REFERENCE: s.type_text = "reference"; break;
        case H5T_TIME: s.type_text = "time"; break;
        default: s.type_text = "unknown type class"; break;
    }
    H5Eclear2(H5E_DEFAULT);
}

inline std::string filter_name(int id) {
    switch (id) {
        case H5Z_FILTER_DEFLATE: return "deflate";
        case H5Z_FILTER_SHUFFLE: return "shuffle";
        case H5Z_FILTER_FLETCHER32: return "fletcher32";
        case H5Z_FILTER_SZIP: return "szip";
        case H5Z_FILTER_NBIT: return "nbit";
        case H5Z_FILTER_SCALEOFFSET: return "scaleoffset";
        default: return "filter " + std::to_string(id);
    }
}

inline std::shared_ptr<const dataset_state> open_dataset(const std::filesystem::path& file, const std::string& path) {
    auto s = std::make_shared<dataset_state>();
    s->file = file.string();
    s->path = path.empty() || path.front() != '/' ? "/" + path : path;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) s->fail("no such file");
    if (std::filesystem::is_directory(file, ec)) s->fail("is a directory, not an HDF5 file");

    library_lock lock;
    s->file_h = handle(H5Fopen(s->file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!s->file_h.valid()) {
        throw error(s->file, "", "cannot open as an HDF5 file (not HDF5, truncated or corrupted): " + last_error());
    }
    check_dataset_path(*s);

    // Datasets' geometry and storage.
    handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
    s->dset_h = handle(H5Dopen2(s->file_h.get(), s->path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!s->dset_h.valid()) s->fail("cannot open the dataset: " + last_error());
    handle type(H5Dget_type(s->dset_h.get()), H5Tclose);
    handle space(H5Dget_space(s->dset_h.get()), H5Sclose);
    handle dcpl(H5Dget_create_plist(s->dset_h.get()), H5Pclose);
    if (!type.valid() || !space.valid() || !dcpl.valid()) s->fail("cannot read the dataset's header: " + last_error());
    describe_type(*s, type.get());

    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) s->fail("cannot read the dataspace: " + last_error());
    if (rank == 0) s->fail("is a scalar dataset; chunkwise reads arrays of rank 1 or more");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    s->dims.assign(dims.begin(), dims.end());
    for (std::size_t d = 1; d < s->dims.size(); ++d) s->row_elements *= s->dims[d];

    const H5D_layout_t layout = H5Pget_layout(dcpl.get());
    if (layout == H5D_CHUNKED) {
        std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
        if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank) s->fail("cannot read the chunk shape: " + last_error());
        s->chunk.assign(chunk.begin(), chunk.end());
        s->layout = storage::chunked;
    } else if (layout == H5D_CONTIGUOUS && H5Pget_external_count(dcpl.get()) == 0) {
        s->layout = storage::contiguous;
        s->contiguous_address = H5Dget_offset(s->dset_h.get());  // undefined until written
        H5Eclear2(H5E_DEFAULT);
    }
    const int nfilters = H5Pget_nfilters(dcpl.get());
    s->decodable = true;
    int deflates = 0;
    for (int i = 0; i < nfilters; ++i) {
        unsigned flags = 0, values[8];
        std::size_t nvalues = 8;
        char name[64];
        const H5Z_filter_t id =
            H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nvalues, values, sizeof name, name, nullptr);
        s->filters.push_back(static_cast<int>(id));
        s->filter_names.push_back(filter_name(static_cast<int>(id)));
        if (id == H5Z_FILTER_DEFLATE) ++deflates;
        if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE) s->decodable = false;
    }
    if (deflates > 1) s->decodable = false;

    // Fallback reads (H5Dread) get a chunk cache that holds one row of chunks, not the 1 MiB default.
    if (s->layout == storage::chunked) {
        std::size_t chunks_per_row = 1, chunk_bytes = s->type.size == 0 ? H5Tget_size(type.get()) : s->type.size;
        for (std::size_t d = 0; d < s->dims.size(); ++d) {
            chunk_bytes *= s->chunk[d];
            if (d > 0) chunks_per_row *= (s->dims[d] + s->chunk[d] - 1) / s->chunk[d];
        }
        const std::size_t nbytes = std::clamp<std::size_t>(chunks_per_row * chunk_bytes * 2, std::size_t{1} << 20,
                                                           std::size_t{1} << 30);
        H5Pset_chunk_cache(dapl.get(), std::max<std::size_t>(521, chunks_per_row * 20), nbytes, 1.0);
        s->dset_h = handle(H5Dopen2(s->file_h.get(), s->path.c_str(), dapl.get()), H5Dclose);
        if (!s->dset_h.valid()) s->fail("cannot open the dataset: " + last_error());
    }
    if (s->layout == storage::contiguous && s->contiguous_address != HADDR_UNDEF) {
        s->fd = ::open(s->file.c_str(), O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) s->fail(std::string("cannot open for reading: ") + std::strerror(errno));
    }
    return s;
}

inline std::size_t product(const std::vector<std::size_t>& v, std::size_t from = 0) {
    std::size_t p = 1;
    for (std::size_t i = from; i < v.size(); ++i) p *= v[i];
    return p;
}

/// Copies the part of one decoded chunk (at offset `off`, shape `chunk`) that lies in rows
/// [row_begin, row_end) into `out` (shape [row_end - row_begin, dims[1..]]), converting to T.
template <class T>
void copy_chunk(const unsigned char* src, const element_type& et, const std::vector<std::size_t>& chunk,
                const std::vector<std::size_t>& off, const std::vector<std::size_t>& dims, std::size_t row_begin,
                std::size_t row_end, T* out) {
    const std::size_t n = dims.size();
    std::vector<std::size_t> lo(n), hi(n), cs(n), os(n), idx(n);
    for (std::size_t d = 0; d < n; ++d) {
        lo[d] = off[d];
        hi[d] = std::min(off[d] + chunk[d], dims[d]);
    }
    lo[0] = std::max(lo[0], row_begin);
    hi[0] = std::min(hi[0], row_end);
    for (std::size_t d = 0; d < n; ++d) {
        if (lo[d] >= hi[d]) return;
    }
    cs[n - 1] = 1;
    os[n - 1] = 1;
    for (std::size_t d = n - 1; d > 0; --d) {
        cs[d - 1] = cs[d] * chunk[d];
        os[d - 1] = os[d] * dims[d];
    }
    // Trailing axes the chunk covers whole are contiguous in both the chunk and the output:
    // copy them as one run. k is the innermost axis still iterated.
    std::size_t k = n - 1;
    while (k > 0 && chunk[k] == dims[k]) --k;
    const std::size_t run = (hi[k] - lo[k]) * cs[k];
    idx = lo;
    for (;;) {
        std::size_t s = 0, o = 0;
        for (std::size_t d = 0; d <= k; ++d) {
            s += (idx[d] - off[d]) * cs[d];
            o += (idx[d] - (d == 0 ? row_begin : 0)) * os[d];
        }
        convert_run<T>(et, src + s * et.size, out + o, run);
        // Next position over the axes before k.
        std::size_t d = k;
        for (;;) {
            if (d == 0) return;
            --d;
            if (++idx[d] < hi[d]) break;
            idx[d] = lo[d];
        }
    }
}

}  // namespace detail

/// A read-only view of one dataset of an HDF5 file; cheap to copy, safe to read from many threads.
///
/// Reads return rows [begin, end) of axis 0 with every other axis whole. Where the dataset is
/// contiguous, or chunked with no filters or only deflate and shuffle, and T holds every stored
/// value exactly, a read takes the raw bytes (pread; H5Dread_chunk for chunks) under the library
/// lock only as long as the I/O lasts, and inflates, unshuffles and converts in the calling
/// thread, outside any lock: reading scales with threads. Anything else (other filters, narrowing
/// conversions, unallocated chunks) goes through H5Dread under the lock: correct, serial.
class dataset {
public:
    /// Opens `path` in `file` read-only.
    /// \throws h5::error naming the file and the dataset: no such file, not an HDF5 file (or
    ///         truncated or corrupted), no such dataset (naming what the nearest group holds), a
    ///         group where a dataset was expected, a scalar dataset
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
    [[nodiscard]] const std::string& type_name() const noexcept { return s_->type_text; }
    /// Bytes per stored element.
    [[nodiscard]] std::size_t element_size() const noexcept { return s_->type.size; }
    /// The filter pipeline, in the order applied when writing (e.g. {"shuffle", "deflate"}).
    [[nodiscard]] const std::vector<std::string>& filters() const noexcept { return s_->filter_names; }
    /// True when reads into T decode in the calling thread (see the class comment).
    template <class T>
    [[nodiscard]] bool decodes_in_worker() const {
        return s_->numeric && detail::exact_conversion<T>(s_->type) &&
               (s_->layout == detail::storage::chunked ? s_->decodable
                                                       : s_->layout == detail::storage::contiguous &&
                                                             s_->contiguous_address != HADDR_UNDEF);
    }

    /// Rows [rows.begin, rows.end) of axis 0, every other axis whole, converted to T, as a
    /// rank-N tensor.
    /// \throws h5::error if N is not the dataset's rank, T cannot hold the stored type, rows lie
    ///         outside the dataset, or the file cannot be read
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows) const {
        if (N != rank()) {
            s_->fail("read<T, " + std::to_string(N) + ">: the dataset has rank " + std::to_string(rank()) +
                     " (shape " + shape_text() + ")");
        }
        std::array<std::size_t, N> shape{};
        shape[0] = rows.size();
        for (std::size_t d = 1; d < N; ++d) shape[d] = s_->dims[d];
        check_rows(rows);
        auto out = xt::xtensor<T, N>::from_shape(shape);
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
        auto out = xt::xarray<T>::from_shape(shape);
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }

    /// Reads rows [rows.begin, rows.end) into `out`, which must hold exactly
    /// rows.size() * (elements per row) values: for loops that allocate nothing per block.
    /// Counted as read time of the running block (chunkwise::read_scope).
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
        if (decodes_in_worker<T>()) {
            if (s_->layout == detail::storage::contiguous) {
                read_contiguous(rows, out.data());
                return;
            }
            if (read_chunks(rows, out.data())) return;
        }
        read_hdf5(rows, out.data());
    }

private:
    std::string shape_text() const {
        std::string t = "(";
        for (std::size_t d = 0; d < s_->dims.size(); ++d) t += (d ? ", " : "") + std::to_string(s_->dims[d]);
        return t + ")";
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
        if (!s_->numeric) {
            s_->fail("holds " + s_->type_text + " values, which do not convert to a number type");
        }
    }

    template <class T>
    void read_contiguous(const block& rows, T* out) const {
        const std::size_t row_bytes = s_->row_elements * s_->type.size;
        const std::size_t bytes = rows.size() * row_bytes;
        const off_t start = static_cast<off_t>(s_->contiguous_address + rows.begin * row_bytes);
        const bool same = sizeof(T) == s_->type.size && detail::exact_conversion<T>(s_->type) &&
                          s_->type.big_endian == (std::endian::native == std::endian::big) &&
                          ((std::is_floating_point_v<T> && s_->type.k == detail::element_type::kind::floating) ||
                           (std::is_integral_v<T> && s_->type.k != detail::element_type::kind::floating));
        thread_local std::vector<unsigned char> buffer;
        unsigned char* dst = reinterpret_cast<unsigned char*>(out);
        if (!same) {
            buffer.resize(bytes);
            dst = buffer.data();
        }
        std::size_t done = 0;
        while (done < bytes) {
            const ssize_t got = ::pread(s_->fd, dst + done, bytes - done, start + static_cast<off_t>(done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                s_->fail("reading rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) +
                         ") failed: " + (got < 0 ? std::strerror(errno) : std::string("the file ends early (truncated?)")));
            }
            done += static_cast<std::size_t>(got);
        }
        if (!same) detail::convert_run<T>(s_->type, dst, out, rows.size() * s_->row_elements);
    }

    // Chunked fast path; false where a chunk is not allocated (then H5Dread supplies fill values).
    template <class T>
    bool read_chunks(const block& rows, T* out) const {
        const auto& dims = s_->dims;
        const auto& chunk = s_->chunk;
        const std::size_t n = dims.size();
        const std::size_t chunk_bytes = detail::product(chunk) * s_->type.size;
        thread_local std::vector<unsigned char> raw, stage, decoded;
        std::vector<std::size_t> grid(n), off(n, 0);
        for (std::size_t d = 0; d < n; ++d) grid[d] = (dims[d] + chunk[d] - 1) / chunk[d];
        const std::size_t first_row_chunk = rows.begin / chunk[0];
        const std::size_t last_row_chunk = (rows.end - 1) / chunk[0];
        std::vector<std::size_t> c(n, 0);
        std::vector<hsize_t> hoff(n);
        bool whole_rows = true;
        for (std::size_t d = 1; d < n; ++d) whole_rows = whole_rows && chunk[d] == dims[d];
        const bool direct = whole_rows && s_->filters.empty() && sizeof(T) == s_->type.size &&
                            s_->type.big_endian == (std::endian::native == std::endian::big) &&
                            (std::is_floating_point_v<T> == (s_->type.k == detail::element_type::kind::floating)) &&
                            (std::is_signed_v<T> == (s_->type.k != detail::element_type::kind::unsigned_int));
        for (std::size_t r = first_row_chunk; r <= last_row_chunk; ++r) {
            std::fill(c.begin(), c.end(), 0);
            c[0] = r;
            for (;;) {
                for (std::size_t d = 0; d < n; ++d) {
                    off[d] = c[d] * chunk[d];
                    hoff[d] = off[d];
                }
                std::uint32_t mask = 0;
                // A chunk stored without filters, of T itself, covering whole rows inside the
                // requested range, goes straight into the output: no copy.
                if (direct && off[0] >= rows.begin && off[0] + chunk[0] <= rows.end) {
                    detail::library_lock lock;
                    hsize_t stored = 0;
                    if (H5Dget_chunk_storage_size(s_->dset_h.get(), hoff.data(), &stored) < 0) {
                        s_->fail("cannot locate chunk at " + offset_text(off) + ": " + detail::last_error());
                    }
                    if (stored == 0) return false;
                    if (stored != chunk_bytes) s_->fail("chunk at " + offset_text(off) + " has " + std::to_string(stored) +
                                                        " bytes, not " + std::to_string(chunk_bytes) + " (corrupted?)");
                    if (H5Dread_chunk(s_->dset_h.get(), H5P_DEFAULT, hoff.data(), &mask,
                                      out + (off[0] - rows.begin) * s_->row_elements) < 0) {
                        s_->fail("cannot read chunk at " + offset_text(off) + ": " + detail::last_error());
                    }
                    break;  // whole rows: this was the only chunk of this chunk row
                }
                {
                    detail::library_lock lock;
                    hsize_t stored = 0;
                    if (H5Dget_chunk_storage_size(s_->dset_h.get(), hoff.data(), &stored) < 0) {
                        s_->fail("cannot locate chunk at " + offset_text(off) + ": " + detail::last_error());
                    }
                    if (stored == 0) return false;  // never written: fill values
                    raw.resize(stored);
                    if (H5Dread_chunk(s_->dset_h.get(), H5P_DEFAULT, hoff.data(), &mask, raw.data()) < 0) {
                        s_->fail("cannot read chunk at " + offset_text(off) + ": " + detail::last_error());
                    }
                }
                const unsigned char* bytes = decode(raw, stage, decoded, mask, chunk_bytes, off);
                detail::copy_chunk<T>(bytes, s_->type, chunk, off, dims, rows.begin, rows.end, out);
                // Next chunk across the other axes.
                std::size_t d = n;
                bool more = false;
                while (d > 1) {
                    --d;
                    if (++c[d] < grid[d]) {
                        more = true;
                        break;
                    }
                    c[d] = 0;
                }
                if (!more) break;
            }
        }
        return true;
    }

    // Undoes the pipeline (in reverse) on one chunk; returns the decoded bytes (chunk_bytes long).
    const unsigned char* decode(std::vector<unsigned char>& raw, std::vector<unsigned char>& stage,
                                std::vector<unsigned char>& decoded, std::uint32_t mask, std::size_t chunk_bytes,
                                const std::vector<std::size_t>& off) const {
        std::vector<unsigned char>* cur = &raw;
        try {
            for (std::size_t i = s_->filters.size(); i-- > 0;) {
                if (mask & (1u << i)) continue;  // this filter was skipped for this chunk
                std::vector<unsigned char>* next = cur == &stage ? &decoded : &stage;
                if (s_->filters[i] == H5Z_FILTER_DEFLATE) {
                    next->resize(chunk_bytes);
                    detail::inflate_exact(cur->data(), cur->size(), next->data(), chunk_bytes);
                } else {  // shuffle
                    next->resize(cur->size());
                    detail::unshuffle(cur->data(), next->data(), cur->size(), s_->type.size);
                }
                cur = next;
            }
        } catch (const std::runtime_error& e) {
            s_->fail("chunk at " + offset_text(off) + ": " + e.what());
        }
        if (cur->size() != chunk_bytes) {
            s_->fail("chunk at " + offset_text(off) + " holds " + std::to_string(cur->size()) + " bytes, not " +
                     std::to_string(chunk_bytes) + " (corrupted?)");
        }
        return cur->data();
    }

    template <class T>
    void read_hdf5(const block& rows, T* out) const {
        detail::library_lock lock;
        const std::size_t n = s_->dims.size();
        std::vector<hsize_t> start(n, 0), count(s_->dims.begin(), s_->dims.end());
        start[0] = rows.begin;
        count[0] = rows.size();
        detail::handle fspace(H5Dget_space(s_->dset_h.get()), H5Sclose);
        detail::handle mspace(H5Screate_simple(static_cast<int>(n), count.data(), nullptr), H5Sclose);
        if (!fspace.valid() || !mspace.valid() ||
            H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0 ||
            H5Dread(s_->dset_h.get(), detail::native_type<T>(), mspace.get(), fspace.get(), H5P_DEFAULT, out) < 0) {
            s_->fail("reading rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) +
                     ") failed: " + detail::last_error());
        }
    }

    static std::string offset_text(const std::vector<std::size_t>& off) {
        std::string t = "(";
        for (std::size_t d = 0; d < off.size(); ++d) t += (d ? ", " : "") + std::to_string(off[d]);
        return t + ")";
    }

    std::shared_ptr<const detail::dataset_state> s_;
};

/// Splits axis 0 of `ds` into min(p.count, chunk rows) balanced blocks that never split a chunk
/// between two blocks (boundaries on multiples of the chunk's extent along axis 0; balanced in
/// whole chunks). Contiguous datasets get plain balanced blocks.
/// \throws std::invalid_argument if p.count is 0
[[nodiscard]] inline std::vector<block> partition(const dataset& ds, parts p) {
    const std::size_t rows = ds.shape()[0];
    if (const auto chunk = ds.chunk_shape()) return chunkwise::partition(rows, p, align{(*chunk)[0]});
    return chunkwise::partition(rows, p);
}

}  // namespace chunkwise::h5
