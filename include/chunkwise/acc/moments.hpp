#pragma once
/// \file
/// Mergeable moments (standard library only): `acc::count`, `acc::sum` (compensated, or exact),
/// `acc::mean` (weighted), `acc::variance` (Welford per block, Chan et al. to merge);
/// `acc::covariance` is in acc/covariance.hpp. Each accumulates scalars, or element-wise tensors of one shape (xtensor
/// arrays: the shape is fixed by the first value added). A default-constructed one is the identity
/// of `merge`. Include <chunkwise/accumulate.hpp>; docs/combine.md says which to use for what.
///
/// NaN is data here: a NaN added makes the sum, mean, variance or covariance of its element NaN, as
/// IEEE arithmetic (and numpy) give. (extrema, histogram and quantiles skip NaN and count it.)

#include <chunkwise/detail/core/acc_shape.hpp>
#include <chunkwise/detail/core/row_sums.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
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
inline void neumaier(double& s, double& c, double x) noexcept {
    const double t = s + x;
    if (std::fabs(s) >= std::fabs(x)) {
        c += (s - t) + x;
    } else {
        c += (x - t) + s;
    }
    s = t;
}

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
            return exact_ ? detail::exact_value(partials_[i]) : s_[i] + c_[i];
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
        } else {
            s_.assign(shape_.size(), 0.0);
            c_.assign(shape_.size(), 0.0);
        }
    }
    void put(std::size_t i, double x) {
        if (exact_) {
            detail::exact_add(partials_[i], x);
        } else {
            detail::neumaier(s_[i], c_[i], x);
        }
    }

    bool exact_ = false;
    detail::shape_of<T> shape_;
    detail::elems_of<T, double> s_, c_;
    std::vector<std::vector<double>> partials_;
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
        for (std::size_t i = 0; i < shape_.size(); ++i) detail::neumaier(swx_[i], cwx_[i], w * static_cast<double>(p[i]));
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
        const double w = sw_ + cw_;
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            return shape_.fixed() ? (swx_[i] + cwx_[i]) / w : std::numeric_limits<double>::quiet_NaN();
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
        r.done();
        return x;
    }

private:
    detail::shape_of<T> shape_;
    detail::elems_of<T, double> swx_, cwx_;
    double sw_ = 0, cw_ = 0;
    std::uint64_t n_ = 0;
};

/// Count, mean and variance (and standard deviation), in one pass: Welford's update per value of
/// its deviation from the first value (a shift that keeps 1e9 + small values as exact as a
/// two-pass algorithm), Chan, Golub and LeVeque's to merge two blocks' states. T: a scalar or a
/// tensor (element-wise).
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
            for (std::size_t i = 0; i < shape_.size(); ++i) shift_[i] = static_cast<double>(p[i]);
        }
        ++n_;
        const double n = static_cast<double>(n_);
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            const double v = static_cast<double>(p[i]) - shift_[i];
            const double d = v - mean_[i];
            mean_[i] += d / n;
            m2_[i] += d * (v - mean_[i]);
        }
    }
    /// Adds every row of `rows` (axis 0: one value per row, e.g. the frames of a block of shape
    /// (frames, atoms, 3) to a variance of (atoms, 3)), in one pass over memory: the rows' shifted
    /// sums, merged as one block's state. Faster than add per row; the bits differ from it (the
    /// same call gives the same bits everywhere). \throws std::invalid_argument on a row shape
    /// that differs
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
        const auto* p = rows.data();
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
                double m2b = s2[i] - s1[i] * s1[i] / kk;
                if (m2b < 0) m2b = 0;  // rounding below zero
                const double mb = s1[i] / kk;
                const std::size_t j = t0 + i;
                if (n_ == 0) {
                    shift_[j] = shift[i];
                    mean_[j] = mb;
                    m2_[j] = m2b;
                } else {
                    const double d = (shift[i] - shift_[j]) + mb - mean_[j];
                    mean_[j] += d * (kk / n);
                    m2_[j] += m2b + d * d * (na * kk / n);
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
            return;
        }
        const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_), n = na + nb;
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            // The other's mean in this state's frame (its shift moved to ours).
            const double d = (o.shift_[i] - shift_[i]) + o.mean_[i] - mean_[i];
            mean_[i] += d * (nb / n);
            m2_[i] += o.m2_[i] + d * d * (na * nb / n);
        }
        n_ += o.n_;
    }
    /// Values added.
    [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
    /// Their mean (NaN before any add).
    [[nodiscard]] T mean() const {
        return make(
            [&](std::size_t i) { return n_ > 0 ? shift_[i] + mean_[i] : std::numeric_limits<double>::quiet_NaN(); });
    }
    /// The variance: the sum of squared deviations over (count - ddof); NaN where count <= ddof.
    [[nodiscard]] T var(unsigned ddof = 0) const {
        return make([&](std::size_t i) {
            return n_ > ddof ? m2_[i] / static_cast<double>(n_ - ddof) : std::numeric_limits<double>::quiet_NaN();
        });
    }
    /// The standard deviation: sqrt(var(ddof)).
    [[nodiscard]] T std(unsigned ddof = 0) const {
        return make([&](std::size_t i) {
            return n_ > ddof ? std::sqrt(m2_[i] / static_cast<double>(n_ - ddof))
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
        if (x.shape_.fixed() && (x.mean_.size() != x.shape_.size() || x.m2_.size() != x.mean_.size() ||
                                 x.shift_.size() != x.mean_.size())) {
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
};

}  // namespace chunkwise::acc
