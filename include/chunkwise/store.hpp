#pragma once
/// \file
/// The store-neutral face of chunkwise's chunked stores (HDF5, Zarr): what a chunked array offers
/// (the `chunked_array` concept), the vocabulary both stores share (`indices`, `block_bytes`,
/// `read_buffer`, `read_options`, `write_mode`, `attributes`), and the partitions of any chunked array that
/// never split a chunk. Standard library only.

#include <chunkwise/detail/core/row_stream.hpp>
#include <chunkwise/partition.hpp>

#include <unistd.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace chunkwise {

/// A selection of indices on one axis (>= 1; axis 0 holds the rows): `idx` in the order wanted,
/// duplicates allowed. `a.read<T, N>(rows, indices{1, {4, 8, 15}})` reads entries 4, 8 and 15 of
/// axis 1 of every row (atoms of a frame).
struct indices {
    std::size_t axis = 1;          ///< the axis the indices select on (>= 1)
    std::vector<std::size_t> idx;  ///< the indices, in output order
};

/// Ask a store's `partition` for blocks of about this many bytes of decoded data each.
struct block_bytes {
    std::size_t count;  ///< bytes of decoded data per block, about
};

/// The block size the docs recommend for a pass over an array: large enough that per-block costs
/// vanish, small enough that a block and its decode buffers stay cache-friendly and a worker's
/// buffer small (docs/performance.md).
inline constexpr block_bytes default_block_bytes{std::size_t{8} << 20};

/// How reads convert stored values to the type asked for.
struct read_options {
    /// false (the default): a read into a type that cannot hold every stored value exactly is
    /// refused (float64 into float, float32 into int, int64 into double). true: such reads convert
    /// as the store's library does (HDF5: H5Dread's conversions; Zarr: docs/zarr.md), which may
    /// round, truncate or clip.
    bool convert = false;
};

/// What a write does where its target exists already. Nothing is ever deleted unless `replace` is
/// asked for (docs/writing.md, "Write modes").
enum class write_mode {
    create,   ///< write a new array; an existing one of that name is an error, and is left as it is
    replace,  ///< write a new array; an existing array (or Zarr group) of that name is removed first
    append,   ///< add the values as rows at the end of an existing array (same type, other axes and encoding)
    update,   ///< write the values over rows [first_row, first_row + n) of an existing array; other rows are kept
};

/// The mode's name as the enum spells it ("create", "append", ...), for messages.
constexpr const char* mode_name(write_mode m) noexcept {
    switch (m) {
        case write_mode::create:
            return "create";
        case write_mode::replace:
            return "replace";
        case write_mode::append:
            return "append";
        case write_mode::update:
            return "update";
    }
    return "unknown";
}

/// One attribute's value, as both stores hold it: an integer, a float, a string, or a list of
/// one of them. (HDF5: a 64-bit integer, a double or a variable-length UTF-8 string, scalar or
/// 1-D; Zarr: a JSON number, string or list.)
using attribute = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                               std::vector<std::string>>;

/// Attributes by name (units, descriptions, provenance): written by the stores'
/// `write_options::attributes` and `set_attributes`, read by `attrs()` and `attributes_of`
/// (docs/writing.md, "Attributes").
using attributes = std::map<std::string, attribute>;

/// A buffer a worker reuses from block to block: `a.read<T, N>(rows, buffer)` fills it and returns a
/// view of the block in it, so a pass over many blocks allocates (and page faults) once per worker,
/// not once per block. It grows to the largest block read and keeps that size; the view is valid
/// until the next read into the same buffer. Keep one per thread (`thread_local` in the block
/// function).
template <class T>
class read_buffer {
public:
    read_buffer() = default;
    /// Elements it holds room for.
    [[nodiscard]] std::size_t capacity() const noexcept { return storage_.size(); }
    /// Gives back the memory.
    void release() noexcept { std::vector<T>().swap(storage_); }

    /// Room for at least `elements` values; returns their start. (For the stores' reads.)
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

/// What a chunked array of a store offers, whatever the store (h5::dataset and zarr::array model
/// it): its shape, its chunk shape (the unit never split by a partition along axis 0), its stored
/// element type as numpy names it and that type's size, and reads of rows, whole or of selected
/// indices, into a caller's buffer of T (row-major, exactly the values asked for).
template <class Array, class T = double>
concept chunked_array = requires(const Array& a, const block& rows, const indices& sel, std::span<T> out) {
    { a.shape() } -> std::convertible_to<std::vector<std::size_t>>;
    { a.chunks() } -> std::convertible_to<std::vector<std::size_t>>;
    { a.dtype() } -> std::convertible_to<std::string>;
    { a.element_size() } -> std::convertible_to<std::size_t>;
    a.read_into(rows, out);
    a.read_into(rows, sel, out);
};

namespace detail {

/// Why `names` cannot name the axes of an array of `rank` axes ("" if they can, or are none): the
/// words both stores use for write_options::dimensions.
inline std::string dimensions_problem(const std::vector<std::string>& names, std::size_t rank) {
    if (names.empty()) return {};
    if (names.size() != rank)
        return std::to_string(names.size()) + " dimension name" + (names.size() == 1 ? "" : "s") + " for an array of " +
               std::to_string(rank) + " ax" + (rank == 1 ? "is" : "es") + ": give one per axis, or none";
    for (std::size_t d = 0; d < names.size(); ++d) {
        if (names[d].empty()) return "dimension name " + std::to_string(d) + " is empty";
        if (names[d].find('/') != std::string::npos)
            return "dimension name " + std::to_string(d) + " '" + names[d] + "' holds a '/'";
    }
    return {};
}

/// The values one row of `shape` holds (every axis but the first).
inline std::size_t row_values(const std::vector<std::size_t>& shape) noexcept {
    std::size_t n = 1;
    for (std::size_t d = 1; d < shape.size(); ++d) n *= shape[d];
    return n;
}

/// Blocks of about b.count bytes over `rows` rows of `row_bytes` bytes, each a whole number of
/// `unit` rows (at least one unit), balanced. \throws std::invalid_argument if b.count is 0
inline std::vector<block> partition_by_bytes(std::size_t rows, std::size_t unit, std::size_t row_bytes, block_bytes b,
                                             const std::string& prefix) {
    if (b.count == 0) throw std::invalid_argument(prefix + " block_bytes{0}: a block must hold at least 1 byte");
    unit = unit == 0 ? 1 : unit;
    const std::size_t units = rows / unit + (rows % unit != 0 ? 1 : 0);
    if (units == 0) return {};
    const double unit_bytes = static_cast<double>(row_bytes) * static_cast<double>(unit);
    const double per_block = unit_bytes > 0 ? static_cast<double>(b.count) / unit_bytes : static_cast<double>(units);
    const std::size_t units_per_block = per_block >= static_cast<double>(units) ? units
                                        : per_block < 1.5                       ? 1
                                                          : static_cast<std::size_t>(per_block + 0.5);
    const std::size_t blocks = units / units_per_block + (units % units_per_block != 0 ? 1 : 0);
    return partition(rows, parts{blocks}, align{unit});
}

/// Blocks of `rows` rows aligned to `unit`, each with a halo of h.items rows (clipped at the ends).
/// \throws std::invalid_argument if p.count is 0 or the halo is larger than the rows (naming `what`)
inline std::vector<halo_block> partition_with_halo(std::size_t rows, std::size_t unit, parts p, halo h,
                                                   const std::string& prefix, const std::string& what) {
    if (h.items > rows)
        throw std::invalid_argument(prefix + " halo{" + std::to_string(h.items) + "}: larger than " + what +
                                    ", which has " + std::to_string(rows) + " rows");
    return with_halo(partition(rows, p, align{unit == 0 ? 1 : unit}), rows, h);
}

/// The shape of one block's result: an array's shape(), or {size()} for a vector.
template <class R>
std::vector<std::size_t> result_shape(const R& r) {
    if constexpr (requires { r.shape(); }) {
        const auto& s = r.shape();
        return std::vector<std::size_t>(s.begin(), s.end());
    } else {
        return {r.size()};
    }
}

/// A shape, or a chunk's coordinates, as text for messages: "(4, 3)".
inline std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string t = "(";
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (d > 0) t.append(", ");  // appended piecewise: g++ 12 -O3 warns (-Wrestrict) on "x" + string
        t.append(std::to_string(shape[d]));
    }
    return t.append(")");
}

/// Why values of shape `values` are not rows of an array of shape `array` ("" when they are): their rank or their
/// extents beyond axis 0 differ. The streaming writers' check, in both stores' words.
inline std::string stream_fit_problem(const std::vector<std::size_t>& array, const std::vector<std::size_t>& values) {
    if (values.size() == array.size() && std::equal(values.begin() + 1, values.end(), array.begin() + 1)) return {};
    return "values of shape " + shape_text(values) + " are not rows of the array of shape " + shape_text(array);
}

// ---- The checks of a read, the same words in every store (each prefixes its own error). ----

/// "" where a rank-N read fits an array of `shape`, else why not.
inline std::string rank_problem(std::size_t n, const std::vector<std::size_t>& shape) {
    if (n == shape.size()) return {};
    return "read<T, " + std::to_string(n) + ">: the array has rank " + std::to_string(shape.size()) + " (shape " +
           shape_text(shape) + ")";
}
/// "" where rows lie inside axis 0 of `shape`, else why not.
inline std::string rows_problem(const block& rows, const std::vector<std::size_t>& shape) {
    if (rows.begin <= rows.end && rows.end <= shape[0]) return {};
    return "rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ") are outside axis 0 of extent " +
           std::to_string(shape[0]);
}
/// "" where `sel` selects inside an axis (>= 1) of `shape`, else why not.
inline std::string selection_problem(const indices& sel, const std::vector<std::size_t>& shape) {
    const std::size_t n = shape.size();
    if (sel.axis == 0 || sel.axis >= n)
        return "indices on axis " + std::to_string(sel.axis) + ": the array has rank " + std::to_string(n) +
               " (shape " + shape_text(shape) + "); indices select on axes 1 to " + std::to_string(n - 1) +
               " (axis 0 holds the rows)";
    for (std::size_t j = 0; j < sel.idx.size(); ++j)
        if (sel.idx[j] >= shape[sel.axis])
            return "index " + std::to_string(sel.idx[j]) + " (position " + std::to_string(j) +
                   " of the indices) is outside axis " + std::to_string(sel.axis) + " of extent " +
                   std::to_string(shape[sel.axis]);
    return {};
}
/// T's name as numpy names it ("float32", "int64", "bool").
template <class T>
std::string type_name() {
    if constexpr (std::is_same_v<T, bool>) {
        return "bool";
    } else if constexpr (std::is_floating_point_v<T>) {
        return sizeof(T) > 8 ? "longdouble" : "float" + std::to_string(sizeof(T) * 8);
    } else {
        return std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(sizeof(T) * 8);
    }
}
/// The refusal of a read into T that does not hold every value of the stored type `stored`.
template <class T>
std::string conversion_problem(const std::string& stored) {
    return "stored as " + stored + ", which " + type_name<T>() +
           " does not hold exactly: read as a type that does, or ask for the conversion with "
           "read_options{.convert = true}";
}
/// "" where `have` values are what a read of `rows` (`need` values) wants, else why not.
inline std::string buffer_problem(std::size_t have, std::size_t need, const block& rows) {
    if (have == need) return {};
    return "read_into: the buffer holds " + std::to_string(have) + " values, rows [" + std::to_string(rows.begin) +
           ", " + std::to_string(rows.end) + ") need " + std::to_string(need);
}
/// "" where a read of `rows` (`values` values of `size` bytes) fits in this machine's memory, else
/// why not: a read larger than memory is refused before anything is allocated.
inline std::string memory_problem(double values, std::size_t size, const block& rows) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return {};
    const double memory = static_cast<double>(pages) * static_cast<double>(page);
    const double bytes = values * static_cast<double>(size);
    if (bytes <= memory) return {};
    return "rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ") need " + std::to_string(bytes) +
           " bytes as " + std::to_string(size) + "-byte values, more than this machine's memory (" +
           std::to_string(memory) + " bytes): cannot allocate them; read fewer rows";
}
/// The words of an allocation that failed for `values` values of `size` bytes of a read of `rows`.
inline std::string allocation_problem(double values, std::size_t size, const block& rows) {
    return "out of memory: cannot allocate " + std::to_string(values) + " values of " + std::to_string(size) +
           " bytes for rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ")";
}

/// The collective steps a stream written by several processes needs, from its policy: none (every function
/// empty) for one process.
struct stream_collective {
    std::size_t rank = 0;
    bool root = true;
    std::function<std::vector<std::vector<unsigned char>>(std::vector<unsigned char>)> all_gather;
    std::function<std::string(const std::string&)> agree;  // "" or the lowest rank's problem, on every rank
    std::function<void(const char*, const std::string&)> check_same;

    [[nodiscard]] bool distributed() const noexcept { return static_cast<bool>(all_gather); }
};

/// What both stores' stream_writer share: the rows given so far (detail/core/row_stream.hpp), the checks of what a
/// caller gives, in the same words, and the first failed write, which breaks the stream. Each `put` returns why
/// the input is refused ("": taken; nothing is written when refused) and hands whole units to `emit(first_row,
/// values, rows)`; a failure of `emit` is kept and thrown again by every later put and by `rethrow_failure`.
template <class T>
class stream_rows {
public:
    stream_rows(std::vector<std::size_t> shape, std::size_t unit)
            : shape_(std::move(shape)), per_row_(row_values(shape_)), stream_(shape_[0], unit, per_row_ * sizeof(T)) {}

    [[nodiscard]] const std::vector<std::size_t>& shape() const noexcept { return shape_; }
    /// Values in one row (the extents beyond axis 0 multiplied).
    [[nodiscard]] std::size_t row_elements() const noexcept { return per_row_; }

    /// Values with a shape (xtensor) must be rows of the array; others (std::vector, std::span) are taken as whole
    /// rows, row-major.
    template <class Array, class Emit>
    std::string put(std::size_t first_row, const Array& result, Emit&& emit) {
        if constexpr (!requires { result.shape(); }) {
            const std::size_t count = result.size();
            if (per_row_ != 0 && count % per_row_ != 0)
                return std::to_string(count) + " values at row " + std::to_string(first_row) +
                       " are not whole rows of " + std::to_string(per_row_);
            const std::size_t n = per_row_ == 0 ? 0 : count / per_row_;
            return take(first_row, result.data(), n, row_stream::rows_text(first_row, first_row + n), emit);
        }
        const auto s = result_shape(result);
        const std::string who = row_stream::rows_text(first_row, first_row + (s.empty() ? 0 : s[0]));
        if (const std::string why = stream_fit_problem(shape_, s); !why.empty()) return who + ": " + why;
        return take(first_row, result.data(), s[0], who, emit);
    }

    template <class Array, class Emit>
    std::string put(const block& b, const Array& result, Emit&& emit) {
        const auto s = result_shape(result);
        const std::string who = "block " + std::to_string(b.index) + " (" + row_stream::rows_text(b.begin, b.end) + ")";
        std::string why = stream_fit_problem(shape_, s);
        if (why.empty() && s[0] != b.size())
            why = "its result has " + std::to_string(s[0]) + " rows, the block " + std::to_string(b.size());
        if (!why.empty()) return who + ": " + why;
        return take(b.begin, result.data(), s[0], who, emit);
    }

    /// Throws the first failed write again, if there was one.
    void rethrow_failure() const {
        const std::lock_guard<std::mutex> lock(guard_);
        if (failed_) std::rethrow_exception(failed_);
    }

    /// The first rows never given, "rows [a, b)" ("" when every row was).
    [[nodiscard]] std::string gap() const { return stream_.complete() ? std::string() : stream_.first_gap(); }
    [[nodiscard]] std::size_t held_bytes() const { return stream_.held_bytes(); }
    [[nodiscard]] std::size_t peak_bytes() const { return stream_.peak_bytes(); }
    /// Bytes in one row.
    [[nodiscard]] std::size_t row_bytes() const noexcept { return stream_.row_bytes(); }
    /// This process's part, to complete the stream with other processes' (the held units leave the buffer).
    [[nodiscard]] stream_part take_part() { return {stream_.runs(), stream_.take_held()}; }

private:
    template <class Emit>
    std::string take(std::size_t first_row, const T* values, std::size_t n, const std::string& who, Emit& emit) {
        rethrow_failure();
        try {
            stream_.write(first_row, reinterpret_cast<const unsigned char*>(values), n,
                          [&](std::size_t row, const unsigned char* bytes, std::size_t rows) {
                              emit(row, reinterpret_cast<const T*>(bytes), rows);
                          });
        } catch (const std::invalid_argument& e) {  // past the end, or overlapping: nothing taken
            return who + ": " + e.what();
        } catch (...) {
            const std::lock_guard<std::mutex> lock(guard_);
            if (!failed_) failed_ = std::current_exception();
            throw;
        }
        return {};
    }

    std::vector<std::size_t> shape_;
    std::size_t per_row_;
    row_stream stream_;
    mutable std::mutex guard_;
    std::exception_ptr failed_;
};

/// What the ranks settled at close() under MPI (settle_rows): every rank's part, and what went wrong.
struct settled_rows {
    std::vector<stream_part> parts;  ///< every rank's part, by rank
    std::string coverage;            ///< rows never given or given twice ("" none); alike on every rank
    std::string agreed;              ///< the lowest rank's failure ("" none); alike on every rank
    std::exception_ptr own;          ///< this rank's failure, for the caller to throw again

    /// Whether the write can go on: every row given once and no rank failed.
    [[nodiscard]] bool ok() const noexcept { return coverage.empty() && agreed.empty(); }
};

/// close() of a stream written by every rank, the part both stores share: each rank's first failed write taken,
/// the parts all-gathered and checked (each row given by exactly one rank), the chunk rows ranks share completed
/// by the lowest rank holding part of each (`emit(first_row, values, rows)`), then `after()` on every rank; and a
/// failure anywhere agreed on. Collective: every rank calls it.
template <class T, class Emit, class After>
settled_rows settle_rows(stream_rows<T>& rows, const stream_collective& c, Emit&& emit, After&& after) {
    settled_rows s;
    std::string mine;
    try {
        rows.rethrow_failure();
    } catch (const std::exception& e) {
        mine = e.what();
        s.own = std::current_exception();
    }
    for (const auto& packed : c.all_gather(rows.take_part().pack())) s.parts.push_back(stream_part::unpack(packed));
    s.coverage = coverage_problem(s.parts, rows.shape()[0]);
    if (s.coverage.empty() && !s.own) {
        try {
            complete_held(s.parts, c.rank, rows.row_bytes(),
                          [&](std::size_t row, const unsigned char* unit, std::size_t n) {
                              emit(row, reinterpret_cast<const T*>(unit), n);
                          });
            after();
        } catch (const std::exception& e) {
            mine = e.what();
            s.own = std::current_exception();
        }
    }
    s.agreed = c.agree(mine);
    return s;
}

}  // namespace detail

/// Splits axis 0 of `a` into min(p.count, chunk rows) balanced blocks whose boundaries lie on
/// multiples of the chunk's extent along axis 0: no chunk is read by two blocks.
/// \throws std::invalid_argument if p.count is 0
template <chunked_array Array>
[[nodiscard]] std::vector<block> partition(const Array& a, parts p) {
    return partition(a.shape()[0], p, align{a.chunks()[0]});
}

/// As partition(a, p), each block also allowed to read h.items rows before and after its own range,
/// clipped at the array's ends: read `b.read_range()`, return results for [b.begin, b.end) only.
/// \throws std::invalid_argument if p.count is 0 or the halo is larger than the array's rows
template <chunked_array Array>
[[nodiscard]] std::vector<halo_block> partition(const Array& a, parts p, halo h) {
    return detail::partition_with_halo(a.shape()[0], a.chunks()[0], p, h, "[chunkwise.store]", "the array");
}

/// Splits axis 0 of `a` into balanced blocks of about b.count bytes of decoded data (the stored
/// element size), each a whole number of chunk rows (at least one, however small b.count is).
/// \throws std::invalid_argument if b.count is 0
template <chunked_array Array>
[[nodiscard]] std::vector<block> partition(const Array& a, block_bytes b) {
    const std::vector<std::size_t> shape = a.shape();
    return detail::partition_by_bytes(shape[0], a.chunks()[0], a.element_size() * detail::row_values(shape), b,
                                      "[chunkwise.store]");
}

}  // namespace chunkwise
