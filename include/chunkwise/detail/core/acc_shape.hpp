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
        for (std::size_t i = 0; i < static_cast<std::size_t>(out.size()); ++i)
            out.data()[i] = static_cast<scalar>(at(i));
        return out;
    }
};

/// The element type of an array or view: what data() points to, or what its iterators give.
template <class R>
struct rows_value {
    using type = std::remove_cvref_t<decltype(*std::begin(std::declval<const R&>()))>;
};
template <class R>
requires requires(const R& r) { r.data(); }
struct rows_value<R> {
    using type = std::remove_cvref_t<decltype(*std::declval<const R&>().data())>;
};
template <class R>
using rows_value_t = typename rows_value<R>::type;

/// Rows of values stacked along axis 0 (an xtensor array or any view of one: shape(), size(), and
/// data() or iterators in row-major order), for add_rows: row r is one value.
template <class R>
concept stacked_rows = requires(const R& r) {
    { r.size() } -> std::convertible_to<std::size_t>;
    r.shape();
    requires requires { r.data(); } || requires {
        std::begin(r);
        std::end(r);
    };
    requires std::is_arithmetic_v<rows_value_t<R>>;
};

/// The shape of one row of `rows` (its shape without axis 0) and the number of rows.
template <stacked_rows R>
std::vector<std::size_t> row_shape(const R& rows, std::size_t& count) {
    const auto& s = rows.shape();
    std::vector<std::size_t> out(std::begin(s), std::end(s));
    if (out.empty()) throw std::invalid_argument("[chunkwise.acc] add_rows: rows of rank 0");
    count = out.front();
    out.erase(out.begin());
    return out;
}

/// What a statistic of scalars (histogram, quantiles) adds besides add(x): add_all.
template <class Derived>
class adds_each {
public:
    /// Adds every value of a range or tensor (a std::vector, an xtensor array, ...), once each.
    template <class Values>
    requires requires(const Values& v) {
        std::begin(v);
        std::end(v);
    }
    void add_all(const Values& values) {
        for (const auto& x : values) static_cast<Derived&>(*this).add(static_cast<double>(x));
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
    shape_state() = default;
    shape_state(const shape_state& o) : size_(o.size_), fixed_(o.fixed_) {
        if (!o.shape_.empty()) shape_ = o.shape_;
    }
    shape_state(shape_state&&) noexcept = default;
    shape_state& operator=(const shape_state& o) {
        if (!o.shape_.empty() || !shape_.empty()) shape_ = o.shape_;  // scalars: no call into the vector
        size_ = o.size_;
        fixed_ = o.fixed_;
        return *this;
    }
    shape_state& operator=(shape_state&&) noexcept = default;
    ~shape_state() = default;

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
    /// As accept, for a value known by its shape (the rows of add_rows).
    bool accept_shape(const std::vector<std::size_t>& shape, const char* who) {
        std::size_t size = 1;
        for (std::size_t e : shape) size *= e;
        if (!fixed_) {
            shape_ = shape;
            size_ = size;
            fixed_ = true;
            return true;
        }
        if (shape != shape_) {
            throw std::invalid_argument(std::string("[chunkwise.acc] ") + who + ": values of shape " +
                                        shape_text(shape) + " added to one of shape " + shape_text(shape_) +
                                        " (the shape is fixed by the first value)");
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

/// The per-element state of a statistic: a vector that keeps one element inline (a scalar
/// statistic allocates nothing, so merging millions of small states costs no allocator calls).
template <class V>
class state_vector {
public:
    state_vector() = default;
    state_vector(const state_vector& o) : one_(o.one_), n_(o.n_) {
        if (o.n_ > 1) heap_ = o.heap_;
    }
    state_vector(state_vector&& o) noexcept : one_(o.one_), n_(o.n_), heap_(std::move(o.heap_)) { o.n_ = 0; }
    state_vector& operator=(const state_vector& o) {
        one_ = o.one_;
        n_ = o.n_;
        if (o.n_ > 1 || !heap_.empty()) heap_ = o.heap_;  // scalars: no call into the vector
        return *this;
    }
    state_vector& operator=(state_vector&& o) noexcept {
        one_ = o.one_;
        n_ = o.n_;
        heap_ = std::move(o.heap_);
        o.n_ = 0;
        return *this;
    }
    /// n elements of value v.
    void assign(std::size_t n, V v) {
        n_ = n;
        if (n <= 1) {
            one_ = v;
            heap_.clear();
            heap_.shrink_to_fit();
        } else {
            heap_.assign(n, v);
        }
    }
    /// The elements of `v`.
    void assign_from(std::vector<V>&& v) {
        if (v.size() <= 1) {
            assign(v.size(), v.empty() ? V{} : v.front());
        } else {
            n_ = v.size();
            heap_ = std::move(v);
        }
    }
    [[nodiscard]] std::size_t size() const noexcept { return n_; }
    [[nodiscard]] V* data() noexcept { return n_ <= 1 ? &one_ : heap_.data(); }
    [[nodiscard]] const V* data() const noexcept { return n_ <= 1 ? &one_ : heap_.data(); }
    V& operator[](std::size_t i) noexcept { return data()[i]; }
    const V& operator[](std::size_t i) const noexcept { return data()[i]; }

private:
    V one_{};
    std::size_t n_ = 0;
    std::vector<V> heap_;
};

/// A scalar statistic's shape: none, only whether a value has been seen. Trivially copyable with
/// scalar_elems, so a scalar statistic copies and merges as plain memory.
class scalar_shape {
public:
    [[nodiscard]] bool fixed() const noexcept { return fixed_; }
    [[nodiscard]] std::size_t size() const noexcept { return fixed_ ? 1 : 0; }
    [[nodiscard]] static const std::vector<std::size_t>& shape() noexcept {
        static const std::vector<std::size_t> none;
        return none;
    }
    template <class T>
    bool accept(const T&, const char*) noexcept {
        return !std::exchange(fixed_, true);
    }
    bool accept_shape(const std::vector<std::size_t>& shape, const char* who) {
        if (!shape.empty()) {
            throw std::invalid_argument(std::string("[chunkwise.acc] ") + who + ": values of shape " +
                                        shape_text(shape) + " added to a statistic of scalars");
        }
        return !std::exchange(fixed_, true);
    }
    bool merge(const scalar_shape& o, const char*) noexcept { return o.fixed_ && !std::exchange(fixed_, true); }
    /// From a shape read back from bytes. 	hrows codec_error if it is not a scalar's
    scalar_shape& operator=(const shape_state& s) {
        if (s.fixed() && (!s.shape().empty() || s.size() != 1)) {
            throw codec_error("[chunkwise.acc] the state of a tensor statistic where a scalar one was expected");
        }
        fixed_ = s.fixed();
        return *this;
    }

private:
    bool fixed_ = false;
};

/// A scalar statistic's per-element state: at most one element, inline.
template <class V>
class scalar_elems {
public:
    void assign(std::size_t n, V v) {
        n_ = n > 0 ? 1 : 0;
        one_ = v;
    }
    void assign_from(std::vector<V>&& v) {
        if (v.size() > 1)
            throw codec_error("[chunkwise.acc] the state of a tensor statistic where a scalar one was expected");
        assign(v.size(), v.empty() ? V{} : v.front());
    }
    [[nodiscard]] std::size_t size() const noexcept { return n_; }
    [[nodiscard]] V* data() noexcept { return &one_; }
    [[nodiscard]] const V* data() const noexcept { return &one_; }
    V& operator[](std::size_t) noexcept { return one_; }
    const V& operator[](std::size_t) const noexcept { return one_; }

private:
    V one_{};
    std::size_t n_ = 0;
};

/// The shape state of a statistic of T: none for scalars.
template <class T>
using shape_of = std::conditional_t<values_of<T>::tensor, shape_state, scalar_shape>;
/// The per-element state of a statistic of T, elements of type V.
template <class T, class V>
using elems_of = std::conditional_t<values_of<T>::tensor, state_vector<V>, scalar_elems<V>>;

/// A statistic's state as bytes.
class bytes_writer {
public:
    explicit bytes_writer(std::string& out) : out_(out) {}
    template <class V>
    void put(const V& v) {
        static_assert(std::is_trivially_copyable_v<V>);
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    template <class E>
    requires requires(const E& e) {
        e.data();
        e.size();
    }
    void put_all(const E& v) {
        using V = std::remove_cvref_t<decltype(*v.data())>;
        put<std::uint64_t>(v.size());
        if (v.size() > 0) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(V));
    }
    /// put_all of each state vector, in order.
    template <class... E>
    void put_each(const E&... v) {
        (put_all(v), ...);
    }
    template <class S>
    void put_shape(const S& s) {
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
    /// What put_all wrote, into a state_vector.
    template <class E>
    void get_into(E& out) {
        out.assign_from(get_all<std::remove_cvref_t<decltype(*out.data())>>());
    }
    /// What put_each wrote, into each state vector; each must hold the elements of `shape` (none
    /// where it is not fixed). \throws codec_error naming `who` otherwise
    template <class S, class... E>
    void get_each(const S& shape, const char* who, E&... v) {
        (get_into(v), ...);
        const std::size_t n = shape.fixed() ? shape.size() : 0;
        if (((v.size() != n) || ...)) {
            throw codec_error(std::string("[chunkwise.acc] ") + who + ": state of the wrong size");
        }
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
    /// True when every byte has been read (a later version's optional fields are absent).
    [[nodiscard]] bool at_end() const noexcept { return in_.empty(); }
    void done() const {
        if (!in_.empty()) throw codec_error("[chunkwise.acc] a statistic's bytes go on past its state");
    }

private:
    std::string_view in_;
};

}  // namespace chunkwise::detail::acc
