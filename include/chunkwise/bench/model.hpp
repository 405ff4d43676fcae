#pragma once
/// \file
/// How many workers to ask for (standard library only): a per-phase model fitted to a report's
/// measured points,
///
///     t(N) = t_serial + W / N + D / min(N b, B) + c g(N),   g(N) = N or log2(N), whichever fits,
///
/// with t_serial the serial part (time at a lock of the read path included), W the parallel
/// compute, D the bytes read at b per worker capped by B, the bandwidth all readers share, and
/// c g(N) the cost of communication and agreement that grows with the workers. Each term is
/// fitted to its own phase of the critical path (compute to W, read to D / b and D / B, the rest
/// to t_serial and c), every term >= 0; the read bandwidth comes from the run's own read phases
/// (a probe is used only where it agrees with them). Beside it Amdahl's law and the USL; the one
/// that predicts held-out points best is chosen, and from it the predicted time, speedup and
/// efficiency at 8 to 1024 workers, the knee (doubling the workers gains less than 10% past it),
/// the break-even count P* (past it the efficiency is below 0.5: more core-hours are spent than
/// the run saves) and the workers to ask for, or, where the points cannot support one number,
/// why, a range and the measurement that would decide. docs/scaling.md explains the figures.

#include <chunkwise/bench/fits.hpp>
#include <chunkwise/bench/report.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace chunkwise::bench {

/// One measured point as the model sees it: workers, the cores they had, and the critical path.
struct model_point {
    double workers = 1;                                      ///< N
    double cores = std::numeric_limits<double>::infinity();  ///< cores the workers had (fewer than workers: compute at
                                                             ///< the cores' speed)
    double wall = 0;                                         ///< seconds
    double compute = 0;                                      ///< critical path's compute, seconds
    double read = 0;                                         ///< critical path's read minus its time at a lock, seconds
    double overhead = 0;                                     ///< the rest: wait + combine + other + lock, seconds
};

/// The fitted per-phase model.
struct phase_model {
    double t_serial = 0;      ///< seconds that no worker count shortens
    double work = 0;          ///< W: seconds of parallel compute on one worker
    double read_one = 0;      ///< D / b: seconds of reading on one worker
    double read_cap = 0;      ///< D / B: the least the read can take, whatever the workers (0: no cap known)
    double comm = 0;          ///< c, seconds per unit of g(N)
    bool log_growth = false;  ///< g(N) = log2(N) (else N)
    double error = 0;         ///< RMS relative error of the modelled wall time over the measured points

    /// g(n): n, or log2(n).
    [[nodiscard]] double g(double n) const { return log_growth ? std::log2(n) : n; }
    /// The modelled time on n workers, each on a core of its own.
    [[nodiscard]] double time_at(double n) const { return time_at(n, n); }
    /// The modelled time on n workers sharing `cores` cores.
    [[nodiscard]] double time_at(double n, double cores) const {
        return t_serial + work / std::min(n, cores) + std::max(read_one / n, read_cap) + comm * g(n);
    }
};

namespace detail {

/// The per-phase model fitted to points of two distinct worker counts or more (no check). The
/// read term's cap D / B comes from the run: the cap is fitted with D / b among the values the
/// points allow (0, or one point's read time). `probe_cap`, a probe's D / B, is a candidate only
/// where the run never read faster than it allows (a probe slower than the run measured
/// something else: another access pattern or cache state). `growth`: the cost that grows with the
/// workers is fitted with g(N) = log2(N) (true) or N (false) alone; unset, with each, the better fit
/// kept.
inline phase_model fit_phases(const std::vector<model_point>& pts, double probe_cap,
                              std::optional<bool> growth = std::nullopt) {
    phase_model m;
    // W: compute ~ W / min(N, cores).
    double num = 0, den = 0;
    for (const model_point& p : pts) {
        const double w = 1 / (p.wall * p.wall), x = 1 / std::min(p.workers, p.cores);
        num += w * p.compute * x;
        den += w * x * x;
    }
    m.work = den > 0 ? std::max(0.0, num / den) : 0;
    // Read ~ max(R1 / N, cap), both >= 0, by least squares over the values each point implies.
    auto read_residual = [&](double r1, double cap) {
        double s = 0;
        for (const model_point& p : pts) {
            const double e = std::max(r1 / p.workers, cap) - p.read;
            s += e * e / (p.wall * p.wall);
        }
        return s;
    };
    std::vector<double> caps{0};
    double least_read = std::numeric_limits<double>::infinity();
    for (const model_point& p : pts) {
        caps.push_back(p.read);
        least_read = std::min(least_read, p.read);
    }
    if (probe_cap > 0 && probe_cap <= least_read * 1.05) caps.push_back(probe_cap);
    double best = std::numeric_limits<double>::infinity();
    for (double cap : caps) {
        std::vector<double> candidates{0};
        num = den = 0;
        for (const model_point& p : pts) {
            candidates.push_back(p.read * p.workers);
            const double w = 1 / (p.wall * p.wall), x = 1 / p.workers;
            if (p.read > cap * 1.05) {
                num += w * p.read * x;
                den += w * x * x;
            }
        }
        if (den > 0) candidates.push_back(num / den);
        for (double r1 : candidates) {
            r1 = std::max(r1, 0.0);
            const double e = read_residual(r1, cap);
            if (e < best * (1 - 1e-9)) {
                best = e;
                m.read_one = r1;
                m.read_cap = cap;
            }
        }
    }
    // t_serial + c g(N) to the rest, for each g; the better fit wins.
    best = std::numeric_limits<double>::infinity();
    for (bool log_growth : {false, true}) {
        if (growth && *growth != log_growth) continue;
        std::vector<std::array<double, 2>> x;
        std::vector<double> y, w;
        for (const model_point& p : pts) {
            x.push_back({1.0, log_growth ? std::log2(p.workers) : p.workers});
            y.push_back(p.overhead);
            w.push_back(1 / (p.wall * p.wall));
        }
        const auto c = detail::nonnegative_fit<2>(x, y, w);
        double residual = 0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            const double e = c[0] + c[1] * x[i][1] - y[i];
            residual += w[i] * e * e;
        }
        if (residual < best * (1 - 1e-9)) {
            best = residual;
            m.t_serial = c[0];
            m.comm = c[1];
            m.log_growth = log_growth;
        }
    }
    double sum = 0;
    for (const model_point& p : pts) {
        const double e = (m.time_at(p.workers, p.cores) - p.wall) / p.wall;
        sum += e * e;
    }
    m.error = pts.empty() ? 0 : std::sqrt(sum / static_cast<double>(pts.size()));
    return m;
}

}  // namespace detail

/// Fits the per-phase model to measured points (at least three distinct worker counts), each
/// phase weighted by 1 / wall^2 (relative errors). Every term is physical: times, W, D / b and the
/// cap D / B are >= 0. The read term's cap comes from the points themselves; `read_cap`, a
/// probe's D / B (0: none), is used only where the run never read faster than it allows.
/// \throws std::invalid_argument with fewer than three distinct worker counts, naming them
[[nodiscard]] inline phase_model fit_phase_model(const std::vector<model_point>& pts, double read_cap) {
    std::set<double> counts;
    for (const model_point& p : pts) counts.insert(p.workers);
    if (counts.size() < 3) {
        std::string have;
        for (double n : counts) have += (have.empty() ? "" : ", ") + std::to_string(static_cast<long long>(n));
        throw std::invalid_argument(
            "[chunkwise.bench] predict: the model needs measured points at three worker counts or more (such as 1, "
            "2 and 4); the reports hold " +
            (have.empty() ? std::string("none") : have));
    }
    return detail::fit_phases(pts, read_cap);
}

/// The model's points of a report: one per point. `cores_per_host` > 0 says the points computed on
/// that many cores per host (a point with more workers than cores then computes at the cores'
/// speed); 0: a core per worker, as the model assumes.
[[nodiscard]] inline std::vector<model_point> model_points(const scaling_report& r, std::size_t cores_per_host = 0) {
    std::vector<model_point> out;
    for (const scaling_point& p : r.points) {
        model_point m;
        m.workers = static_cast<double>(p.workers);
        m.cores = cores_per_host > 0 ? static_cast<double>(cores_per_host * std::max<std::size_t>(p.hosts, 1))
                                     : std::numeric_limits<double>::infinity();
        m.wall = p.mean;
        m.compute = p.phases.compute;
        m.read = std::max(0.0, p.phases.read - p.phases.lock);
        m.overhead = std::max(0.0, p.mean - m.compute - m.read);
        out.push_back(m);
    }
    return out;
}

/// One point left out of the fit and predicted by the model fitted to the others.
struct held_out_point {
    double workers = 0;    ///< the point left out
    double measured = 0;   ///< its mean wall time, seconds
    double predicted = 0;  ///< what the model fitted to every other point predicts, seconds
    [[nodiscard]] double error() const { return (predicted - measured) / measured; }  ///< relative
};

}  // namespace chunkwise::bench

// predict and leave_one_out, which use everything above.
#include <chunkwise/detail/bench/predict.hpp>
