#pragma once
/// \file
/// Mergeable moments (standard library only): `acc::count`, `acc::sum` (compensated, or exact),
/// `acc::mean` (weighted); `acc::variance` (Welford per block, Chan et al. to merge) is in
/// acc/variance.hpp (included here), `acc::covariance` in acc/covariance.hpp. Each accumulates
/// scalars, or element-wise tensors of one shape (xtensor arrays: the shape is fixed by the first
/// value added). A default-constructed one is the identity of `merge`. Include
/// <chunkwise/accumulate.hpp>; docs/combine.md says which to use for what.
///
/// NaN and infinity are data here, as IEEE arithmetic (and numpy) treat them: a NaN added makes
/// the sum, mean, variance or covariance of its element NaN; +inf makes a sum or mean +inf (+inf
/// and -inf together: NaN) and a variance or covariance NaN. The compensated sum and acc::mean
/// overflow where their running sum leaves the double range, as numpy's do (±inf; NaN where
/// blocks overflow both ways); sum(acc::exact), and the mean and variance of acc::variance, do not
/// (exact, or within rounding, for any values up to ±DBL_MAX). (extrema, histogram and quantiles
/// skip NaN and count it.)

#include <chunkwise/detail/core/acc_shape.hpp>
#include <chunkwise/detail/core/sums.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace chunkwise::acc {

/// Asks acc::sum for an exactly rounded sum: `acc::sum<double> s(acc::exact);`.
struct exact_t {
    explicit exact_t() = default;
};
inline constexpr exact_t exact{};  ///< the tag that asks for an exact sum

namespace detail {
using chunkwise::detail::acc::bytes_reader;
using chunkwise::detail::acc::bytes_writer;
using chunkwise::detail::acc::elems_of;
using chunkwise::detail::acc::shape_of;
using chunkwise::detail::acc::shape_state;
using chunkwise::detail::acc::state_vector;
using chunkwise::detail::acc::values_of;

using chunkwise::detail::acc::big_magnitude;
using chunkwise::detail::acc::compensated_value;
using chunkwise::detail::acc::exact_add;
using chunkwise::detail::acc::exact_value;
using chunkwise::detail::acc::neumaier;
}  // namespace detail

/// How many values were added (no values: count() is a number of adds).
class count {
public:
    /// Counts one value.
    void add() noexcept { ++n_; }
    /// Counts `k` values at once.
    void add(std::uint64_t k) noexcept { n_ += k; }
    /// Adds another count.
    void merge(const count& o) noexcept { n_ += o.n_; }
    /// The count.
    [[nodiscard]] std::uint64_t value() const noexcept { return n_; }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() { return "acc::count/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:count";
        detail::bytes_writer(out).put(n_);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static count load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:count");
        count c;
        c.n_ = r.get<std::uint64_t>();
        r.done();
        return c;
    }

private:
    std::uint64_t n_ = 0;
};

/// A sum of values: compensated (Neumaier: the rounding error of each addition kept apart and
/// added back at the end), or exact with `sum(acc::exact)` (every bit kept; the result is the
/// correctly rounded sum, whatever the order: Shewchuk's partials, as Python's math.fsum). T: a
/// scalar or a tensor (element-wise).
template <class T = double>
requires chunkwise::detail::acc::accumulable<T>
class sum {
public:
    sum() = default;
    /// An exact sum (more memory per element: a few partials).
    explicit sum(exact_t) : exact_(true) {}

    /// Adds x (element-wise for tensors). \throws std::invalid_argument on a shape that differs
    void add(const T& x) {
        using V = detail::values_of<T>;
        if (shape_.accept(x, "acc::sum")) size_state();
        const auto* p = V::data(x);
        for (std::size_t i = 0; i < shape_.size(); ++i) put(i, static_cast<double>(p[i]));
    }
    /// Adds another sum's values. \throws std::invalid_argument on shapes or modes that differ
    void merge(const sum& o) {
        if (o.exact_ != exact_ && o.shape_.fixed() && shape_.fixed()) {
            throw std::invalid_argument("[chunkwise.acc] acc::sum: cannot merge an exact sum with a compensated one");
        }
        if (!shape_.fixed()) exact_ = o.exact_;
        if (shape_.merge(o.shape_, "acc::sum")) size_state();
        for (std::size_t i = 0; i < shape_.size() && o.shape_.fixed(); ++i) {
            if (exact_) {
                for (double y : o.partials_[i]) detail::exact_add(partials_[i], y);
                if (!o.big_.empty() && !o.big_[i].empty()) {
                    size_big();
                    for (double y : o.big_[i]) detail::exact_add(big_[i], y);
                }
                if (!o.special_.empty()) {
                    size_special();
                    special_[i] += o.special_[i];
                }
            } else {
                detail::neumaier(s_[i], c_[i], o.s_[i]);
                c_[i] += o.c_[i];  // compensations are tiny: added plainly (error ~ eps^2 |s|)
            }
        }
    }
    /// The sum (0 before any add).
    [[nodiscard]] T value() const {
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            if (!shape_.fixed()) return 0.0;
            if (!exact_) return detail::compensated_value(s_[i], c_[i]);
            if (!special_.empty() && special_[i] != 0) return special_[i];
            return big_.empty() ? detail::exact_value(partials_[i]) : detail::exact_value(partials_[i], big_[i]);
        });
    }
    /// True for an exact sum.
    [[nodiscard]] bool is_exact() const noexcept { return exact_; }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() { return "acc::sum<" + chunkwise::detail::value_codec<T>::type_name() + ">/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:sum";
        detail::bytes_writer w(out);
        w.put<std::uint8_t>(exact_ ? 1 : 0);
        w.put_shape(shape_);
        w.put_all(s_);
        w.put_all(c_);
        for (const auto& p : partials_) w.put_all(p);
        if (exact_ && (!big_.empty() || !special_.empty())) {  // values beyond 2^512, or not finite
            w.put<std::uint8_t>(1);
            for (std::size_t i = 0; i < partials_.size(); ++i)
                w.put_all(big_.empty() ? std::vector<double>{} : big_[i]);
            w.put_all(special_.empty() ? std::vector<double>(partials_.size(), 0.0) : special_);
        }
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static sum load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:sum");
        sum x;
        x.exact_ = r.get<std::uint8_t>() != 0;
        x.shape_ = r.get_shape();
        r.get_into(x.s_);
        r.get_into(x.c_);
        if (x.exact_) {
            for (std::size_t i = 0; i < x.shape_.size(); ++i) x.partials_.push_back(r.get_all<double>());
            if (!r.at_end() && r.get<std::uint8_t>() == 1) {
                for (std::size_t i = 0; i < x.shape_.size(); ++i) x.big_.push_back(r.get_all<double>());
                x.special_ = r.get_all<double>();
                if (x.special_.size() != x.partials_.size()) {
                    throw chunkwise::detail::codec_error("[chunkwise.acc] acc::sum: state of the wrong size");
                }
            }
        }
        if (!x.exact_ && x.shape_.fixed() && (x.s_.size() != x.shape_.size() || x.c_.size() != x.s_.size())) {
            throw chunkwise::detail::codec_error("[chunkwise.acc] acc::sum: state of the wrong size");
        }
        r.done();
        return x;
    }

private:
    void size_state() {
        if (exact_) {
            partials_.assign(shape_.size(), {});
            big_.clear();
            special_.clear();
        } else {
            s_.assign(shape_.size(), 0.0);
            c_.assign(shape_.size(), 0.0);
        }
    }
    void put(std::size_t i, double x) {
        if (!exact_) {
            detail::neumaier(s_[i], c_[i], x);
        } else if (std::fabs(x) < detail::big_magnitude) [[likely]] {
            detail::exact_add(partials_[i], x);
        } else if (std::isfinite(x)) {  // scaled: exact, and their sum cannot overflow
            size_big();
            detail::exact_add(big_[i], x / detail::big_magnitude);
        } else {  // ±inf, NaN: the value is their IEEE sum
            size_special();
            special_[i] += x;
        }
    }
    void size_big() {
        if (big_.empty()) big_.assign(partials_.size(), {});
    }
    void size_special() {
        if (special_.empty()) special_.assign(partials_.size(), 0.0);
    }

    bool exact_ = false;
    detail::shape_of<T> shape_;
    detail::elems_of<T, double> s_, c_;
    // Exact sums: per element, the partials of values below 2^512; of larger ones, scaled by
    // 2^-512 (only where there are any); and the sum of ±inf and NaN (only where there are any).
    std::vector<std::vector<double>> partials_, big_;
    std::vector<double> special_;
};

/// A mean, weighted by default by 1 per value: the sum of w x over the sum of w, each summed
/// compensated, and the number of values. A mean of blocks of different sizes merged is the mean
/// of all their values (not the mean of the block means). T: a scalar or a tensor (element-wise;
/// a weight applies to every element of its value).
template <class T = double>
requires chunkwise::detail::acc::accumulable<T>
class mean {
public:
    /// Adds x with weight 1.
    void add(const T& x) { add(x, 1.0); }
    /// Adds x with weight w. \throws std::invalid_argument on a shape that differs
    void add(const T& x, double w) {
        using V = detail::values_of<T>;
        if (shape_.accept(x, "acc::mean")) {
            swx_.assign(shape_.size(), 0.0);
            cwx_.assign(shape_.size(), 0.0);
        }
        const auto* p = V::data(x);
        for (std::size_t i = 0; i < shape_.size(); ++i)
            detail::neumaier(swx_[i], cwx_[i], w * static_cast<double>(p[i]));
        detail::neumaier(sw_, cw_, w);
        ++n_;
    }
    /// Adds another mean's values. \throws std::invalid_argument on shapes that differ
    void merge(const mean& o) {
        if (shape_.merge(o.shape_, "acc::mean")) {
            swx_.assign(shape_.size(), 0.0);
            cwx_.assign(shape_.size(), 0.0);
        }
        if (!o.shape_.fixed()) return;
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            detail::neumaier(swx_[i], cwx_[i], o.swx_[i]);
            cwx_[i] += o.cwx_[i];  // compensations are tiny: added plainly (error ~ eps^2 |s|)
        }
        detail::neumaier(sw_, cw_, o.sw_);
        cw_ += o.cw_;
        n_ += o.n_;
    }
    /// The weighted mean (NaN before any add).
    [[nodiscard]] T value() const {
        const double w = detail::compensated_value(sw_, cw_);
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            if (!shape_.fixed()) return std::numeric_limits<double>::quiet_NaN();
            return detail::compensated_value(swx_[i], cwx_[i]) / w;
        });
    }
    /// Values added.
    [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
    /// The sum of their weights.
    [[nodiscard]] double weight() const noexcept { return detail::compensated_value(sw_, cw_); }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() { return "acc::mean<" + chunkwise::detail::value_codec<T>::type_name() + ">/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:mean";
        detail::bytes_writer w(out);
        w.put_shape(shape_);
        w.put_each(swx_, cwx_);
        w.put(sw_);
        w.put(cw_);
        w.put(n_);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static mean load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:mean");
        mean x;
        x.shape_ = r.get_shape();
        r.get_each(x.shape_, "acc::mean", x.swx_, x.cwx_);
        x.sw_ = r.get<double>();
        x.cw_ = r.get<double>();
        x.n_ = r.get<std::uint64_t>();
        r.done();
        return x;
    }

private:
    detail::shape_of<T> shape_;
    detail::elems_of<T, double> swx_, cwx_;
    double sw_ = 0, cw_ = 0;
    std::uint64_t n_ = 0;
};

}  // namespace chunkwise::acc

#include <chunkwise/acc/variance.hpp>  // acc::variance, which this header has always brought
