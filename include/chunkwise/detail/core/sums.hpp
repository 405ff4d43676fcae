#pragma once
// Internal: the arithmetic of the moments of <chunkwise/accumulate.hpp> (acc/moments.hpp,
// acc/variance.hpp): compensated sums (Neumaier), exact sums (Shewchuk's partials, as math.fsum,
// kept exact past 2^512), Welford's update and Chan's merge of one element, kept
// right at the edges of double (±inf and NaN marked, deviations beyond DBL_MAX taken from 0 in
// halves) at no cost to ordinary values, and a contiguous view of the rows add_rows reads.
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <vector>

namespace chunkwise::detail::acc {

/// s + c, compensated (Neumaier): adds x to the running sum s with its error in c. Once s is
/// ±inf or NaN (an infinite value came) it stays so, whatever c holds: read the sum with
/// compensated_value.
inline void neumaier(double& s, double& c, double x) noexcept {
    const double t = s + x;
    if (std::fabs(s) >= std::fabs(x)) {
        c += (s - t) + x;
    } else {
        c += (x - t) + s;
    }
    s = t;
}

/// The value of a compensated sum (s, c): s + c, or s itself once it is ±inf or NaN (as IEEE
/// arithmetic gives: {inf, 1} is inf, never the NaN of inf + its compensation).
inline double compensated_value(double s, double c) noexcept { return std::isfinite(s) ? s + c : s; }

/// Values at or above this magnitude go to an exact sum's scaled partials (multiplied by
/// 1 / big_magnitude: exact, and no sum of them can overflow).
inline constexpr double big_magnitude = 0x1p512;

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
        if (!std::isfinite(x))
            return top > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
        exact_add(all, x);
        if (!std::isfinite(all.back())) return all.back();  // the sum itself is beyond the range
    }
    return exact_value(all);
}

#if defined(__GNUC__)
#define CHUNKWISE_COLD [[gnu::cold, gnu::noinline]]
#else
#define CHUNKWISE_COLD
#endif

/// A value's deviation from the running mean `m` in the frame `shift`, where it would leave the
/// double range: the frame moved to 0 if x is more than DBL_MAX from it, and the deviation returned
/// halved (`half`: true) if it is still too large, else whole.
inline double far_deviation(double& shift, double& m, double x, bool& half) noexcept {
    double v = x - shift;
    if (!std::isfinite(v)) {
        m += shift;  // the running mean itself: finite
        shift = 0;
        v = x;
    }
    const double d = v - m;
    half = !std::isfinite(d);
    return half ? v * 0.5 - m * 0.5 : d;
}

/// welford_add where the deviation d is not finite: x is ±inf or NaN, the element is marked, or x
/// lies more than DBL_MAX from the shift or the mean.
CHUNKWISE_COLD inline void welford_add_far(double& shift, double& mean, double& m2, double x, double n) noexcept {
    if (std::isnan(m2)) {  // already marked: only non-finite values count
        if (!std::isfinite(x)) mean += x;
        return;
    }
    if (!std::isfinite(x)) {  // the first non-finite value: mark the element
        shift = 0;
        mean = x;
        m2 = std::numeric_limits<double>::quiet_NaN();
        return;
    }
    // Measured from 0, in halves where even that is too far.
    bool half = false;
    const double d = far_deviation(shift, mean, x, half);
    const double v = x - shift;
    if (!half) {
        mean += d / n;
        m2 += d * (v - mean);
        return;
    }
    mean += d / (n * 0.5);         // d is half the deviation
    m2 += 2.0 * (d * (v - mean));  // beyond DBL_MAX: inf
}

/// One element of a variance: adds x, the n-th value (n counts it). The state is the shift (a
/// value the others are measured from), the mean of the deviations from it, and their sum of
/// squared deviations m2. An element that received ±inf or NaN keeps the IEEE sum of those in
/// `mean` with shift 0 and m2 NaN (the mark: m2 of finite values is never NaN): its mean is then
/// that sum and its variance NaN, as numpy's.
inline void welford_add(double& shift, double& mean, double& m2, double x, double n) noexcept {
    const double v = x - shift;
    const double d = v - mean;
    if (!std::isfinite(d)) [[unlikely]] {
        welford_add_far(shift, mean, m2, x, n);
        return;
    }
    mean += d / n;
    m2 += d * (v - mean);
}

/// One element of a variance's state, by value.
struct moment_state {
    double shift, mean, m2;
};

/// chan_merge where the difference of the means is not finite: a marked state, or means more
/// than DBL_MAX apart. By value, so that the common path keeps its states in registers.
inline moment_state chan_merge_far(moment_state a, double na, moment_state b, double nb) noexcept {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(a.m2) || std::isnan(b.m2)) {  // a marked state: the sum of both states' non-finite values
        return {0.0, (std::isnan(a.m2) ? a.mean : 0.0) + (std::isnan(b.m2) ? b.mean : 0.0), nan};
    }
    // Both means as values, measured from 0.
    const double n = na + nb;
    const double ma = a.shift + a.mean, mb = b.shift + b.mean;
    const double dd = 2.0 * (mb * 0.5 - ma * 0.5);
    return {0.0, ma * (na / n) + mb * (nb / n),
            a.m2 + b.m2 + (std::isfinite(dd) ? dd * dd * (na * nb / n) : std::numeric_limits<double>::infinity())};
}

/// One element of a variance: merges another state of nb values into this one of na (both > 0).
inline void chan_merge(double& shift, double& mean, double& m2, double na, double oshift, double omean, double om2,
                       double nb) noexcept {
    const double n = na + nb;
    const double d = (oshift - shift) + omean - mean;
    if (!std::isfinite(d)) [[unlikely]] {
        const moment_state r = chan_merge_far({shift, mean, m2}, na, {oshift, omean, om2}, nb);
        shift = r.shift;
        mean = r.mean;
        m2 = r.m2;
        return;
    }
    mean += d * (nb / n);
    m2 += om2 + d * d * (na * nb / n);
}

#undef CHUNKWISE_COLD

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
    } else if constexpr (
        requires { rows.data(); } && !requires { rows.strides(); }) {
        (void)copy;
        return rows.data();  // a plain array (no strides: row-major storage)
    } else {
        copy.assign(std::begin(rows), std::end(rows));  // iterated in row-major order
        return copy.data();
    }
}

}  // namespace chunkwise::detail::acc
