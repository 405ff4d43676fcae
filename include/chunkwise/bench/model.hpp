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
/// something else: another access pattern or cache state).
inline phase_model fit_phases(const std::vector<model_point>& pts, double probe_cap) {
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

namespace detail {

/// One candidate description of the run (the per-phase model, Amdahl or USL) fitted to a subset
/// of the points: its predicted time at n workers.
struct fitted_law {
    std::string name;
    std::function<double(double)> time_at;
    std::string at_bound;  // "" or the parameter held at its bound
};

/// `name` fitted to the points of `r` but those of `left_out` workers (0: none left out).
inline fitted_law fit_law(const std::string& name, const scaling_report& r, const std::vector<model_point>& all,
                          double probe_cap, double left_out) {
    std::vector<model_point> pts;
    std::vector<double> ns, ts;
    for (std::size_t i = 0; i < r.points.size(); ++i) {
        if (static_cast<double>(r.points[i].workers) == left_out) continue;
        pts.push_back(all[i]);
        for (double t : r.points[i].samples) {
            ns.push_back(static_cast<double>(r.points[i].workers));
            ts.push_back(t);
        }
    }
    if (name == "amdahl") {
        const amdahl_fit f = fit_amdahl(ns, ts);
        return {name, [f](double n) { return f.time_at(n); }, f.at_bound};
    }
    if (name == "usl") {
        const usl_fit f = fit_usl(ns, ts);
        return {name, [f](double n) { return f.time_at(n); }, f.at_bound};
    }
    const phase_model m = fit_phases(pts, probe_cap);
    return {name, [m](double n) { return m.time_at(n); }, ""};
}

/// The knee (doubling past it gains less than 10%) and the break-even P* (past it the efficiency
/// is below 0.5) of `time_at`, over powers of two up to 1024, against the measured t(1).
inline std::pair<double, double> knee_and_break_even(const std::function<double(double)>& time_at, double t1) {
    double knee = 1024, even = 1;
    for (double n = 1; n < 1024; n *= 2) {
        if (time_at(2 * n) > time_at(n) / 1.1) {
            knee = n;
            break;
        }
    }
    for (double n = 1; n <= 1024; n *= 2) {
        if (t1 / time_at(n) / n >= 0.5) even = n;
    }
    return {knee, even};
}

inline std::string percent(double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100 * x);
    return b;
}

}  // namespace detail

/// Fits the per-phase model, Amdahl's law and the USL to `r`'s points and fills r.prediction:
/// the fit that predicts held-out points best (each worker count predicted by the fit to the
/// others) is chosen; from it the predicted points at 8 to 1024 workers, the
/// knee, the break-even and the workers to ask for. When the points cannot support one number
/// (the chosen fit's held-out error above 15%, neighbouring points within each other's 95%
/// intervals, a parameter held at its physical bound, points with more workers than `cores_per_host`
/// cores per host), `confident` is false, `reason` says why, there is no recommended count, and
/// `range` and `next_measurement` say what the fits allow and what to measure next.
/// `cores_per_node` C > 0 adds the nodes to ask for and the core-hours per run on whole nodes.
/// A report without a point at 1 worker, or with fewer than three worker counts, gets a
/// prediction that says why it has none.
/// \throws std::invalid_argument if `strict` and no prediction can be made, saying why; if C does
///         not divide a worker count of C or more, naming it
inline void predict(scaling_report& r, bool strict = false, std::size_t cores_per_host = 0,
                    std::size_t cores_per_node = 0) {
    prediction_report q;
    auto refuse = [&](const std::string& why) {
        q.note = why;
        r.prediction = q;
        if (strict) throw std::invalid_argument("[chunkwise.bench] predict: " + why);
    };
    if (cores_per_node > 0) {
        for (const scaling_point& p : r.points) {
            if (p.workers >= cores_per_node && p.workers % cores_per_node != 0) {
                throw std::invalid_argument("[chunkwise.bench] predict: --cores-per-node " +
                                            std::to_string(cores_per_node) + " does not divide the point of " +
                                            std::to_string(p.workers) +
                                            " workers: nodes are asked for whole; measure multiples of it");
            }
        }
    }
    if (r.points.empty()) return refuse("the report has no points");
    if (r.baseline_workers != 1) {
        return refuse("no point at 1 worker was measured (the fewest is " + std::to_string(r.baseline_workers) +
                      "): speedups would be assumed, not measured");
    }
    const std::vector<model_point> all = model_points(r, cores_per_host);
    const double probe_cap = r.bytes_read > 0 && r.shared_bandwidth > 0 ? r.bytes_read / r.shared_bandwidth : 0.0;
    phase_model m;
    try {
        m = fit_phase_model(all, probe_cap);
    } catch (const std::invalid_argument& e) {
        const std::string w = e.what();
        return refuse(w.substr(w.find("predict: ") + 9));
    }
    q.fitted = true;
    q.cores_per_node = cores_per_node;
    q.t_serial = m.t_serial;
    q.work = m.work;
    q.read_one = m.read_one;
    q.bytes = r.bytes_read;
    q.worker_bandwidth = r.bytes_read > 0 && m.read_one > 0 ? r.bytes_read / m.read_one : 0;
    q.shared_bandwidth = r.bytes_read > 0 && m.read_cap > 0 ? r.bytes_read / m.read_cap : 0;
    q.comm = m.comm;
    q.growth = m.log_growth ? "log2(n)" : "n";
    q.model_error = m.error;
    // The read bandwidth the run reached, and the probe checked against it.
    double fastest = 0, fastest_at = 0;
    for (const scaling_point& p : r.points) {
        if (p.read_bandwidth > fastest) {
            fastest = p.read_bandwidth;
            fastest_at = static_cast<double>(p.workers);
        }
    }
    if (fastest > 0) {
        char b[256];
        std::snprintf(b, sizeof b, "read bandwidth from the run: up to %.3g MB/s (at %g workers)", fastest / 1e6,
                      fastest_at);
        q.bandwidth_note = b;
        if (r.shared_bandwidth > 0) {
            std::snprintf(b, sizeof b, "; the probe's %.3g MB/s %s", r.shared_bandwidth / 1e6,
                          r.shared_bandwidth * 1.05 < fastest ? "is below what the run read at: not used"
                                                              : "agrees with the run");
            q.bandwidth_note += b;
        }
    }
    std::vector<double> ns, ts;
    for (const scaling_point& p : r.points) {
        for (double t : p.samples) {
            ns.push_back(static_cast<double>(p.workers));
            ts.push_back(t);
        }
    }
    q.amdahl = fit_amdahl(ns, ts);
    q.usl = fit_usl(ns, ts);
    // Held-out error of each candidate: each count predicted by the fit to the other counts
    // (leave-one-out; the largest count is then predicted from the smaller ones).
    std::vector<double> counts;
    for (const scaling_point& p : r.points) {
        if (counts.empty() || counts.back() != static_cast<double>(p.workers))
            counts.push_back(static_cast<double>(p.workers));
    }
    const std::vector<std::string> names{"amdahl", "usl", "model"};
    std::vector<double> held(names.size(), 0);
    for (std::size_t c = 0; c < names.size(); ++c) {
        double sum = 0;
        std::size_t n = 0;
        for (std::size_t k = 0; k < counts.size(); ++k) {
            const detail::fitted_law f = detail::fit_law(names[c], r, all, probe_cap, counts[k]);
            for (const scaling_point& p : r.points) {
                if (static_cast<double>(p.workers) != counts[k]) continue;
                const double e = (f.time_at(counts[k]) - p.mean) / p.mean;
                sum += e * e;
                ++n;
            }
        }
        held[c] = n > 0 ? std::sqrt(sum / static_cast<double>(n)) : std::numeric_limits<double>::quiet_NaN();
    }
    q.amdahl_held_out = held[0];
    q.usl_held_out = held[1];
    q.model_held_out = held[2];
    // The best held-out error wins; a later (more complex) candidate must beat an earlier by 0.5
    // points.
    std::size_t pick = 0;
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < names.size(); ++c) {
        const double h = std::isnan(held[c]) ? std::numeric_limits<double>::infinity() : held[c];
        if (c == 0 || h + 0.005 < least) {
            least = h;
            pick = c;
        }
    }
    q.chosen = names[pick];
    q.held_out_error = held[pick];
    std::vector<detail::fitted_law> full;
    for (const std::string& n : names) {
        full.push_back(detail::fit_law(n, r, all, probe_cap, 0));
    }
    const detail::fitted_law& chosen = full[pick];
    const double t1 = r.points.front().mean;  // measured
    const double c_nodes = static_cast<double>(cores_per_node);
    auto core_hours = [&](double n, double t) {
        return cores_per_node > 0 ? std::ceil(n / c_nodes) * c_nodes * t / 3600 : not_measured;
    };
    for (double n = 8; n <= 1024; n *= 2) {
        const double t = chosen.time_at(n);
        q.points.push_back({n, t, t1 / t, t1 / t / n, core_hours(n, t)});
    }
    for (scaling_point& p : r.points) p.core_hours = core_hours(static_cast<double>(p.workers), p.mean);
    std::tie(q.knee, q.break_even) = detail::knee_and_break_even(chosen.time_at, t1);
    const double mine = std::min(q.knee, q.break_even);
    // Why one number cannot be given.
    std::vector<std::string> why;
    if (!(q.held_out_error <= 0.15)) {
        why.push_back("the chosen fit (" + q.chosen + ") predicted the points it was not fitted to with " +
                      (std::isnan(q.held_out_error) ? std::string("unknown") : detail::percent(q.held_out_error)) +
                      " error (the limit is 15%)");
    }
    for (std::size_t i = 1; i < r.points.size(); ++i) {
        const scaling_point &a = r.points[i - 1], &b = r.points[i];
        if (a.workers == b.workers) continue;
        if (std::isnan(a.interval_high) || std::isnan(b.interval_high)) {
            why.push_back("the point at " + std::to_string(std::isnan(a.interval_high) ? a.workers : b.workers) +
                          " workers has one sample: its noise is unknown");
            break;
        }
        if (b.interval_high >= a.interval_low && a.interval_high >= b.interval_low) {
            char t[256];
            std::snprintf(t, sizeof t,
                          "the points at %zu and %zu workers are within each other's noise (95%% intervals "
                          "[%.4g, %.4g] and [%.4g, %.4g] s)",
                          a.workers, b.workers, a.interval_low, a.interval_high, b.interval_low, b.interval_high);
            why.push_back(t);
            break;
        }
    }
    if (!chosen.at_bound.empty()) why.push_back(q.chosen + "'s " + chosen.at_bound);
    if (cores_per_host > 0) {
        for (const scaling_point& p : r.points) {
            const std::size_t cores = cores_per_host * std::max<std::size_t>(p.hosts, 1);
            if (p.workers > cores) {
                why.push_back("the point at " + std::to_string(p.workers) + " workers ran on " + std::to_string(cores) +
                              " cores (oversubscribed)");
                break;
            }
        }
    }
    q.confident = why.empty();
    for (const std::string& w : why) q.reason += (q.reason.empty() ? "" : "; ") + w;
    // The range the fits that hold allow (all of them where none holds).
    q.range_low = q.range_high = mine;
    bool any = false;
    for (std::size_t c = 0; c < full.size(); ++c) {
        if (!(held[c] <= 0.15) || !full[c].at_bound.empty()) continue;
        any = true;
        const auto [k, e] = detail::knee_and_break_even(full[c].time_at, t1);
        q.range_low = std::min(q.range_low, std::min(k, e));
        q.range_high = std::max(q.range_high, std::min(k, e));
    }
    if (!any || !q.confident) {
        for (const detail::fitted_law& f : full) {
            const auto [k, e] = detail::knee_and_break_even(f.time_at, t1);
            q.range_low = std::min(q.range_low, std::min(k, e));
            q.range_high = std::max(q.range_high, std::min(k, e));
        }
    }
    if (q.confident) {
        q.recommended = mine;
        q.next_measurement = not_measured;
        if (cores_per_node > 0) q.recommended_nodes = std::ceil(mine / c_nodes);
    } else {
        q.recommended = not_measured;
        q.next_measurement = 2 * counts.back();
    }
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
[[nodiscard]] inline std::vector<held_out_point> leave_one_out(const scaling_report& r,
                                                               std::size_t cores_per_host = 0) {
    const std::vector<model_point> all = model_points(r, cores_per_host);
    const double cap = r.bytes_read > 0 && r.shared_bandwidth > 0 ? r.bytes_read / r.shared_bandwidth : 0.0;
    if (all.size() < 4) {
        throw std::invalid_argument(
            "[chunkwise.bench] leave-one-out: needs four worker counts or more, the report holds " +
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
