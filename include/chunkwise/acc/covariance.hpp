#pragma once
/// \file
/// `acc::covariance`: covariance and correlation of pairs, mergeable (standard library only).
/// Include <chunkwise/accumulate.hpp>.

#include <chunkwise/acc/moments.hpp>
#include <chunkwise/detail/core/acc_shape.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace chunkwise::acc {

namespace detail {
using chunkwise::detail::acc::far_deviation;
}  // namespace detail

/// Covariance and correlation of pairs (x, y), in one pass (the co-moment of the deviations from
/// the first pair updated as Welford's M2, merged as Chan et al.'s). Values up to ±DBL_MAX keep
/// their means within rounding (as acc::variance); an element that received ±inf or NaN in x or y
/// has a NaN covariance and correlation (as numpy's); a co-moment beyond the double range is
/// ±inf, or NaN where blocks of both signs overflow (numpy gives NaN there too). T: a scalar or a tensor (element-wise:
/// x and y of one shape).
template <class T = double>
requires chunkwise::detail::acc::accumulable<T>
class covariance {
public:
    /// Adds the pair (x, y). \throws std::invalid_argument on shapes that differ
    void add(const T& x, const T& y) {
        using V = detail::values_of<T>;
        if (shape_.accept(x, "acc::covariance")) size_state();
        (void)shape_.accept(y, "acc::covariance");
        const auto* px = V::data(x);
        const auto* py = V::data(y);
        if (n_ == 0) {  // the first pair is the shift (as in acc::variance)
            for (std::size_t i = 0; i < shape_.size(); ++i) {
                const double a = static_cast<double>(px[i]), b = static_cast<double>(py[i]);
                sx_[i] = std::isfinite(a) ? a : 0.0;
                sy_[i] = std::isfinite(b) ? b : 0.0;
            }
        }
        ++n_;
        const double n = static_cast<double>(n_);
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            const double xi = static_cast<double>(px[i]), yi = static_cast<double>(py[i]);
            const double a = xi - sx_[i], b = yi - sy_[i];
            const double dx = a - mx_[i], dy = b - my_[i];
            if (std::isfinite(dx) && std::isfinite(dy)) [[likely]] {
                mx_[i] += dx / n;
                my_[i] += dy / n;
                cxy_[i] += dx * (b - my_[i]);
                m2x_[i] += dx * (a - mx_[i]);
                m2y_[i] += dy * (b - my_[i]);
            } else if (!std::isfinite(xi) || !std::isfinite(yi)) {
                cxy_[i] = std::numeric_limits<double>::quiet_NaN();  // the covariance is NaN from now on
            } else {
                add_far(i, xi, yi, n);
            }
        }
    }
    /// Adds another state's pairs. \throws std::invalid_argument on shapes that differ
    void merge(const covariance& o) {
        if (shape_.merge(o.shape_, "acc::covariance")) size_state();
        if (o.n_ == 0) return;
        if (n_ == 0) {
            *this = o;
            return;
        }
        const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_), n = na + nb, f = na * nb / n;
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            const double dx = (o.sx_[i] - sx_[i]) + o.mx_[i] - mx_[i];
            const double dy = (o.sy_[i] - sy_[i]) + o.my_[i] - my_[i];
            if (std::isfinite(dx) && std::isfinite(dy)) [[likely]] {
                mx_[i] += dx * (nb / n);
                my_[i] += dy * (nb / n);
                cxy_[i] += o.cxy_[i] + dx * dy * f;
                m2x_[i] += o.m2x_[i] + dx * dx * f;
                m2y_[i] += o.m2y_[i] + dy * dy * f;
            } else if (std::isnan(cxy_[i]) || std::isnan(o.cxy_[i])) {
                cxy_[i] = std::numeric_limits<double>::quiet_NaN();
            } else {
                // Means more than DBL_MAX apart: both as values, measured from 0, in halves.
                const double ax = sx_[i] + mx_[i], bx = o.sx_[i] + o.mx_[i];
                const double ay = sy_[i] + my_[i], by = o.sy_[i] + o.my_[i];
                const double hx = bx * 0.5 - ax * 0.5, hy = by * 0.5 - ay * 0.5;
                sx_[i] = sy_[i] = 0;
                mx_[i] = ax * (na / n) + bx * (nb / n);
                my_[i] = ay * (na / n) + by * (nb / n);
                cxy_[i] += o.cxy_[i] + 4.0 * (hx * hy * f);
                m2x_[i] += o.m2x_[i] + 4.0 * (hx * hx * f);
                m2y_[i] += o.m2y_[i] + 4.0 * (hy * hy * f);
            }
        }
        n_ += o.n_;
    }
    /// Pairs added.
    [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
    /// The covariance: the co-moment over (count - ddof); NaN where count <= ddof.
    [[nodiscard]] T cov(unsigned ddof = 0) const {
        return make([&](std::size_t i) {
            return n_ > ddof ? cxy_[i] / static_cast<double>(n_ - ddof) : std::numeric_limits<double>::quiet_NaN();
        });
    }
    /// Pearson's correlation (NaN where either variance is 0 or nothing was added).
    [[nodiscard]] T corr() const {
        return make(
            [&](std::size_t i) { return n_ > 0 ? cxy_[i] / (std::sqrt(m2x_[i]) * std::sqrt(m2y_[i])) : std::nan(""); });
    }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() {
        return "acc::covariance<" + chunkwise::detail::value_codec<T>::type_name() + ">/1";
    }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:covariance";
        detail::bytes_writer w(out);
        w.put_shape(shape_);
        w.put(n_);
        w.put_each(sx_, sy_, mx_, my_, cxy_, m2x_, m2y_);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static covariance load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:covariance");
        covariance x;
        x.shape_ = r.get_shape();
        x.n_ = r.get<std::uint64_t>();
        r.get_each(x.shape_, "acc::covariance", x.sx_, x.sy_, x.mx_, x.my_, x.cxy_, x.m2x_, x.m2y_);
        r.done();
        return x;
    }

private:
    void size_state() {
        for (auto* v : {&sx_, &sy_, &mx_, &my_, &cxy_, &m2x_, &m2y_}) v->assign(shape_.size(), 0.0);
    }
    // A pair whose deviations leave the double range: taken from 0, in halves where needed.
    void add_far(std::size_t i, double xi, double yi, double n) {
        bool half_x = false, half_y = false;
        const double dx = detail::far_deviation(sx_[i], mx_[i], xi, half_x);
        const double dy = detail::far_deviation(sy_[i], my_[i], yi, half_y);
        const double fx = half_x ? 2.0 : 1.0, fy = half_y ? 2.0 : 1.0;  // dx * fx: the deviation
        mx_[i] += dx / (n / fx);
        my_[i] += dy / (n / fy);
        const double rx = (xi - sx_[i]) * 0.5 - mx_[i] * 0.5, ry = (yi - sy_[i]) * 0.5 - my_[i] * 0.5;  // halved
        cxy_[i] += (2.0 * fx) * (dx * ry);
        m2x_[i] += (2.0 * fx) * (dx * rx);
        m2y_[i] += (2.0 * fy) * (dy * ry);
    }
    template <class F>
    T make(F&& at) const {
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            return shape_.fixed() ? at(i) : std::numeric_limits<double>::quiet_NaN();
        });
    }

    detail::shape_of<T> shape_;
    std::uint64_t n_ = 0;
    detail::elems_of<T, double> sx_, sy_;                    // the shift: the first pair
    detail::elems_of<T, double> mx_, my_, cxy_, m2x_, m2y_;  // cxy_ NaN: an x or y was ±inf or NaN
};

}  // namespace chunkwise::acc
