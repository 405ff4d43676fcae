#pragma once
/// \file
/// `acc::variance`: count, mean, variance and standard deviation in one pass, mergeable
/// (standard library only). Include <chunkwise/accumulate.hpp>.

#include <chunkwise/detail/core/acc_shape.hpp>
#include <chunkwise/detail/core/row_sums.hpp>
#include <chunkwise/detail/core/sums.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace chunkwise::acc {

namespace detail {
using chunkwise::detail::acc::bytes_reader;
using chunkwise::detail::acc::bytes_writer;
using chunkwise::detail::acc::chan_merge;
using chunkwise::detail::acc::contiguous_values;
using chunkwise::detail::acc::elems_of;
using chunkwise::detail::acc::shape_of;
using chunkwise::detail::acc::values_of;
using chunkwise::detail::acc::welford_add;
}  // namespace detail

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
            const double v = static_cast<double>(p[i]);
            far_ = far_ || !(std::fabs(v) < far_magnitude);
            detail::welford_add(shift_[i], mean_[i], m2_[i], v, n);
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
        std::vector<chunkwise::detail::acc::rows_value_t<Rows>> copy;
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
                // (a value of magnitude 2^1020 or more makes s2 infinite, or is the shift)
                if (!std::isfinite(s2[i]) || !(std::fabs(shift[i]) < far_magnitude)) [[unlikely]] {
                    far_ = true;
                    // ±inf, NaN or values far apart in this element: one value at a time.
                    double bs = 0, bm = 0, b2 = 0;
                    for (std::size_t r = 0; r < k; ++r) {
                        const double x = static_cast<double>(p[r * m + j]);
                        if (r == 0) bs = std::isfinite(x) ? x : 0.0;
                        detail::welford_add(bs, bm, b2, x, static_cast<double>(r + 1));
                    }
                    if (n_ == 0) {
                        shift_[j] = bs;
                        mean_[j] = bm;
                        m2_[j] = b2;
                    } else {
                        detail::chan_merge(shift_[j], mean_[j], m2_[j], na, bs, bm, b2, kk);
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
                        detail::chan_merge(shift_[j], mean_[j], m2_[j], na, shift[i], mb, m2b, kk);
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
            far_ = o.far_;
            return;
        }
        const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_), n = na + nb;
        if (!(far_ || o.far_)) [[likely]] {
            // Every value below 2^1020 in magnitude: no difference of shifts or means overflows.
            for (std::size_t i = 0; i < shape_.size(); ++i) {
                // The other's mean in this state's frame (its shift moved to ours).
                const double d = (o.shift_[i] - shift_[i]) + o.mean_[i] - mean_[i];
                mean_[i] += d * (nb / n);
                m2_[i] += o.m2_[i] + d * d * (na * nb / n);
            }
        } else {
            for (std::size_t i = 0; i < shape_.size(); ++i) {
                detail::chan_merge(shift_[i], mean_[i], m2_[i], na, o.shift_[i], o.mean_[i], o.m2_[i], nb);
            }
            far_ = true;
        }
        n_ += o.n_;
    }
    /// Values added.
    [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
    /// Their mean (NaN before any add).
    [[nodiscard]] T mean() const {
        return make([&](std::size_t i) {
            if (n_ == 0) return std::numeric_limits<double>::quiet_NaN();
            return shift_[i] + mean_[i];  // a marked element: 0 + the sum of its non-finite values
        });
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
    static std::string type_name() { return "acc::variance<" + chunkwise::detail::value_codec<T>::type_name() + ">/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:variance";
        detail::bytes_writer w(out);
        w.put_shape(shape_);
        w.put(n_);
        w.put_each(shift_, mean_, m2_);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static variance load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:variance");
        variance x;
        x.shape_ = r.get_shape();
        x.n_ = r.get<std::uint64_t>();
        r.get_each(x.shape_, "acc::variance", x.shift_, x.mean_, x.m2_);
        for (std::size_t i = 0; i < x.mean_.size(); ++i) {
            x.far_ = x.far_ || !(std::fabs(x.shift_[i]) < far_magnitude) || !(std::fabs(x.mean_[i]) < far_magnitude) ||
                     std::isnan(x.m2_[i]);
        }
        r.done();
        return x;
    }

private:
    /// Values from this magnitude on (and ±inf, NaN) make merges check each difference of means.
    static constexpr double far_magnitude = 0x1p1020;

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
    bool far_ = false;  // a value of 2^1020 or more, ±inf or NaN was added: merges check each element
    std::uint64_t n_ = 0;
    // mean_: of (x - shift_); an element that received ±inf or NaN: shift_ 0, mean_ the sum of
    // those, m2_ NaN (detail/core/sums.hpp)
    detail::elems_of<T, double> shift_, mean_, m2_;
};

}  // namespace chunkwise::acc
