#pragma once
// Internal: the one codec for result values that chunkwise moves as raw bytes without knowing
// their library: arithmetic values, std::vector of them, and tensors (anything with shape(),
// data(), size() and R::from_shape, such as xtensor arrays). It serves checkpoints (a value as
// bytes) and MPI transfers (a value as header words plus a span of elements, so elements travel
// as typed MPI buffers and land in place):
//
// | kind       | header words            | checkpoint bytes                      |
// | ---------- | ----------------------- | ------------------------------------- |
// | arithmetic | none                    | the value's bytes                     |
// | vector     | length                  | the elements' bytes                   |
// | tensor     | rank, then each extent  | rank, extents (u64), then elements    |
#include <chunkwise/detail/core/value_kinds.hpp>
#include <chunkwise/error.hpp>
#include <chunkwise/mergeable.hpp>

#include <cstddef>
#include <cstdint>
#include <concepts>
#include <cstring>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace chunkwise::detail {

/// A value that cannot be decoded from its bytes (checkpoints turn it into a cache miss; MPI into
/// an agreed error). A chunkwise::error.
class codec_error : public error {
public:
    using error::error;
};

template <class T>
std::string arithmetic_name() {
    if constexpr (std::is_floating_point_v<T>) {
        return "float" + std::to_string(sizeof(T) * 8);
    } else if constexpr (std::is_signed_v<T>) {
        return "int" + std::to_string(sizeof(T) * 8);
    } else {
        return "uint" + std::to_string(sizeof(T) * 8);
    }
}

template <class T>
void append_raw(std::string& out, const T* p, std::size_t n) {
    if (n > 0) out.append(reinterpret_cast<const char*>(p), n * sizeof(T));
}

inline std::uint64_t read_u64(std::string_view& bytes) {
    if (bytes.size() < 8) throw codec_error("too short for a length");
    std::uint64_t v;
    std::memcpy(&v, bytes.data(), 8);
    bytes.remove_prefix(8);
    return v;
}

/// Deprecated name of chunkwise::byte_codable (<chunkwise/mergeable.hpp>), kept for one release.
template <class R>
concept byte_codable = chunkwise::byte_codable<R>;

/// How a value of R travels as raw elements; `raw` is false where it needs another encoding.
template <class R>
struct value_codec {
    static constexpr bool raw = false;
};

template <plain_arithmetic R>
struct value_codec<R> {
    static constexpr bool raw = true;
    using element = R;
    static constexpr std::size_t fixed_header = 0;  // header words per value
    static std::string type_name() { return arithmetic_name<R>(); }
    static void header(const R&, std::vector<std::uint64_t>&) {}
    static std::span<const R> elements(const R& r) { return {&r, 1}; }
    static R make(const std::uint64_t*&) { return R{}; }
    static void skip(const std::uint64_t*&) {}
    static element* data(R& r) { return &r; }
    static R decode(const std::uint64_t*&, const R*& data) { return *data++; }
    static void to_bytes(const R& v, std::string& out) { append_raw(out, &v, 1); }
    static R from_bytes(std::string_view bytes) {
        if (bytes.size() != sizeof(R)) throw codec_error("holds a value of another size");
        R v;
        std::memcpy(&v, bytes.data(), sizeof(R));
        return v;
    }
};

template <arithmetic_vector R>
struct value_codec<R> {
    static constexpr bool raw = true;
    using element = typename R::value_type;
    static constexpr std::size_t fixed_header = 1;
    static std::string type_name() { return "vector<" + arithmetic_name<element>() + ">"; }
    static void header(const R& r, std::vector<std::uint64_t>& h) { h.push_back(r.size()); }
    static std::span<const element> elements(const R& r) { return {r.data(), r.size()}; }
    /// A value of the size the header says, to receive elements into.
    static R make(const std::uint64_t*& h) { return R(static_cast<std::size_t>(*h++)); }
    static void skip(const std::uint64_t*& h) { ++h; }
    static element* data(R& r) { return r.data(); }
    static R decode(const std::uint64_t*& h, const element*& data) {
        const std::size_t len = static_cast<std::size_t>(*h++);
        R out(data, data + len);
        data += len;
        return out;
    }
    static void to_bytes(const R& v, std::string& out) { append_raw(out, v.data(), v.size()); }
    static R from_bytes(std::string_view bytes) {
        if (bytes.size() % sizeof(element) != 0) throw codec_error("holds a partial element");
        R v(bytes.size() / sizeof(element));
        if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
        return v;
    }
};

template <arithmetic_tensor R>
struct value_codec<R> {
    static constexpr bool raw = true;
    using element = typename R::value_type;
    static constexpr bool fixed_rank = requires { std::tuple_size<typename R::shape_type>::value; };
    // Header words per value where the rank is part of the type (xtensor<T, N>), else 0.
    static constexpr std::size_t fixed_header = [] {
        if constexpr (fixed_rank) {
            return 1 + std::tuple_size<typename R::shape_type>::value;
        } else {
            return std::size_t{0};
        }
    }();
    // Fixed-rank tensors (xtensor<T, N>) name their rank: a checkpoint of another rank is
    // recomputed, not failed; dynamic-rank ones (xarray) take any.
    static std::string type_name() {
        if constexpr (fixed_rank) {
            return "tensor<" + arithmetic_name<element>() + "," +
                   std::to_string(std::tuple_size<typename R::shape_type>::value) + ">";
        } else {
            return "tensor<" + arithmetic_name<element>() + ">";
        }
    }
    static void header(const R& r, std::vector<std::uint64_t>& h) {
        const auto& shape = r.shape();
        h.push_back(static_cast<std::uint64_t>(std::size(shape)));
        for (const auto extent : shape) h.push_back(static_cast<std::uint64_t>(extent));
    }
    static std::span<const element> elements(const R& r) { return {r.data(), static_cast<std::size_t>(r.size())}; }
    /// A value of the shape the header says, to receive elements into.
    /// \throws codec_error if the rank does not fit R
    static R make(const std::uint64_t*& h) {
        const std::size_t dims = static_cast<std::size_t>(*h++);
        typename R::shape_type shape{};
        if constexpr (requires { shape.resize(dims); }) shape.resize(dims);
        if (std::size(shape) != dims) {
            throw codec_error("a tensor of rank " + std::to_string(dims) + " for a result type of rank " +
                              std::to_string(std::size(shape)));
        }
        for (std::size_t d = 0; d < dims; ++d) shape[d] = static_cast<typename R::shape_type::value_type>(h[d]);
        h += dims;
        return R::from_shape(shape);
    }
    static void skip(const std::uint64_t*& h) { h += 1 + *h; }
    static element* data(R& r) { return r.data(); }
    static R decode(const std::uint64_t*& h, const element*& data) {
        R out = make(h);
        const std::size_t count = static_cast<std::size_t>(out.size());
        if (count > 0) std::memcpy(out.data(), data, count * sizeof(element));
        data += count;
        return out;
    }
    static void to_bytes(const R& v, std::string& out) {
        std::vector<std::uint64_t> h;
        header(v, h);
        append_raw(out, h.data(), h.size());
        append_raw(out, v.data(), static_cast<std::size_t>(v.size()));
    }
    static R from_bytes(std::string_view bytes) {
        const std::uint64_t dims = read_u64(bytes);
        typename R::shape_type shape{};
        if constexpr (requires { shape.resize(dims); }) {
            if (dims > bytes.size() / 8) throw codec_error("tensor data has the wrong size");
            shape.resize(dims);
        }
        if (std::size(shape) != dims) throw codec_error("holds a tensor of another rank");
        std::size_t count = 1;
        bool empty = false, overflow = false;
        for (std::size_t d = 0; d < dims; ++d) {
            const std::uint64_t e = read_u64(bytes);
            shape[d] = static_cast<typename R::shape_type::value_type>(e);
            empty = empty || e == 0;
            overflow = overflow || __builtin_mul_overflow(count, static_cast<std::size_t>(e), &count);
        }
        if (empty) count = 0;
        if ((overflow && !empty) || count > bytes.size() / sizeof(element) || bytes.size() != count * sizeof(element)) {
            throw codec_error("tensor data has the wrong size");
        }
        R v = R::from_shape(shape);
        if (count > 0) std::memcpy(v.data(), bytes.data(), bytes.size());
        return v;
    }
};

}  // namespace chunkwise::detail
