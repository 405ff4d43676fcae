#pragma once
// Internal: the arithmetic of the moments of <chunkwise/accumulate.hpp> (acc/moments.hpp,
// acc/variance.hpp): compensated sums (Neumaier), exact sums (Shewchuk's partials, as math.fsum),
// what keeps them in range past 2^512, Welford's update and Chan's merge of one element, kept
// right at the edges of double (±inf and NaN apart, deviations beyond DBL_MAX taken from 0 in
// halves), and a contiguous view of the rows add_rows reads.
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <vector>

namespace chunkwise::detail::acc {

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
/// from its data_offset()), else a copy of them in `copy` (strided or picked rows, other layouts).
template <class Rows, class Scalar>
const Scalar* contiguous_values(const Rows& rows, std::vector<Scalar>& copy) {
    if constexpr (requires {
                      rows.data();
                      rows.data_offset();
                      rows.strides();
                  }) {
        const auto& shape = rows.shape();
        const auto& strides = rows.strides();
        std::size_t expect = 1;
        bool row_major = true;
        for (std::size_t d = std::size(shape); d-- > 0;) {
            const auto extent = static_cast<std::size_t>(shape[d]);
            if (extent > 1 && static_cast<std::ptrdiff_t>(strides[d]) != static_cast<std::ptrdiff_t>(expect)) {
                row_major = false;
            }
            expect *= extent;
        }
        if (row_major) return rows.data() + rows.data_offset();
        copy.assign(std::begin(rows), std::end(rows));  // iterated in row-major order
        return copy.data();
    } else if constexpr (requires { rows.data(); } && !requires { rows.strides(); }) {
        (void)copy;
        return rows.data();  // a plain array (no strides: row-major storage)
    } else {
        copy.assign(std::begin(rows), std::end(rows));  // iterated in row-major order
        return copy.data();
    }
}

}  // namespace chunkwise::detail::acc
