#pragma once
// Internal: what every mergeable statistic of <chunkwise/accumulate.hpp> shares: its values are
// scalars or, element-wise, tensors of one shape (xtensor arrays, or anything with shape(),
// data(), size() and T::from_shape), the shape fixed by the first value added; and its state as
// bytes (checkpoints, MPI transfers) through a small writer and a checked reader.
#include <chunkwise/detail/core/value_codec.hpp>
#include <chunkwise/detail/core/value_kinds.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::detail::acc {

/// How a statistic of T sees its values: one scalar, or the elements of a tensor.
template <class T, class Enable = void>
struct values_of;

template <class T>
struct values_of<T, std::enable_if_t<std::is_arithmetic_v<T>>> {
    static constexpr bool tensor = false;
    using scalar = T;
    static std::size_t size(const T&) noexcept { return 1; }
    static const T* data(const T& x) noexcept { return &x; }
    static std::vector<std::size_t> shape(const T&) { return {}; }
    /// A value of `shape` (ignored for scalars) from doubles.
    template <class F>
    static T make(const std::vector<std::size_t>&, F&& at) {
        return static_cast<T>(at(0));
    }
};

template <class T>
struct values_of<T, std::enable_if_t<arithmetic_tensor<T>>> {
    static constexpr bool tensor = true;
    using scalar = typename T::value_type;
    static std::size_t size(const T& x) { return static_cast<std::size_t>(x.size()); }
    static const scalar* data(const T& x) { return x.data(); }
    static std::vector<std::size_t> shape(const T& x) {
        const auto& s = x.shape();
        return std::vector<std::size_t>(std::begin(s), std::end(s));
    }
    template <class F>
    static T make(const std::vector<std::size_t>& shape, F&& at) {
        typename T::shape_type s{};
        if constexpr (requires { s.resize(shape.size()); }) s.resize(shape.size());
        for (std::size_t d = 0; d < shape.size() && d < std::size(s); ++d) {
            s[d] = static_cast<typename T::shape_type::value_type>(shape[d]);
        }
        T out = T::from_shape(s);
        for (std::size_t i = 0; i < static_cast<std::size_t>(out.size()); ++i) out.data()[i] = static_cast<scalar>(at(i));
        return out;
    }
};

/// T is something a statistic accumulates: an arithmetic scalar or an arithmetic tensor.
template <class T>
concept accumulable = (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || arithmetic_tensor<T>;

/// "(3, 4)".
inline std::string shape_text(const std::vector<std::size_t>& s) {
    std::string t = "(";
    for (std::size_t d = 0; d < s.size(); ++d) t += (d ? ", " : "") + std::to_string(s[d]);
    return t + (s.size() == 1 ? ",)" : ")");
}

/// The shape a statistic's values have: fixed by the first add (tensors), checked after.
class shape_state {
public:
    [[nodiscard]] bool fixed() const noexcept { return fixed_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] const std::vector<std::size_t>& shape() const noexcept { return shape_; }

    /// Fixes the shape from x, or checks x against it. \throws std::invalid_argument naming both
    template <class T>
    bool accept(const T& x, const char* who) {
        using V = values_of<T>;
        if (!fixed_) {
            shape_ = V::shape(x);
            size_ = V::size(x);
            fixed_ = true;
            return true;  // newly fixed: the caller sizes its state
        }
        if constexpr (V::tensor) {
            const auto s = V::shape(x);
            if (s != shape_) {
                throw std::invalid_argument(std::string("[chunkwise.acc] ") + who + ": a value of shape " +
                                            shape_text(s) + " added to one of shape " + shape_text(shape_) +
                                            " (the shape is fixed by the first value)");
            }
        }
        return false;
    }
    /// Checks that another statistic's shape agrees (one of them may be unset).
    /// \returns true when this one was unset and took the other's shape
    bool merge(const shape_state& o, const char* who) {
        if (!o.fixed_) return false;
        if (!fixed_) {
            *this = o;
            return true;
        }
        if (o.shape_ != shape_) {
            throw std::invalid_argument(std::string("[chunkwise.acc] ") + who + ": cannot merge values of shape " +
                                        shape_text(shape_) + " with values of shape " + shape_text(o.shape_));
        }
        return false;
    }

    /// A shape read back from bytes: `shape` (empty for scalars) holding `size` elements.
    static shape_state restored(std::vector<std::size_t> shape, std::size_t size) {
        shape_state s;
        s.shape_ = std::move(shape);
        s.size_ = size;
        s.fixed_ = true;
        return s;
    }

private:
    std::vector<std::size_t> shape_;
    std::size_t size_ = 0;
    bool fixed_ = false;
};

/// A statistic's state as bytes.
class bytes_writer {
public:
    explicit bytes_writer(std::string& out) : out_(out) {}
    template <class V>
    void put(const V& v) {
        static_assert(std::is_trivially_copyable_v<V>);
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    template <class V>
    void put_all(const std::vector<V>& v) {
        put<std::uint64_t>(v.size());
        if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(V));
    }
    void put_shape(const shape_state& s) {
        put<std::uint8_t>(s.fixed() ? 1 : 0);
        put_all(s.shape());
    }

private:
    std::string& out_;
};

/// Reads what bytes_writer wrote; codec_error when the bytes are short or inconsistent.
class bytes_reader {
public:
    explicit bytes_reader(std::string_view in) : in_(in) {}
    template <class V>
    V get() {
        if (in_.size() < sizeof(V)) throw codec_error("[chunkwise.acc] a statistic's bytes end early");
        V v;
        std::memcpy(&v, in_.data(), sizeof v);
        in_.remove_prefix(sizeof v);
        return v;
    }
    template <class V>
    std::vector<V> get_all() {
        const std::uint64_t n = get<std::uint64_t>();
        if (n > in_.size() / sizeof(V)) throw codec_error("[chunkwise.acc] a statistic's bytes end early");
        std::vector<V> v(static_cast<std::size_t>(n));
        if (n > 0) std::memcpy(v.data(), in_.data(), v.size() * sizeof(V));
        in_.remove_prefix(v.size() * sizeof(V));
        return v;
    }
    /// The shape written by put_shape (a scalar's: empty, one element).
    shape_state get_shape() {
        const bool fixed = get<std::uint8_t>() != 0;
        auto shape = get_all<std::size_t>();
        if (!fixed) return {};
        std::size_t size = 1;
        for (std::size_t e : shape) {
            if (e != 0 && size > (std::size_t{1} << 40) / e) throw codec_error("[chunkwise.acc] an impossible shape");
            size *= e;
        }
        return shape_state::restored(std::move(shape), size);
    }
    void expect(std::string_view tag) {
        if (in_.substr(0, tag.size()) != tag) {
            throw codec_error("[chunkwise.acc] the bytes are not a " + std::string(tag) + " state");
        }
        in_.remove_prefix(tag.size());
    }
    void done() const {
        if (!in_.empty()) throw codec_error("[chunkwise.acc] a statistic's bytes go on past its state");
    }

private:
    std::string_view in_;
};

}  // namespace chunkwise::detail::acc
