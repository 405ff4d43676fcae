#pragma once
/// \file
/// How many workers to ask for (standard library only): a per-phase model fitted to a report's
/// measured points,
///
///     t(N) = t_serial + W / N + D / min(N b, B) + c g(N),   g(N) = N or log2(N), whichever fits,
///
/// with t_serial the serial part (time at a lock of the read path included), W the parallel
/// compute, D the bytes read at b per worker capped by B, the shared bandwidth of the input's
/// file system that a read probe measured, and c g(N) the cost of communication and agreement
/// that grows with the workers. Each term is fitted to its own phase of the critical path
/// (compute to W, read to D and b, the rest to t_serial and c). From the model: the predicted
/// time, speedup and efficiency at 8 to 1024 workers, the knee (doubling the workers gains less
/// than 10% past it), the break-even count P* (past it the efficiency is below 0.5: more
/// core-hours are spent than the run saves) and the workers to ask for; beside it the plain
/// Amdahl and USL fits with their errors. docs/scaling.md explains the figures.

#include <chunkwise/bench/fits.hpp>
#include <chunkwise/bench/report.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::bench {

/// One measured point as the model sees it: workers, the cores they had, and the critical path.
struct model_point {
    double workers = 1;    ///< N
    double cores = std::numeric_limits<double>::infinity();  ///< cores the workers had (fewer than workers: compute at the cores' speed)
    double wall = 0;       ///< seconds
    double compute = 0;    ///< critical path's compute, seconds
    double read = 0;       ///< critical path's read minus its time at a lock, seconds
    double overhead = 0;   ///< the rest: wait + combine + other + lock, seconds
};

/// The fitted per-phase model.
struct phase_model {
    double t_serial = 0;  ///< seconds that no worker count shortens
    double work = 0;      ///< W: seconds of parallel compute on one worker
    double read_one = 0;  ///< D / b: seconds of reading on one worker
    double read_cap = 0;  ///< D / B: the least the read can take, whatever the workers (0: no cap known)
    double comm = 0;      ///< c, seconds per unit of g(N)
    bool log_growth = false;  ///< g(N) = log2(N) (else N)
    double error = 0;     ///< RMS relative error of the modelled wall time over the measured points

    /// g(n): n, or log2(n).
    [[nodiscard]] double g(double n) const { return log_growth ? std::log2(n) : n; }
    /// The modelled time on n workers, each on a core of its own.
    [[nodiscard]] double time_at(double n) const { return time_at(n, n); }
    /// The modelled time on n workers sharing `cores` cores.
    [[nodiscard]] double time_at(double n, double cores) const {
        return t_serial + work / std::min(n, cores) + std::max(read_one / n, read_cap) + comm * g(n);
    }
};

/// Fits the per-phase model to measured points (at least three distinct worker counts), each
/// phase weighted by 1 / wall^2 (relative errors). `read_cap` is D / B where both are known
/// (0 otherwise).
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
    phase_model m;
    m.read_cap = read_cap;
    // W: compute ~ W / min(N, cores).
    double num = 0, den = 0;
    for (const model_point& p : pts) {
        const double w = 1 / (p.wall * p.wall), x = 1 / std::min(p.workers, p.cores);
        num += w * p.compute * x;
        den += w * x * x;
    }
    m.work = den > 0 ? std::max(0.0, num / den) : 0;
    // D / b: read ~ max(R1 / N, cap). The least squares over R1 among the values each point
    // implies and the unconstrained fit of the points the cap does not bind.
    auto read_residual = [&](double r1) {
        double s = 0;
        for (const model_point& p : pts) {
            const double e = std::max(r1 / p.workers, read_cap) - p.read;
            s += e * e / (p.wall * p.wall);
        }
        return s;
    };
    std::vector<double> candidates{0};
    num = den = 0;
    for (const model_point& p : pts) {
        candidates.push_back(p.read * p.workers);
        const double w = 1 / (p.wall * p.wall), x = 1 / p.workers;
        if (p.read > read_cap * 1.05) {
            num += w * p.read * x;
            den += w * x * x;
        }
    }
    if (den > 0) candidates.push_back(num / den);
    m.read_one = *std::min_element(candidates.begin(), candidates.end(), [&](double a, double b) {
        return read_residual(std::max(a, 0.0)) < read_residual(std::max(b, 0.0));
    });
    m.read_one = std::max(m.read_one, 0.0);
    // t_serial + c g(N) to the rest, for each g; the better fit wins.
    double best = std::numeric_limits<double>::infinity();
    for (bool log_growth : {false, true}) {
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
    m.error = std::sqrt(sum / static_cast<double>(pts.size()));
    return m;
}

/// The model's points of a report: one per point. `cores_per_host` > 0 says the points computed on
/// that many cores per host (a point with more workers than cores then computes at the cores'
/// speed); 0: a core per worker, as the model assumes.
[[nodiscard]] inline std::vector<model_point> model_points(const scaling_report& r, std::size_t cores_per_host = 0) {
    std::vector<model_point> out;
    for (const scaling_point& p : r.points) {
        model_point m;
        m.workers = static_cast<double>(p.workers);
        m.cores = cores_per_host > 0
                      ? static_cast<double>(cores_per_host * std::max<std::size_t>(p.hosts, 1))
                      : std::numeric_limits<double>::infinity();
        m.wall = p.mean;
        m.compute = p.phases.compute;
        m.read = std::max(0.0, p.phases.read - p.phases.lock);
        m.overhead = std::max(0.0, p.mean - m.compute - m.read);
        out.push_back(m);
    }
    return out;
}

/// Fits the model and the laws to `r`'s points and fills r.prediction (predicted points at 8 to
/// 1024 workers, knee, break-even, recommended workers). A report without a measured point at 1
/// worker, or with fewer than three worker counts, gets a prediction that says why it has none.
/// `cores_per_host`: see model_points.
/// \throws std::invalid_argument if `strict` and no prediction can be made, saying why
inline void predict(scaling_report& r, bool strict = false, std::size_t cores_per_host = 0) {
    prediction_report q;
    auto refuse = [&](const std::string& why) {
        q.note = why;
        r.prediction = q;
        if (strict) throw std::invalid_argument("[chunkwise.bench] predict: " + why);
    };
    if (r.points.empty()) return refuse("the report has no points");
    if (r.baseline_workers != 1) {
        return refuse("no point at 1 worker was measured (the fewest is " + std::to_string(r.baseline_workers) +
                      "): speedups would be assumed, not measured");
    }
    phase_model m;
    const double cap = r.bytes_read > 0 && r.shared_bandwidth > 0 ? r.bytes_read / r.shared_bandwidth : 0.0;
    try {
        m = fit_phase_model(model_points(r, cores_per_host), cap);
    } catch (const std::invalid_argument& e) {
        const std::string w = e.what();
        return refuse(w.substr(w.find("predict: ") + 9));
    }
    q.fitted = true;
    q.t_serial = m.t_serial;
    q.work = m.work;
    q.read_one = m.read_one;
    q.bytes = r.bytes_read;
    q.worker_bandwidth = r.bytes_read > 0 && m.read_one > 0 ? r.bytes_read / m.read_one : 0;
    q.shared_bandwidth = r.shared_bandwidth;
    q.comm = m.comm;
    q.growth = m.log_growth ? "log2(n)" : "n";
    q.model_error = m.error;
    std::vector<double> ns, ts;
    for (const scaling_point& p : r.points) {
        for (double t : p.samples) {
            ns.push_back(static_cast<double>(p.workers));
            ts.push_back(t);
        }
    }
    q.amdahl = fit_amdahl(ns, ts);
    q.usl = fit_usl(ns, ts);
    const double t1 = r.points.front().mean;  // measured
    for (double n = 8; n <= 1024; n *= 2) {
        const double t = m.time_at(n);
        q.points.push_back({n, t, t1 / t, t1 / t / n});
    }
    q.knee = 1024;
    for (double n = 1; n < 1024; n *= 2) {
        if (m.time_at(2 * n) > m.time_at(n) / 1.1) {
            q.knee = n;
            break;
        }
    }
    q.break_even = 1;
    for (double n = 1; n <= 1024; n *= 2) {
        if (t1 / m.time_at(n) / n >= 0.5) q.break_even = n;
    }
    q.recommended = std::min(q.knee, q.break_even);
    q.note = "fitted to " + std::to_string(r.points.size()) +
             " measured points; predictions assume a core per worker and the same file system";
    r.prediction = q;
}

/// One point left out of the fit and predicted by the model fitted to the others.
struct held_out_point {
    double workers = 0;    ///< the point left out
    double measured = 0;   ///< its mean wall time, seconds
    double predicted = 0;  ///< what the model fitted to every other point predicts, seconds
    [[nodiscard]] double error() const { return (predicted - measured) / measured; }  ///< relative
};

/// Leave-one-out validation of the per-phase model: each point after the first (which is the
/// baseline) is left out in turn and predicted from the others; needs three worker counts besides
/// the one left out.
/// \throws std::invalid_argument with fewer than four worker counts
[[nodiscard]] inline std::vector<held_out_point> leave_one_out(const scaling_report& r, std::size_t cores_per_host = 0) {
    const std::vector<model_point> all = model_points(r, cores_per_host);
    const double cap = r.bytes_read > 0 && r.shared_bandwidth > 0 ? r.bytes_read / r.shared_bandwidth : 0.0;
    if (all.size() < 4) {
        throw std::invalid_argument("[chunkwise.bench] leave-one-out: needs four worker counts or more, the report holds " +
                                    std::to_string(all.size()));
    }
    std::vector<held_out_point> out;
    for (std::size_t k = 1; k < all.size(); ++k) {
        std::vector<model_point> rest;
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (i != k) rest.push_back(all[i]);
        }
        const phase_model m = fit_phase_model(rest, cap);
        out.push_back({all[k].workers, all[k].wall, m.time_at(all[k].workers, all[k].cores)});
    }
    return out;
}

}  // namespace chunkwise::bench
