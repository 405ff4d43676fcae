#pragma once
/// \file
/// Scaling laws fitted to measured times (standard library only): the Karp-Flatt metric, Amdahl's
/// law and the Universal Scalability Law, each with its fit error, so a report can say which one
/// describes a run. The per-phase model that predicts how many workers to ask for is
/// <chunkwise/bench/model.hpp>.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::bench {

/// The Karp-Flatt metric, the serial fraction measured at one point: (1/S - 1/N) / (1 - 1/N).
/// Rising with N means overhead grows with the worker count; flat means an Amdahl serial part.
/// \returns NaN for N = 1 (undefined there)
[[nodiscard]] inline double karp_flatt(double speedup, double workers) {
    if (workers == 1.0) return std::numeric_limits<double>::quiet_NaN();
    return (1.0 / speedup - 1.0 / workers) / (1.0 - 1.0 / workers);
}

/// The root mean square of the relative errors (predicted - measured) / measured: how well a law
/// describes measured times (0.05: within about 5%).
template <class Law>
[[nodiscard]] double fit_error(const Law& law, std::span<const double> workers, std::span<const double> seconds) {
    double sum = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        const double e = (law.time_at(workers[i]) - seconds[i]) / seconds[i];
        sum += e * e;
    }
    return workers.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(workers.size()));
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (the half-width of a
/// mean's 95% confidence interval is t95(n - 1) s / sqrt(n)); NaN for df = 0.
[[nodiscard]] inline double t95(std::size_t df) noexcept {
    static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                       2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                       2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0) return std::numeric_limits<double>::quiet_NaN();
    if (df <= 30) return table[df - 1];
    if (df <= 40) return 2.042 - (2.042 - 2.021) * static_cast<double>(df - 30) / 10;
    if (df <= 60) return 2.021 - (2.021 - 2.000) * static_cast<double>(df - 40) / 20;
    if (df <= 120) return 2.000 - (2.000 - 1.980) * static_cast<double>(df - 60) / 60;
    return 1.960;
}

/// Mean, standard deviation (n - 1) and the half-width of the 95% confidence interval of the
/// mean (t95(n - 1) s / sqrt(n); NaN with fewer than two samples) of repeated times.
struct sample_summary {
    double mean = 0;                                         ///< seconds
    double std = 0;                                          ///< seconds (0 with one sample)
    double half = std::numeric_limits<double>::quiet_NaN();  ///< seconds
};

/// The sample_summary of `samples` (empty: all 0 and NaN).
[[nodiscard]] inline sample_summary summarize_samples(std::span<const double> samples) {
    sample_summary s;
    const std::size_t n = samples.size();
    if (n == 0) return s;
    for (double t : samples) s.mean += t;
    s.mean /= static_cast<double>(n);
    if (n < 2) return s;
    double var = 0;
    for (double t : samples) var += (t - s.mean) * (t - s.mean);
    s.std = std::sqrt(var / static_cast<double>(n - 1));
    s.half = t95(n - 1) * s.std / std::sqrt(static_cast<double>(n));
    return s;
}

namespace detail {

/// Checks the points a fit gets: as many worker counts as times, all positive, at least `distinct`
/// distinct counts. \throws std::invalid_argument naming what is wrong
inline void check_fit_points(const char* who, std::span<const double> workers, std::span<const double> seconds,
                             std::size_t distinct) {
    if (workers.size() != seconds.size()) {
        throw std::invalid_argument(std::string("[chunkwise.bench] ") + who + ": " + std::to_string(workers.size()) +
                                    " worker counts but " + std::to_string(seconds.size()) + " times");
    }
    std::set<double> seen;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        if (!(workers[i] > 0) || !(seconds[i] > 0)) {
            throw std::invalid_argument(std::string("[chunkwise.bench] ") + who +
                                        ": worker counts and times must be positive (entry " + std::to_string(i) + ")");
        }
        seen.insert(workers[i]);
    }
    if (seen.size() < distinct) {
        throw std::invalid_argument(std::string("[chunkwise.bench] ") + who + ": needs at least " +
                                    (distinct == 2 ? std::string("two") : std::to_string(distinct)) +
                                    " distinct worker counts, got " + std::to_string(seen.size()));
    }
}

/// Non-negative least squares of y ~ sum_j x[i][j] c[j] over up to 3 coefficients, weighted by w:
/// every subset of the coefficients is solved unconstrained and the best one with all
/// coefficients >= 0 kept (exact for so few unknowns).
template <std::size_t K>
std::array<double, K> nonnegative_fit(const std::vector<std::array<double, K>>& x, const std::vector<double>& y,
                                      const std::vector<double>& w) {
    std::array<double, K> best{};
    double best_residual = std::numeric_limits<double>::infinity();
    for (unsigned mask = 1; mask < (1u << K); ++mask) {
        std::array<std::size_t, K> cols{};
        std::size_t m = 0;
        for (std::size_t j = 0; j < K; ++j) {
            if ((mask & (1u << j)) != 0) cols[m++] = j;
        }
        // Normal equations A c = b over the chosen columns, solved by Gaussian elimination.
        double a[K][K + 1] = {};
        for (std::size_t i = 0; i < y.size(); ++i) {
            for (std::size_t r = 0; r < m; ++r) {
                for (std::size_t c = 0; c < m; ++c) a[r][c] += w[i] * x[i][cols[r]] * x[i][cols[c]];
                a[r][m] += w[i] * x[i][cols[r]] * y[i];
            }
        }
        bool singular = false;
        for (std::size_t p = 0; p < m && !singular; ++p) {
            std::size_t pivot = p;
            for (std::size_t r = p + 1; r < m; ++r) {
                if (std::fabs(a[r][p]) > std::fabs(a[pivot][p])) pivot = r;
            }
            if (std::fabs(a[pivot][p]) < 1e-300) {
                singular = true;
                break;
            }
            for (std::size_t c = 0; c <= m; ++c) std::swap(a[p][c], a[pivot][c]);
            for (std::size_t r = 0; r < m; ++r) {
                if (r == p) continue;
                const double f = a[r][p] / a[p][p];
                for (std::size_t c = p; c <= m; ++c) a[r][c] -= f * a[p][c];
            }
        }
        if (singular) continue;
        std::array<double, K> coef{};
        bool feasible = true;
        for (std::size_t r = 0; r < m; ++r) {
            coef[cols[r]] = a[r][m] / a[r][r];
            feasible = feasible && coef[cols[r]] >= -1e-15 * std::fabs(a[r][m]);
        }
        if (!feasible) continue;
        for (double& c : coef) c = std::max(c, 0.0);
        double residual = 0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            double p = 0;
            for (std::size_t j = 0; j < K; ++j) p += x[i][j] * coef[j];
            residual += w[i] * (p - y[i]) * (p - y[i]);
        }
        if (residual < best_residual * (1 - 1e-12)) {
            best_residual = residual;
            best = coef;
        }
    }
    return best;
}

}  // namespace detail

/// Amdahl's law fitted to measured times: t(N) = t1 * (s + (1 - s) / N).
struct amdahl_fit {
    double serial_fraction = 0;                                    ///< s, in [0, 1]
    double t1 = 0;                                                 ///< the fitted time on one worker, seconds
    double max_speedup = std::numeric_limits<double>::infinity();  ///< 1 / s (infinity for s = 0)
    double error = 0;  ///< RMS relative error of the fitted times over the measured points (fit_error)
    /// "" when the least squares lay inside the bounds; else the parameter held at its bound and
    /// why ("serial_fraction = 0: the times fall faster than 1/N"; "serial_fraction = 1: the times
    /// rise with N"): the law does not describe these points.
    std::string at_bound;

    /// The speedup the fit predicts on n workers: 1 / (s + (1 - s) / n).
    [[nodiscard]] double speedup_at(double n) const { return 1.0 / (serial_fraction + (1.0 - serial_fraction) / n); }
    /// The time the fit predicts on n workers, seconds.
    [[nodiscard]] double time_at(double n) const { return t1 * (serial_fraction + (1.0 - serial_fraction) / n); }
};

/// Least-squares fit of t(N) = t1 * (s + (1 - s) / N) to every (workers[i], seconds[i]) —
/// repeats may repeat N. Linear in a = t1 s and b = t1 (1 - s) over x = 1 / N; s is clamped to
/// [0, 1] (the fit then redone with a = 0, or b = 0). Exact Amdahl data gives s back exactly (to
/// rounding).
/// \throws std::invalid_argument if the spans differ in length, hold fewer than two distinct N,
///         or hold a worker count or time that is not positive
[[nodiscard]] inline amdahl_fit fit_amdahl(std::span<const double> workers, std::span<const double> seconds) {
    detail::check_fit_points("fit_amdahl", workers, seconds, 2);
    const double m = static_cast<double>(workers.size());
    double sx = 0, sy = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        sx += 1.0 / workers[i];
        sy += seconds[i];
    }
    const double mx = sx / m, my = sy / m;
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        const double dx = 1.0 / workers[i] - mx;
        sxx += dx * dx;
        sxy += dx * (seconds[i] - my);
    }
    double b = sxy / sxx;
    double a = my - b * mx;
    amdahl_fit fit;
    // Held at a bound only where the free fit lies clearly outside it (rounding and noise around
    // s = 0 are a perfectly parallel run, not a failed fit).
    if (a < -0.02 * (a + b)) fit.at_bound = "serial_fraction = 0: the times fall faster than 1/N";
    if (b < 0) fit.at_bound = "serial_fraction = 1: the times rise with N";
    if (a < 0) {  // s = 0: t = b / N, least squares through the origin
        double num = 0, den = 0;
        for (std::size_t i = 0; i < workers.size(); ++i) {
            num += seconds[i] / workers[i];
            den += 1.0 / (workers[i] * workers[i]);
        }
        a = 0;
        b = num / den;
    } else if (b < 0) {  // s = 1: t = a, the mean
        a = my;
        b = 0;
    }
    fit.t1 = a + b;
    fit.serial_fraction = fit.t1 > 0 ? std::clamp(a / fit.t1, 0.0, 1.0) : 1.0;
    if (fit.serial_fraction < 1e-12) fit.serial_fraction = 0;  // rounding, not a serial part
    fit.max_speedup = fit.serial_fraction > 0 ? 1.0 / fit.serial_fraction : std::numeric_limits<double>::infinity();
    fit.error = fit_error(fit, workers, seconds);
    return fit;
}

/// The Universal Scalability Law (Gunther) fitted to measured times:
/// t(N) = t1 (1 + sigma (N - 1) + kappa N (N - 1)) / N. sigma is contention (an Amdahl serial
/// part), kappa coherency (a cost that grows with every pair of workers: the speedup peaks and
/// then falls).
struct usl_fit {
    double sigma = 0;  ///< contention, in [0, 1]
    double kappa = 0;  ///< coherency, >= 0
    double t1 = 0;     ///< the fitted time on one worker, seconds
    double error = 0;  ///< RMS relative error of the fitted times over the measured points
    /// "" when the least squares lay inside the bounds; else the parameter held at its bound
    /// ("sigma = 1: ..."): the law does not describe these points.
    std::string at_bound;

    /// The time the law predicts on n workers, seconds.
    [[nodiscard]] double time_at(double n) const { return t1 * (1 + sigma * (n - 1) + kappa * n * (n - 1)) / n; }
    /// The speedup the law predicts on n workers.
    [[nodiscard]] double speedup_at(double n) const { return n / (1 + sigma * (n - 1) + kappa * n * (n - 1)); }
    /// Where the speedup peaks: sqrt((1 - sigma) / kappa) (infinity for kappa = 0).
    [[nodiscard]] double peak_workers() const {
        return kappa > 0 ? std::sqrt(std::max(0.0, 1 - sigma) / kappa) : std::numeric_limits<double>::infinity();
    }
};

/// Least-squares fit of the USL to every (workers[i], seconds[i]), in relative terms (each time
/// weighted by 1 / t^2): t(N) = a / N + b (N - 1) / N + c (N - 1) with a = t1, b = t1 sigma,
/// c = t1 kappa, all >= 0 and sigma <= 1 (where the free fit wants sigma > 1 the times rise with
/// N faster than the law allows: sigma is held at 1, refitted, and at_bound says so).
/// \throws std::invalid_argument as fit_amdahl (two distinct worker counts at least)
[[nodiscard]] inline usl_fit fit_usl(std::span<const double> workers, std::span<const double> seconds) {
    detail::check_fit_points("fit_usl", workers, seconds, 2);
    std::vector<std::array<double, 3>> x;
    std::vector<double> y, w;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        const double n = workers[i];
        x.push_back({1 / n, (n - 1) / n, n - 1});
        y.push_back(seconds[i]);
        w.push_back(1 / (seconds[i] * seconds[i]));
    }
    const auto c = detail::nonnegative_fit<3>(x, y, w);
    usl_fit fit;
    fit.t1 = c[0];
    fit.sigma = c[0] > 0 ? c[1] / c[0] : 0;
    fit.kappa = c[0] > 0 ? c[2] / c[0] : 0;
    if (c[0] <= 0 || c[1] > c[0]) {
        // sigma = 1: t(N) = t1 + t1 kappa (N - 1), a line in N - 1 with both coefficients >= 0.
        std::vector<std::array<double, 2>> x2;
        for (double n : workers) x2.push_back({1.0, n - 1});
        const auto d = detail::nonnegative_fit<2>(x2, y, w);
        fit.t1 = d[0];
        fit.sigma = 1;
        fit.kappa = d[0] > 0 ? d[1] / d[0] : 0;
        fit.at_bound = "sigma = 1: the times do not fall with N as contention allows";
    }
    fit.error = fit_error(fit, workers, seconds);
    return fit;
}

}  // namespace chunkwise::bench
