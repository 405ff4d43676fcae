#pragma once
/// \file
/// Mergeable moments (standard library only): `acc::count`, `acc::sum` (compensated, or exact),
/// `acc::mean` (weighted), `acc::variance` (Welford per block, Chan et al. to merge);
/// `acc::covariance` is in acc/covariance.hpp. Each accumulates scalars, or element-wise tensors of one shape (xtensor
/// arrays: the shape is fixed by the first value added). A default-constructed one is the identity
/// of `merge`. Include <chunkwise/accumulate.hpp>; docs/combine.md says which to use for what.
///
/// NaN and infinity are data here, as IEEE arithmetic (and numpy) treat them: a NaN added makes
/// the sum, mean, variance or covariance of its element NaN; +inf makes a sum or mean +inf (+inf
/// and -inf together: NaN) and a variance or covariance NaN. The compensated sum and the mean
/// overflow to ±inf where their running sum leaves the double range (as numpy's); sum(acc::exact),
/// and the mean and variance of acc::variance, do not (they stay exact, or within rounding, up to
/// ±DBL_MAX). (extrema, histogram and quantiles skip NaN and count it.)

#include <chunkwise/detail/core/acc_shape.hpp>
#include <chunkwise/detail/core/row_sums.hpp>

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

/// s + c, compensated (Neumaier): adds x to the running sum s with its error in c.
/// Once the sum is ±inf or NaN (an infinite value, or an overflow) it is the value: the
/// compensation stays as it was (s + c is then s, as IEEE arithmetic gives).
inline void neumaier(double& s, double& c, double x) noexcept {
    const double t = s + x;
    if (std::isfinite(t)) [[likely]] {
        if (std::fabs(s) >= std::fabs(x)) {
            c += (s - t) + x;
        } else {
            c += (x - t) + s;
        }
    }
    s = t;
}

/// Values at or above this magnitude go to an exact sum's scaled partials (multiplied by
/// 1 / big_magnitude: exact, and no sum of them can overflow).
inline constexpr double big_magnitude = 0x1p512;

/// What a compensated sum (acc::sum, acc::mean) keeps once it has seen a value of 2^512 or more:
/// every element scaled by 2^-512, so that no running sum of doubles overflows (1e308 + 1e308 -
/// 1e308 is 1e308). Values below 2^-510 then lose bits; sums of ordinary values keep theirs.
inline constexpr double far_scale = 0x1p-512;

/// Adds x to the partials of an exact sum (Shewchuk's algorithm, as Python's math.fsum).
inline void exact_add(std::vector<double>& partials, double x) {
    std::size_t i = 0;
    for (double y : partials) {
        if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
        const double hi = x + y;
        const double lo = y - (hi - x);
        if (lo != 0.0) partials[i++] = lo;
        x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
}

/// The correctly rounded value of an exact sum's partials (math.fsum's last step).
inline double exact_value(const std::vector<double>& partials) {
    if (partials.empty()) return 0.0;
    std::size_t n = partials.size();
    double hi = partials[--n], lo = 0;
    while (n > 0) {
        const double x = hi, y = partials[--n];
        hi = x + y;
        const double yr = hi - x;
        lo = y - yr;
        if (lo != 0.0) break;
    }
    if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
        const double y = lo * 2;
        const double x = hi + y;
        if (y == x - hi) hi = x;
    }
    return hi;
}

/// The correctly rounded value of small + big * 2^512 (an exact sum's two sets of partials), or
/// ±inf where it leaves the double range.
inline double exact_value(const std::vector<double>& small, const std::vector<double>& big) {
    if (big.empty()) return exact_value(small);
    const double top = big.back();  // partials rise in magnitude: the last one carries the sign
    std::vector<double> all = small;
    for (double b : big) {
        const double x = b * big_magnitude;
        if (!std::isfinite(x)) return top > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
        exact_add(all, x);
        if (!std::isfinite(all.back())) return all.back();  // the sum itself is beyond the range
    }
    return exact_value(all);
}

/// One element of a variance: adds x, the n-th value (n counts it). The state is the shift (a
/// value the others are measured from), the mean of the deviations from it, their sum of squared
/// deviations, and the IEEE sum of the values that were not finite (0 while there are none:
/// then the mean is that sum and the variance NaN, whatever the rest holds).
inline void welford_add(double& shift, double& mean, double& m2, double& special, double x, double n) noexcept {
    if (!std::isfinite(x)) [[unlikely]] {
        special += x;
        return;
    }
    double v = x - shift;
    double d = v - mean;
    if (!std::isfinite(d)) [[unlikely]] {
        // x far from the shift or the mean (more than DBL_MAX apart): measured from 0, in halves.
        if (!std::isfinite(v)) {
            mean += shift;  // the running mean itself: finite
            shift = 0;
            v = x;
        }
        d = v - mean;
        if (!std::isfinite(d)) {
            const double h = v * 0.5 - mean * 0.5;  // d / 2
            mean += h / (n * 0.5);
            m2 += 2.0 * (h * (v - mean));  // beyond DBL_MAX: inf
            return;
        }
    }
    mean += d / n;
    m2 += d * (v - mean);
}

/// One element of a variance: merges another state of nb values into this one of na (na > 0).
inline void chan_merge(double& shift, double& mean, double& m2, double& special, double na, double oshift, double omean,
                       double om2, double ospecial, double nb) noexcept {
    special += ospecial;
    const double n = na + nb;
    const double d = (oshift - shift) + omean - mean;
    if (std::isfinite(d)) [[likely]] {
        mean += d * (nb / n);
        m2 += om2 + d * d * (na * nb / n);
        return;
    }
    if (special != 0) return;  // a non-finite value decides both
    // Shifts or means more than DBL_MAX apart: both means as values, measured from 0.
    const double ma = shift + mean, mb = oshift + omean;
    shift = 0;
    mean = ma * (na / n) + mb * (nb / n);
    const double dd = 2.0 * (mb * 0.5 - ma * 0.5);
    m2 += om2 + (std::isfinite(dd) ? dd * dd * (na * nb / n) : std::numeric_limits<double>::infinity());
}

/// A contiguous pointer to the values of `rows` (row-major, in order): the array's own storage
/// where its elements lie there in row-major order (an xtensor array, or a view of whole rows:
/// from its data_offset()), else a copy of them in `copy`.
template <class Rows, class Scalar>
const Scalar* contiguous_values(const Rows& rows, std::vector<Scalar>& copy) {
    if constexpr (requires {
                      rows.data_offset();
                      rows.strides();
                  }) {
        const auto& shape = rows.shape();
        const auto& strides = rows.strides();
        std::size_t expect = 1;
        bool row_major = true;
        for (std::size_t d = std::size(shape); d-- > 0;) {
            const auto extent = static_cast<std::size_t>(shape[d]);
            if (extent > 1 && static_cast<std::ptrdiff_t>(strides[d]) != static_cast<std::ptrdiff_t>(expect)) row_major = false;
            expect *= extent;
        }
        if (row_major) return rows.data() + rows.data_offset();
        copy.assign(rows.begin(), rows.end());  // iterated in row-major order
        return copy.data();
    } else {
        return rows.data();
    }
}
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
                if (o.scaled_ && !scaled_) scale();
                const double f = scaled_ && !o.scaled_ ? detail::far_scale : 1.0;
                detail::neumaier(s_[i], c_[i], o.s_[i] * f);
                c_[i] += o.c_[i] * f;  // compensations are tiny: added plainly (error ~ eps^2 |s|)
            }
        }
    }
    /// The sum (0 before any add).
    [[nodiscard]] T value() const {
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            if (!shape_.fixed()) return 0.0;
            if (!exact_) return scaled_ ? (s_[i] + c_[i]) / detail::far_scale : s_[i] + c_[i];
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
        if (!exact_ && scaled_) w.put<std::uint8_t>(2);  // every element scaled by 2^-512
        if (exact_ && (!big_.empty() || !special_.empty())) {  // values beyond 2^512, or not finite
            w.put<std::uint8_t>(1);
            for (std::size_t i = 0; i < partials_.size(); ++i) w.put_all(big_.empty() ? std::vector<double>{} : big_[i]);
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
        if (!x.exact_ && !r.at_end()) {
            if (r.get<std::uint8_t>() != 2) throw chunkwise::detail::codec_error("[chunkwise.acc] acc::sum: a damaged state");
            x.scaled_ = true;
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
            scaled_ = false;
        }
    }
    void put(std::size_t i, double x) {
        if (!exact_) {
            if (!scaled_) {
                if (std::fabs(x) < detail::big_magnitude || !std::isfinite(x)) [[likely]] {
                    detail::neumaier(s_[i], c_[i], x);
                    return;
                }
                scale();
            }
            detail::neumaier(s_[i], c_[i], x * detail::far_scale);
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
    void scale() {  // a value of 2^512 or more: every element from now on scaled by 2^-512
        for (std::size_t i = 0; i < s_.size(); ++i) {
            s_[i] *= detail::far_scale;
            c_[i] *= detail::far_scale;
        }
        scaled_ = true;
    }
    void size_big() {
        if (big_.empty()) big_.assign(partials_.size(), {});
    }
    void size_special() {
        if (special_.empty()) special_.assign(partials_.size(), 0.0);
    }

    bool exact_ = false;
    bool scaled_ = false;  // compensated sums: s_, c_ scaled by 2^-512 (a value beyond 2^512 came)
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
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            const double x = static_cast<double>(p[i]);
            if (!scaled_) {
                const double wx = w * x;
                if (std::fabs(wx) < detail::big_magnitude || !std::isfinite(x) || !std::isfinite(w)) [[likely]] {
                    detail::neumaier(swx_[i], cwx_[i], wx);
                    continue;
                }
                scale();
            }
            detail::neumaier(swx_[i], cwx_[i], (w * detail::far_scale) * x);
        }
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
        if (o.scaled_ && !scaled_) scale();
        const double f = scaled_ && !o.scaled_ ? detail::far_scale : 1.0;
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            detail::neumaier(swx_[i], cwx_[i], o.swx_[i] * f);
            cwx_[i] += o.cwx_[i] * f;  // compensations are tiny: added plainly (error ~ eps^2 |s|)
        }
        detail::neumaier(sw_, cw_, o.sw_);
        cw_ += o.cw_;
        n_ += o.n_;
    }
    /// The weighted mean (NaN before any add).
    [[nodiscard]] T value() const {
        const double w = sw_ + cw_;
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            if (!shape_.fixed()) return std::numeric_limits<double>::quiet_NaN();
            return scaled_ ? ((swx_[i] + cwx_[i]) / w) / detail::far_scale : (swx_[i] + cwx_[i]) / w;
        });
    }
    /// Values added.
    [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
    /// The sum of their weights.
    [[nodiscard]] double weight() const noexcept { return sw_ + cw_; }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() { return "acc::mean<" + chunkwise::detail::value_codec<T>::type_name() + ">/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:mean";
        detail::bytes_writer w(out);
        w.put_shape(shape_);
        w.put_all(swx_);
        w.put_all(cwx_);
        w.put(sw_);
        w.put(cw_);
        w.put(n_);
        if (scaled_) w.put<std::uint8_t>(2);  // every element scaled by 2^-512
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static mean load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:mean");
        mean x;
        x.shape_ = r.get_shape();
        r.get_into(x.swx_);
        r.get_into(x.cwx_);
        x.sw_ = r.get<double>();
        x.cw_ = r.get<double>();
        x.n_ = r.get<std::uint64_t>();
        if (x.shape_.fixed() && (x.swx_.size() != x.shape_.size() || x.cwx_.size() != x.swx_.size())) {
            throw chunkwise::detail::codec_error("[chunkwise.acc] acc::mean: state of the wrong size");
        }
        if (!r.at_end()) {
            if (r.get<std::uint8_t>() != 2) throw chunkwise::detail::codec_error("[chunkwise.acc] acc::mean: a damaged state");
            x.scaled_ = true;
        }
        r.done();
        return x;
    }

private:
    void scale() {  // a weighted value of 2^512 or more: every element from now on scaled by 2^-512
        for (std::size_t i = 0; i < swx_.size(); ++i) {
            swx_[i] *= detail::far_scale;
            cwx_[i] *= detail::far_scale;
        }
        scaled_ = true;
    }

    detail::shape_of<T> shape_;
    bool scaled_ = false;  // swx_, cwx_ scaled by 2^-512 (a weighted value beyond 2^512 came)
    detail::elems_of<T, double> swx_, cwx_;
    double sw_ = 0, cw_ = 0;
    std::uint64_t n_ = 0;
};

/// Count, mean and variance (and standard deviation), in one pass: Welford's update per value of
/// its deviation from the first value (a shift that keeps 1e9 + small values as exact as a
/// two-pass algorithm), Chan, Golub and LeVeque's to merge two blocks' states. Values up to
/// ±DBL_MAX keep the mean within rounding (deviations that would leave the double range are
/// taken from 0, in halves). An element that received ±inf or NaN has the IEEE mean of those
/// (±inf or NaN, as numpy's) and a NaN variance. T: a scalar or a tensor (element-wise).
template <class T = double>
    requires chunkwise::detail::acc::accumulable<T>
class variance {
public:
    /// Adds x. \throws std::invalid_argument on a shape that differs
    void add(const T& x) {
        using V = detail::values_of<T>;
        if (shape_.accept(x, "acc::variance")) size_state();
        const auto* p = V::data(x);
        if (n_ == 0) {  // the first value is the shift: deviations from it are small and exact
            for (std::size_t i = 0; i < shape_.size(); ++i) {
                const double v = static_cast<double>(p[i]);
                shift_[i] = std::isfinite(v) ? v : 0.0;
            }
        }
        ++n_;
        const double n = static_cast<double>(n_);
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            detail::welford_add(shift_[i], mean_[i], m2_[i], special_[i], static_cast<double>(p[i]), n);
        }
    }
    /// Adds every row of `rows` (axis 0: one value per row, e.g. the frames of a block of shape
    /// (frames, atoms, 3) to a variance of (atoms, 3)), in one pass over memory: the rows' shifted
    /// sums, merged as one block's state. Faster than add per row; the bits differ from it (the
    /// same call gives the same bits everywhere). `rows` may be an array or a view of one (rows
    /// 5..9, a strided view): its own elements are read, in row-major order.
    /// \throws std::invalid_argument on a row shape that differs
    template <chunkwise::detail::acc::stacked_rows Rows>
    void add_rows(const Rows& rows) {
        std::size_t k = 0;
        const std::vector<std::size_t> shape = chunkwise::detail::acc::row_shape(rows, k);
        if (shape_.accept_shape(shape, "acc::variance::add_rows")) size_state();
        const std::size_t m = shape_.size();
        if (k == 0) return;
        if (static_cast<std::size_t>(rows.size()) != k * m) {
            throw std::invalid_argument("[chunkwise.acc] acc::variance::add_rows: the rows hold " +
                                        std::to_string(rows.size()) + " values, not " + std::to_string(k * m));
        }
        std::vector<std::remove_cvref_t<decltype(*rows.data())>> copy;
        const auto* p = detail::contiguous_values(rows, copy);
        // Tiles of elements, every row of each: the tile's shifted sums (shift: the first row) stay
        // in cache while the rows pass, then merge into the state in place as merge() would merge
        // this block's state (the same arithmetic, no block-sized temporary).
        constexpr std::size_t tile = chunkwise::detail::acc::row_sums_tile;
        alignas(64) double shift[tile], s1[tile], s2[tile];
        const double kk = static_cast<double>(k), na = static_cast<double>(n_), n = na + kk;
        for (std::size_t t0 = 0; t0 < m; t0 += tile) {
            const std::size_t len = std::min(m, t0 + tile) - t0;
            chunkwise::detail::acc::row_sums(p, k, m, t0, len, shift, s1, s2);
            for (std::size_t i = 0; i < len; ++i) {
                const std::size_t j = t0 + i;
                if (!std::isfinite(s2[i]) || !std::isfinite(shift[i])) [[unlikely]] {
                    // ±inf, NaN or values far apart in this element: one value at a time.
                    double bs = 0, bm = 0, b2 = 0, bx = 0;
                    for (std::size_t r = 0; r < k; ++r) {
                        const double x = static_cast<double>(p[r * m + j]);
                        if (r == 0) bs = std::isfinite(x) ? x : 0.0;
                        detail::welford_add(bs, bm, b2, bx, x, static_cast<double>(r + 1));
                    }
                    if (n_ == 0) {
                        shift_[j] = bs;
                        mean_[j] = bm;
                        m2_[j] = b2;
                        special_[j] = bx;
                    } else {
                        detail::chan_merge(shift_[j], mean_[j], m2_[j], special_[j], na, bs, bm, b2, bx, kk);
                    }
                    continue;
                }
                double m2b = s2[i] - s1[i] * s1[i] / kk;
                if (m2b < 0) m2b = 0;  // rounding below zero
                const double mb = s1[i] / kk;
                if (n_ == 0) {
                    shift_[j] = shift[i];
                    mean_[j] = mb;
                    m2_[j] = m2b;
                } else {
                    const double d = (shift[i] - shift_[j]) + mb - mean_[j];
                    if (std::isfinite(d)) [[likely]] {
                        mean_[j] += d * (kk / n);
                        m2_[j] += m2b + d * d * (na * kk / n);
                    } else {
                        detail::chan_merge(shift_[j], mean_[j], m2_[j], special_[j], na, shift[i], mb, m2b, 0.0, kk);
                    }
                }
            }
        }
        n_ += k;
    }
    /// Adds another state's values. \throws std::invalid_argument on shapes that differ
    void merge(const variance& o) {
        if (shape_.merge(o.shape_, "acc::variance")) size_state();
        if (o.n_ == 0) return;
        if (n_ == 0) {
            n_ = o.n_;
            shift_ = o.shift_;
            mean_ = o.mean_;
            m2_ = o.m2_;
            special_ = o.special_;
            return;
        }
        const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_);
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            // The other's mean in this state's frame (its shift moved to ours).
            detail::chan_merge(shift_[i], mean_[i], m2_[i], special_[i], na, o.shift_[i], o.mean_[i], o.m2_[i],
                               o.special_[i], nb);
        }
        n_ += o.n_;
    }
    /// Values added.
    [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
    /// Their mean (NaN before any add).
    [[nodiscard]] T mean() const {
        return make([&](std::size_t i) {
            if (n_ == 0) return std::numeric_limits<double>::quiet_NaN();
            return special_[i] != 0 ? special_[i] : shift_[i] + mean_[i];
        });
    }
    /// The variance: the sum of squared deviations over (count - ddof); NaN where count <= ddof.
    [[nodiscard]] T var(unsigned ddof = 0) const {
        return make([&](std::size_t i) {
            return n_ > ddof && special_[i] == 0 ? m2_[i] / static_cast<double>(n_ - ddof)
                                                 : std::numeric_limits<double>::quiet_NaN();
        });
    }
    /// The standard deviation: sqrt(var(ddof)).
    [[nodiscard]] T std(unsigned ddof = 0) const {
        return make([&](std::size_t i) {
            return n_ > ddof && special_[i] == 0 ? std::sqrt(m2_[i] / static_cast<double>(n_ - ddof))
                                                 : std::numeric_limits<double>::quiet_NaN();
        });
    }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() {
        return "acc::variance<" + chunkwise::detail::value_codec<T>::type_name() + ">/1";
    }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:variance";
        detail::bytes_writer w(out);
        w.put_shape(shape_);
        w.put(n_);
        w.put_all(shift_);
        w.put_all(mean_);
        w.put_all(m2_);
        w.put_all(special_);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static variance load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:variance");
        variance x;
        x.shape_ = r.get_shape();
        x.n_ = r.get<std::uint64_t>();
        r.get_into(x.shift_);
        r.get_into(x.mean_);
        r.get_into(x.m2_);
        if (r.at_end()) {  // saved before non-finite values were kept apart
            x.special_.assign(x.mean_.size(), 0.0);
        } else {
            r.get_into(x.special_);
        }
        if (x.shape_.fixed() && (x.mean_.size() != x.shape_.size() || x.m2_.size() != x.mean_.size() ||
                                 x.shift_.size() != x.mean_.size() || x.special_.size() != x.mean_.size())) {
            throw chunkwise::detail::codec_error("[chunkwise.acc] acc::variance: state of the wrong size");
        }
        r.done();
        return x;
    }

private:
    void size_state() {
        shift_.assign(shape_.size(), 0.0);
        mean_.assign(shape_.size(), 0.0);
        m2_.assign(shape_.size(), 0.0);
        special_.assign(shape_.size(), 0.0);
    }
    template <class F>
    T make(F&& at) const {
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            return shape_.fixed() ? at(i) : std::numeric_limits<double>::quiet_NaN();
        });
    }

    detail::shape_of<T> shape_;
    std::uint64_t n_ = 0;
    detail::elems_of<T, double> shift_, mean_, m2_;  // mean_: of (x - shift_)
    detail::elems_of<T, double> special_;            // the IEEE sum of the non-finite values (0: none)
};

}  // namespace chunkwise::acc
