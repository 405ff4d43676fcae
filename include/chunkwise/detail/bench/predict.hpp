#pragma once
// Internal: `bench::predict` and `bench::leave_one_out`, included at the end of bench/model.hpp
// (whose types and fits they use): the candidate laws fitted (the per-phase model, Amdahl, the
// USL), each judged on the points it was not fitted to, the best one's predictions, knee and
// break-even, and why one number cannot be given where it cannot.
#include <chunkwise/bench/fits.hpp>
#include <chunkwise/bench/report.hpp>

#include <algorithm>
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

namespace detail {

/// One candidate description of the run (the per-phase model, Amdahl or USL) fitted to a subset
/// of the points: its predicted time at n workers.
struct fitted_law {
    std::string name;
    std::function<double(double)> time_at;
    std::string at_bound;  // "" or the parameter held at its bound
};

/// `name` fitted to the points of `r` but those of `left_out` workers (0: none left out). The per-phase model
/// takes `growth` as its growth law where given (true: log2 N), else chooses its own.
inline fitted_law fit_law(const std::string& name, const scaling_report& r, const std::vector<model_point>& all,
                          double probe_cap, double left_out, std::optional<bool> growth = std::nullopt) {
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
    const phase_model m = fit_phases(pts, probe_cap, growth);
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

/// Refuses --cores-per-node C where it does not divide a point of C workers or more.
inline void check_cores_per_node(const scaling_report& r, std::size_t cores_per_node) {
    if (cores_per_node == 0) return;
    for (const scaling_point& p : r.points) {
        if (p.workers >= cores_per_node && p.workers % cores_per_node != 0) {
            throw std::invalid_argument("[chunkwise.bench] predict: --cores-per-node " +
                                        std::to_string(cores_per_node) + " does not divide the point of " +
                                        std::to_string(p.workers) +
                                        " workers: nodes are asked for whole; measure multiples of it");
        }
    }
}

/// The read bandwidth the run reached, and the probe's checked against it ("" where nothing read).
inline std::string bandwidth_note(const scaling_report& r) {
    double fastest = 0, fastest_at = 0;
    for (const scaling_point& p : r.points) {
        if (p.read_bandwidth > fastest) {
            fastest = p.read_bandwidth;
            fastest_at = static_cast<double>(p.workers);
        }
    }
    if (fastest <= 0) return {};
    char b[256];
    std::snprintf(b, sizeof b, "read bandwidth from the run: up to %.3g MB/s (at %g workers)", fastest / 1e6,
                  fastest_at);
    std::string note = b;
    if (r.shared_bandwidth > 0) {
        std::snprintf(
            b, sizeof b, "; the probe's %.3g MB/s %s", r.shared_bandwidth / 1e6,
            r.shared_bandwidth * 1.05 < fastest ? "is below what the run read at: not used" : "agrees with the run");
        note += b;
    }
    return note;
}

/// The prediction's description of the fitted per-phase model `m`.
inline void describe_model(prediction_report& q, const scaling_report& r, const phase_model& m,
                           const std::vector<model_point>& pts, std::size_t cores_per_node) {
    q.fitted = true;
    q.cores_per_node = cores_per_node;
    q.t_serial = m.t_serial;
    q.work = m.work;
    q.read_one = m.read_one;
    q.bytes = r.bytes_read;
    q.worker_bandwidth = r.bytes_read > 0 && m.read_one > 0 ? r.bytes_read / m.read_one : 0;
    q.shared_bandwidth = r.bytes_read > 0 && m.read_cap > 0 ? r.bytes_read / m.read_cap : 0;
    q.read_cap = m.read_cap;
    q.comm = m.comm;
    q.growth = m.log_growth ? "log2(n)" : "n";
    q.model_error = 0;  // the largest relative error over the fitted points: each is reproduced within it
    for (const model_point& p : pts) {
        q.model_error = std::max(q.model_error, std::fabs(m.time_at(p.workers, p.cores) - p.wall) / p.wall);
    }
    q.bandwidth_note = bandwidth_note(r);
}

/// The distinct worker counts of the report's points, in order.
inline std::vector<double> worker_counts(const scaling_report& r) {
    std::vector<double> counts;
    for (const scaling_point& p : r.points) {
        if (counts.empty() || counts.back() != static_cast<double>(p.workers))
            counts.push_back(static_cast<double>(p.workers));
    }
    return counts;
}

/// Each candidate's held-out error: each count predicted by the candidate fitted to the other
/// counts (leave-one-out; the largest count is then predicted from the smaller ones), the root
/// mean square of the relative errors.
inline std::vector<double> held_out_errors(const std::vector<std::string>& names, const scaling_report& r,
                                           const std::vector<model_point>& all, double probe_cap) {
    const std::vector<double> counts = worker_counts(r);
    // The per-phase model keeps the growth law g(N) that every point chose: fitted to two counts either law fits
    // exactly, so what is left would choose one by rounding. Only its terms are fitted to the rest.
    const bool growth = fit_phases(all, probe_cap).log_growth;
    std::vector<double> held(names.size(), 0);
    for (std::size_t c = 0; c < names.size(); ++c) {
        double sum = 0;
        std::size_t n = 0;
        for (double count : counts) {
            const fitted_law f = fit_law(names[c], r, all, probe_cap, count, growth);
            for (const scaling_point& p : r.points) {
                if (static_cast<double>(p.workers) != count) continue;
                const double e = (f.time_at(count) - p.mean) / p.mean;
                sum += e * e;
                ++n;
            }
        }
        held[c] = n > 0 ? std::sqrt(sum / static_cast<double>(n)) : std::numeric_limits<double>::quiet_NaN();
    }
    return held;
}

/// The candidate with the best held-out error; a later (more complex) one must beat an earlier one
/// by 0.5 points.
inline std::size_t pick_law(const std::vector<double>& held) {
    std::size_t pick = 0;
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < held.size(); ++c) {
        const double h = std::isnan(held[c]) ? std::numeric_limits<double>::infinity() : held[c];
        if (c == 0 || h + 0.005 < least) {
            least = h;
            pick = c;
        }
    }
    return pick;
}

/// The first pair of neighbouring worker counts whose points lie within each other's noise, or a
/// point of one sample ("" where neither).
inline std::string noise_doubt(const scaling_report& r) {
    for (std::size_t i = 1; i < r.points.size(); ++i) {
        const scaling_point &a = r.points[i - 1], &b = r.points[i];
        if (a.workers == b.workers) continue;
        if (std::isnan(a.interval_high) || std::isnan(b.interval_high)) {
            return "the point at " + std::to_string(std::isnan(a.interval_high) ? a.workers : b.workers) +
                   " workers has one sample: its noise is unknown";
        }
        if (b.interval_high >= a.interval_low && a.interval_high >= b.interval_low) {
            char t[256];
            std::snprintf(t, sizeof t,
                          "the points at %zu and %zu workers are within each other's noise (95%% intervals "
                          "[%.4g, %.4g] and [%.4g, %.4g] s)",
                          a.workers, b.workers, a.interval_low, a.interval_high, b.interval_low, b.interval_high);
            return t;
        }
    }
    return {};
}

/// Why one number cannot be given: the chosen fit's held-out error above 15%, points within each
/// other's noise, a parameter at its bound, oversubscribed points (empty where none).
inline std::vector<std::string> doubts(const prediction_report& q, const scaling_report& r, const fitted_law& chosen,
                                       std::size_t cores_per_host) {
    std::vector<std::string> why;
    if (!(q.held_out_error <= 0.15)) {
        why.push_back("the chosen fit (" + q.chosen + ") predicted the points it was not fitted to with " +
                      (std::isnan(q.held_out_error) ? std::string("unknown") : percent(q.held_out_error)) +
                      " error (the limit is 15%)");
    }
    if (std::string noise = noise_doubt(r); !noise.empty()) why.push_back(noise);
    if (!chosen.at_bound.empty()) why.push_back(q.chosen + "'s " + chosen.at_bound);
    // The cores given, else the machine's for points whose workers ran on a CPU most of their busy
    // time (cpu_use: work that sleeps or waits on storage is not held back by the cores).
    for (const scaling_point& p : r.points) {
        const std::size_t per_host = cores_per_host > 0 ? cores_per_host : !(p.cpu_use >= 0.5) ? 0 : r.machine.cores;
        if (per_host > 0) {
            const std::size_t cores = per_host * std::max<std::size_t>(p.hosts, 1);
            if (p.workers > cores) {
                why.push_back("the point at " + std::to_string(p.workers) + " workers ran on " + std::to_string(cores) +
                              " cores (oversubscribed)");
                break;
            }
        }
    }
    return why;
}

/// The range of worker counts the fits that hold allow (all of them where none holds, or where
/// one number cannot be given), around `mine`.
inline void advice_range(prediction_report& q, const std::vector<fitted_law>& full, const std::vector<double>& held,
                         double t1, double mine) {
    q.range_low = q.range_high = mine;
    bool any = false;
    for (std::size_t c = 0; c < full.size(); ++c) {
        if (!(held[c] <= 0.15) || !full[c].at_bound.empty()) continue;
        any = true;
        const auto [k, e] = knee_and_break_even(full[c].time_at, t1);
        q.range_low = std::min(q.range_low, std::min(k, e));
        q.range_high = std::max(q.range_high, std::min(k, e));
    }
    if (!any || !q.confident) {
        for (const fitted_law& f : full) {
            const auto [k, e] = knee_and_break_even(f.time_at, t1);
            q.range_low = std::min(q.range_low, std::min(k, e));
            q.range_high = std::max(q.range_high, std::min(k, e));
        }
    }
}

}  // namespace detail

/// Fits the per-phase model, Amdahl's law and the USL to `r`'s points and fills r.prediction:
/// the fit that predicts held-out points best (each worker count predicted by the fit to the
/// others) is chosen; from it the predicted points at 8 to 1024 workers, the
/// knee, the break-even and the workers to ask for. When the points cannot support one number
/// (the chosen fit's held-out error above 15%, neighbouring points within each other's 95%
/// intervals, a parameter held at its physical bound, points with more workers than `cores_per_host`
/// cores per host), `confident` is false, `reason` says why, there is no recommended count, and
/// `range` and `next_measurement` say what the fits allow and what to measure next (never more
/// than `cores_per_host` per host, or the cores of r.machine where that is 0: next_note then names
/// the machine that would decide).
/// Contended points (scaling_point::contended) are left out of every fit; with fewer than three
/// clean worker counts there is no prediction, and its note says why.
/// `cores_per_node` C > 0 adds the nodes to ask for and the core-hours per run on whole nodes.
/// A report without a point at 1 worker, or with fewer than three worker counts, gets a
/// prediction that says why it has none.
/// \throws std::invalid_argument if `strict` and no prediction can be made, saying why; if C does
///         not divide a worker count of C or more, naming it
inline void predict(scaling_report& r, bool strict = false, std::size_t cores_per_host = 0,
                    std::size_t cores_per_node = 0);

namespace detail {

/// predict on the points that were not contended: they are fitted alone, and the report gets
/// their prediction (with the contended points named in its note), or why there is none.
inline void predict_clean_points(scaling_report& r, bool strict, std::size_t cores_per_host,
                                 std::size_t cores_per_node) {
    const std::string why = contention_note(r);
    scaling_report clean = r;
    clean.points.clear();
    for (const scaling_point& p : r.points) {
        if (!p.contended) clean.points.push_back(p);
    }
    std::set<std::size_t> counts;
    for (const scaling_point& p : clean.points) counts.insert(p.workers);
    if (counts.size() < 3 || *counts.begin() != 1) {
        r.prediction = {};
        r.prediction.note = why +
                            ": no advice without three clean worker counts, one of them 1 (measure on a quiet "
                            "machine, or with fewer workers than the cores free)";
        if (strict) throw std::invalid_argument("[chunkwise.bench] predict: " + r.prediction.note);
        return;
    }
    clean.finish();
    predict(clean, strict, cores_per_host, cores_per_node);
    r.prediction = clean.prediction;
    r.prediction.note += "; not fitted: " + why;
    for (scaling_point& p : r.points) {
        for (const scaling_point& c : clean.points) {
            if (c.workers == p.workers && c.ranks == p.ranks) p.core_hours = c.core_hours;
        }
    }
}

}  // namespace detail

inline void predict(scaling_report& r, bool strict, std::size_t cores_per_host, std::size_t cores_per_node) {
    // Contended points are left out, where the report has enough points to predict from at all
    // (else the refusals below say what is missing).
    std::set<std::size_t> counts;
    bool contended = false;
    for (const scaling_point& p : r.points) {
        counts.insert(p.workers);
        contended = contended || p.contended;
    }
    if (contended && counts.size() >= 3 && r.baseline_workers == 1) {
        return detail::predict_clean_points(r, strict, cores_per_host, cores_per_node);
    }
    prediction_report q;
    auto refuse = [&](const std::string& why) {
        const std::string busy = detail::contention_note(r);  // said too: measuring again, measure quietly
        q.note = busy.empty() ? why : why + "; and " + busy;
        r.prediction = q;
        if (strict) throw std::invalid_argument("[chunkwise.bench] predict: " + q.note);
    };
    detail::check_cores_per_node(r, cores_per_node);
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
    detail::describe_model(q, r, m, all, cores_per_node);
    q.cores_per_host = cores_per_host;
    std::vector<double> ns, ts;
    for (const scaling_point& p : r.points) {
        for (double t : p.samples) {
            ns.push_back(static_cast<double>(p.workers));
            ts.push_back(t);
        }
    }
    q.amdahl = fit_amdahl(ns, ts);
    q.usl = fit_usl(ns, ts);
    const std::vector<std::string> names{"amdahl", "usl", "model"};
    const std::vector<double> held = detail::held_out_errors(names, r, all, probe_cap);
    q.amdahl_held_out = held[0];
    q.usl_held_out = held[1];
    q.model_held_out = held[2];
    const std::size_t pick = detail::pick_law(held);
    q.chosen = names[pick];
    q.held_out_error = held[pick];
    std::vector<detail::fitted_law> full;
    for (const std::string& n : names) full.push_back(detail::fit_law(n, r, all, probe_cap, 0));
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
    const std::vector<std::string> why = detail::doubts(q, r, chosen, cores_per_host);
    q.confident = why.empty();
    for (const std::string& w : why) q.reason += (q.reason.empty() ? "" : "; ") + w;
    detail::advice_range(q, full, held, t1, mine);
    if (q.confident) {
        q.recommended = mine;
        q.next_measurement = not_measured;
        if (cores_per_node > 0) q.recommended_nodes = std::ceil(mine / c_nodes);
    } else {
        q.recommended = not_measured;
        q.next_measurement = 2 * detail::worker_counts(r).back();
        // Never more workers per host than the host has cores: say what machine would decide.
        const double hosts = static_cast<double>(std::max<std::size_t>(r.points.back().hosts, 1));
        const std::size_t cores = cores_per_host > 0 ? cores_per_host : r.machine.cores;
        if (cores > 0 && q.next_measurement / hosts > static_cast<double>(cores)) {
            char b[192];
            std::snprintf(b, sizeof b, "measure %g workers on %s with at least %g cores to decide", q.next_measurement,
                          hosts > 1 ? "hosts" : "a machine", q.next_measurement / hosts);
            q.next_note = b;
            q.next_measurement = not_measured;
        }
    }
    q.note = "fitted to " + std::to_string(r.points.size()) +
             " measured points; predictions assume a core per worker and the same file system";
    r.prediction = q;
}

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
