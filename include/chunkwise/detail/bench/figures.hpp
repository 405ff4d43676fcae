#pragma once
// Internal: a scaling report's derived figures: finish() (means, the baseline, speedup,
// efficiency, Karp-Flatt, the Amdahl and USL fits, only against a measured baseline), merge()
// (runs made apart, one report) and table() (the terminal's view). Included by
// <chunkwise/bench/report.hpp> after the class it defines them for.
#include <chunkwise/bench/fits.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::bench {

namespace detail {

/// "workers got 0.48 of a core each" or "the hypervisor stole 31% of the CPU time": why `p` is
/// contended.
inline std::string contention_words(const scaling_point& p) {
    char b[160];
    if (!(p.steal > contended_steal)) {
        std::snprintf(b, sizeof b, "workers got %.2f of a core each", p.cpu_share);
    } else {
        std::snprintf(b, sizeof b, "the hypervisor stole %.0f%% of the CPU time", 100 * p.steal);
    }
    return b;
}

/// "2 of 3 points contended (at 1 and 2 workers): other work took the cores", or "" where no
/// point is (the table's "contended:" lines say how much).
inline std::string contention_note(const scaling_report& r) {
    std::vector<std::size_t> at;
    for (const scaling_point& p : r.points) {
        if (p.contended) at.push_back(p.workers);
    }
    if (at.empty()) return {};
    std::string where;
    for (std::size_t i = 0; i < at.size(); ++i) {
        where += (i == 0 ? "" : i + 1 == at.size() ? " and " : ", ") + std::to_string(at[i]);
    }
    return std::to_string(at.size()) + " of " + std::to_string(r.points.size()) + " points contended (at " + where +
           (at.size() == 1 && at[0] == 1 ? " worker" : " workers") + "): other work took the cores";
}

}  // namespace detail

inline void scaling_report::finish() {
    std::sort(points.begin(), points.end(), [](const scaling_point& a, const scaling_point& b) {
        return a.workers < b.workers || (a.workers == b.workers && a.ranks < b.ranks);
    });
    std::vector<double> ns, ts;  // the clean points' samples: what the fits see
    for (scaling_point& p : points) {
        if (p.samples.empty()) throw std::invalid_argument("[chunkwise.bench] a scaling point without samples");
        p.contended = p.judged_contended(machine.cores);
        p.min = p.samples.front();
        for (double t : p.samples) {
            p.min = std::min(p.min, t);
            if (p.contended) continue;
            ns.push_back(static_cast<double>(p.workers));
            ts.push_back(t);
        }
        const sample_summary summary = summarize_samples(p.samples);
        p.mean = summary.mean;
        p.std = summary.std;
        if (p.samples.size() > 1) {
            p.interval_low = std::max(0.0, p.mean - summary.half);
            p.interval_high = p.mean + summary.half;
        } else {
            p.interval_low = p.interval_high = not_measured;
        }
        // The bytes this point's workers counted (h5 reads, count_read_bytes), else the report's D.
        double bytes = 0;
        for (const rank_times& r : p.per_rank) bytes += r.read_bytes;
        if (!(bytes > 0)) bytes = bytes_read;
        p.read_bandwidth = bytes > 0 && p.phases.read > 0 ? bytes / p.phases.read : not_measured;
        p.summarize_ranks();
    }
    amdahl_fitted = false;
    amdahl = {};
    usl = {};
    baseline_note.clear();
    amdahl_note.clear();
    if (points.empty()) return;
    // The baseline: the fewest workers measured (the first such point). Every figure is against it.
    const scaling_point& base = points.front();
    baseline_workers = base.workers;
    const double n0 = static_cast<double>(base.workers);
    for (scaling_point& p : points) {
        p.speedup = base.mean / p.mean;
        p.efficiency = p.speedup / (static_cast<double>(p.workers) / n0);
        p.karp_flatt = baseline_workers == 1 ? karp_flatt(p.speedup, static_cast<double>(p.workers)) : not_measured;
    }
    if (baseline_workers != 1) {
        baseline_note = "no run at 1 worker was measured: speedups are relative to " +
                        std::to_string(baseline_workers) +
                        " workers; Karp-Flatt, Amdahl and USL need t(1) and are null";
        amdahl_note = baseline_note;
        return;
    }
    if (const std::string c = detail::contention_note(*this); !c.empty()) {
        if (base.contended || std::set<double>(ns.begin(), ns.end()).size() < 2) {
            amdahl_note = c + ": fewer than two clean worker counts with the one at 1 worker, so no fit";
            return;
        }
    }
    try {
        amdahl = fit_amdahl(ns, ts);
        usl = fit_usl(ns, ts);
        amdahl_fitted = true;
    } catch (const std::invalid_argument& e) {
        amdahl = {};
        usl = {};
        amdahl_note = "needs two worker counts or more";
    }
}

inline scaling_report scaling_report::merge(const std::vector<scaling_report>& parts,
                                            const std::vector<std::string>& names) {
    scaling_report r;
    if (parts.empty()) return r;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string d = parts.front().fingerprint.differences(parts[i].fingerprint);
        if (d.empty()) continue;
        auto name = [&](std::size_t k) { return k < names.size() ? names[k] : "report " + std::to_string(k + 1); };
        throw std::invalid_argument(
            "[chunkwise.bench] merge: the reports measured different work and cannot be merged: " + name(0) + " vs " +
            name(i) + " differ in " + d);
    }
    for (const scaling_report& p : parts) {
        if (p.workload == parts.front().workload && p.input == parts.front().input) continue;
        std::string text = "[chunkwise.bench] merge: the reports are of different runs and cannot be merged:";
        for (std::size_t i = 0; i < parts.size(); ++i) {
            text += (i ? "; " : " ") + (i < names.size() ? names[i] : "report " + std::to_string(i + 1)) +
                    ": workload '" + parts[i].workload + "'" +
                    (parts[i].input.empty() ? std::string() : ", input " + parts[i].input);
        }
        throw std::invalid_argument(text);
    }
    r = parts.front();
    r.points.clear();
    r.prediction = {};
    bool mpi = false, threads_beyond_one = false;
    for (const scaling_report& p : parts) {
        r.bytes_read = std::max(r.bytes_read, p.bytes_read);
        r.hosts_given = std::max(r.hosts_given, p.hosts_given);
        if (p.shared_bandwidth > r.shared_bandwidth) {
            r.shared_bandwidth = p.shared_bandwidth;
            r.probe = p.probe;
        }
        for (const scaling_point& s : p.points) {
            mpi = mpi || s.ranks > 1 || p.mode != "threads";
            threads_beyond_one = threads_beyond_one || s.threads > 1;
            auto same = std::find_if(r.points.begin(), r.points.end(), [&](const scaling_point& q) {
                return q.ranks == s.ranks && q.threads == s.threads;
            });
            if (same == r.points.end()) {
                r.points.push_back(s);
                continue;
            }
            // The same point measured twice: samples together, phases and ranks weighted by them.
            const double a = static_cast<double>(same->samples.size()), b = static_cast<double>(s.samples.size());
            auto mix = [&](double& x, double y) { x = (x * a + y * b) / (a + b); };
            same->phases.each(s.phases, mix);
            mix(same->lock_held_share, s.lock_held_share);
            for (auto [mine, theirs] : {std::pair<double*, double>{&same->cpu_share, s.cpu_share},
                                        std::pair<double*, double>{&same->cpu_use, s.cpu_use},
                                        std::pair<double*, double>{&same->steal, s.steal}}) {
                if (std::isnan(*mine)) {
                    *mine = theirs;
                } else if (!std::isnan(theirs)) {
                    mix(*mine, theirs);
                }
            }
            if (!(same->load >= s.load)) same->load = s.load;  // the busier of the two
            if (same->per_rank.size() == s.per_rank.size()) {
                for (std::size_t k = 0; k < s.per_rank.size(); ++k) same->per_rank[k].each(s.per_rank[k], mix);
            }
            same->samples.insert(same->samples.end(), s.samples.begin(), s.samples.end());
        }
    }
    r.mode = mpi ? (threads_beyond_one ? "hybrid" : "mpi") : "threads";
    r.finish();
    return r;
}

namespace detail {

/// x printed with `format`, or "-" where it is not a number.
inline std::string figure(double x, const char* format) {
    if (std::isnan(x)) return std::string("-");
    char b[32];
    std::snprintf(b, sizeof b, format, x);
    return std::string(b);
}

/// The table's rows: one per point.
inline void table_points(std::ostringstream& o, const scaling_report& r) {
    char line[512];
    std::snprintf(line, sizeof line, "%7s %5s %7s  %9s %8s %8s %-15s  %7s %7s %7s %7s %7s  %7s %6s %6s  %s\n",
                  "workers", "ranks", "threads", "wall s", "±95%", "repeats", "(stopped by)", "read", "compute", "wait",
                  "combine", "other", "speedup", "eff", "K-F", "slowest rank@host (imbalance)");
    o << line;
    for (const scaling_point& p : r.points) {
        const std::string half = std::isnan(p.interval_high) ? "-" : figure(100 * p.relative_precision(), "%.1f%%");
        std::snprintf(
            line, sizeof line,
            "%7zu %5zu %7zu  %9.4f %8s %8zu %-15s  %7.4f %7.4f %7.4f %7.4f %7.4f  %7s %6s %6s  %d@%s (%.2f)\n",
            p.workers, p.ranks, p.threads, p.mean, half.c_str(), p.samples.size(), ("(" + p.stop + ")").c_str(),
            p.phases.read, p.phases.compute, p.phases.wait, p.phases.combine, p.phases.other,
            figure(p.speedup, "%.2f").c_str(), figure(p.efficiency, "%.2f").c_str(),
            figure(p.karp_flatt, "%.3f").c_str(), p.slowest_rank, p.slowest_host.c_str(), p.imbalance);
        o << line;
    }
    for (const scaling_point& p : r.points) {
        if (!p.contended) continue;
        o << "contended: at " << p.workers << (p.workers == 1 ? " worker, " : " workers, ") << contention_words(p)
          << ": this point measures the machine, not the workload";
        if (!std::isnan(p.load)) {
            std::snprintf(line, sizeof line, " (load average %.2f on %zu cores before it)", p.load, r.machine.cores);
            o << line;
        }
        o << "\n";
    }
}

/// Per host, where the run had several (or ranks); a note where fewer hosts ran than were given.
inline void table_hosts(std::ostringstream& o, const scaling_report& r) {
    char line[512];
    bool several_hosts = false;
    for (const scaling_point& p : r.points) several_hosts = several_hosts || p.per_host.size() > 1 || p.ranks > 1;
    if (several_hosts) {
        o << "per host (ranks x threads; busy and read s per worker; read MB; slowest rank):\n";
        for (const scaling_point& p : r.points) {
            std::snprintf(line, sizeof line, "  %zu workers:", p.workers);
            o << line;
            for (const host_times& h : p.per_host) {
                std::snprintf(line, sizeof line, "  %s %zux%zu busy %.4f read %.4f %.1f MB slowest %d;", h.host.c_str(),
                              h.ranks, h.ranks > 0 ? h.threads / h.ranks : 0, h.busy, h.read, h.read_bytes / 1e6,
                              h.slowest_rank);
                o << line;
            }
            o << "\n";
        }
    }
    if (r.hosts_given == 0) return;
    for (const scaling_point& p : r.points) {
        if (p.ranks >= r.hosts_given && p.hosts < r.hosts_given) {
            o << "note: " << r.hosts_given << " hosts were given, but the point of " << p.ranks << " ranks ran on "
              << p.hosts << " (see docs/scaling.md, placement)\n";
        }
    }
}

/// The read path's lock, a Karp-Flatt note, the baseline.
inline void table_lock(std::ostringstream& o, const scaling_report& r) {
    if (r.points.empty()) return;
    char line[512];
    o << "lock of the read path held (share of busy time; the Amdahl bound it implies at 16, 64, 1024):";
    for (const scaling_point& p : r.points) {
        std::snprintf(line, sizeof line, " %zu: %.2f%% (%.1f, %.1f, %.0f)", p.workers, 100 * p.lock_held_share,
                      p.lock_bound(16), p.lock_bound(64), p.lock_bound(1024));
        o << line;
    }
    o << "\n";
    for (const scaling_point& p : r.points) {
        if (p.karp_flatt > 1) {
            std::snprintf(line, sizeof line,
                          "note: Karp-Flatt %.2f at %zu workers is above 1 (a serial fraction cannot be): the run "
                          "was slower than on 1 worker; an overhead grows with the workers, or the point is noise\n",
                          p.karp_flatt, p.workers);
            o << line;
            break;
        }
    }
    o << "baseline: " << r.baseline_workers << " worker" << (r.baseline_workers == 1 ? "" : "s")
      << (r.baseline_note.empty() ? " (measured)" : " (" + r.baseline_note + ")") << "\n";
}

/// The largest relative error of `time_at` over the clean points of `r` (what a fit was fitted to),
/// and the worker count where it is.
template <class Law>
std::pair<double, std::size_t> worst_point(const Law& law, const scaling_report& r) {
    double worst = 0;
    std::size_t at = 0;
    for (const scaling_point& p : r.points) {
        if (p.contended || !(p.mean > 0)) continue;
        const double e = std::fabs(law.time_at(static_cast<double>(p.workers)) - p.mean) / p.mean;
        if (e > worst) {
            worst = e;
            at = p.workers;
        }
    }
    return {worst, at};
}

/// A fit's figures are printed only where they describe the points: no parameter held at the
/// bound that blames the workload (a serial fraction or contention of 1: the times rise with N),
/// and every point it was fitted to reproduced within 15%. Otherwise the line says which.
inline constexpr double fit_shown_within = 0.15;

/// "" where `law` may be shown, else why not ("held at a bound: ...", "off by 23% at 2 workers").
template <class Law>
std::string fit_withheld(const Law& law, const scaling_report& r) {
    if (law.at_bound.rfind("serial_fraction = 1", 0) == 0 || law.at_bound.rfind("sigma = 1", 0) == 0) {
        return "held at a bound (" + law.at_bound + "): not a finding";
    }
    const auto [worst, at] = worst_point(law, r);
    if (worst <= fit_shown_within) return {};
    char b[160];
    std::snprintf(b, sizeof b, "off by %.0f%% at %zu worker%s: it does not describe the points", 100 * worst, at,
                  at == 1 ? "" : "s");
    return b;
}

/// The Amdahl and USL fits, or why there are none. Each error printed is the largest relative
/// error over the points it was fitted to: the fit reproduces every such point within it.
inline void table_fits(std::ostringstream& o, const scaling_report& r) {
    if (!r.amdahl_fitted) {
        if (!r.points.empty()) o << "Amdahl and USL fits: none (" << r.amdahl_note << ")\n";
        return;
    }
    char line[512];
    if (const std::string why = fit_withheld(r.amdahl, r); !why.empty()) {
        o << "Amdahl fit: " << why << "\n";
    } else {
        std::snprintf(line, sizeof line,
                      "Amdahl fit: serial fraction %.4f, max speedup %s, t1 %.4f s, every point within %.1f%%%s\n",
                      r.amdahl.serial_fraction,
                      std::isinf(r.amdahl.max_speedup) ? "unbounded" : figure(r.amdahl.max_speedup, "%.1f").c_str(),
                      r.amdahl.t1, 100 * worst_point(r.amdahl, r).first,
                      r.amdahl.at_bound.empty() ? "" : (" (" + r.amdahl.at_bound + ")").c_str());
        o << line;
    }
    if (const std::string why = fit_withheld(r.usl, r); !why.empty()) {
        o << "USL fit: " << why << "\n";
    } else {
        const double peak = r.usl.peak_workers();
        std::snprintf(line, sizeof line,
                      "USL fit: contention %.4f, coherency %.6f, peak %s, every point within %.1f%%\n", r.usl.sigma,
                      r.usl.kappa,
                      std::isinf(peak) || !(peak >= 1) ? "none" : ("at " + figure(peak, "%.0f") + " workers").c_str(),
                      100 * worst_point(r.usl, r).first);
        o << line;
    }
}

/// The prediction: the model, the held-out errors, the predicted points and the advice (or why
/// there is none).
inline void table_prediction(std::ostringstream& o, const prediction_report& q) {
    char line[512];
    const std::string per = q.cores_per_host > 0 ? "/min(N," + std::to_string(q.cores_per_host) + ")" : "/N";
    const bool all_zero = q.t_serial == 0 && q.read_one == 0 && q.comm == 0;
    if (q.model_error > fit_shown_within) {
        std::snprintf(line, sizeof line, "model: off by %.1f%% at a point it was fitted to: not shown\n",
                      100 * q.model_error);
    } else {
        std::snprintf(line, sizeof line,
                      "model: t(N) = %.4f + %.4f%s + read max(%.4f/N, %.4f) + %.2e*%s   (every point within %.1f%%, "
                      "held out %s)%s\n",
                      q.t_serial, q.work, per.c_str(), q.read_one, q.read_cap, q.comm,
                      q.growth == "n" ? "N" : "log2(N)", 100 * q.model_error,
                      figure(100 * q.model_held_out, "%.1f%%").c_str(),
                      all_zero ? ": serial, read and growing terms at their bound 0, not a finding" : "");
    }
    o << line;
    std::snprintf(line, sizeof line, "held-out error: amdahl %s, usl %s, model %s: chosen %s\n",
                  figure(100 * q.amdahl_held_out, "%.1f%%").c_str(), figure(100 * q.usl_held_out, "%.1f%%").c_str(),
                  figure(100 * q.model_held_out, "%.1f%%").c_str(), q.chosen.c_str());
    o << line;
    if (!q.bandwidth_note.empty()) o << q.bandwidth_note << "\n";
    o << "predicted:";
    for (const auto& p : q.points) {
        std::snprintf(line, sizeof line, "  %g: %.3f s (S %.1f, E %.2f)", p.workers, p.seconds, p.speedup,
                      p.efficiency);
        o << line;
    }
    o << "\n";
    if (q.confident) {
        std::snprintf(line, sizeof line, "knee at %g workers, break-even P* = %g: ask for %g workers", q.knee,
                      q.break_even, q.recommended);
        o << line;
        if (q.cores_per_node > 0) {
            std::snprintf(line, sizeof line, " (%g nodes of %zu cores)", q.recommended_nodes, q.cores_per_node);
            o << line;
        }
    } else {
        std::snprintf(line, sizeof line, "no single count: %s.\nthe fits allow %g to %g workers", q.reason.c_str(),
                      q.range_low, q.range_high);
        o << line;
        if (!std::isnan(q.next_measurement)) {
            std::snprintf(line, sizeof line, "; measure %g workers to decide", q.next_measurement);
            o << line;
        } else if (!q.next_note.empty()) {
            o << "; " << q.next_note;
        }
    }
    o << "\n";
}

}  // namespace detail

inline std::string scaling_report::table() const {
    std::ostringstream o;
    detail::table_points(o, *this);
    if (!std::isnan(machine.load)) {
        char line[256];
        std::snprintf(line, sizeof line, "machine: %zu cores, load average %.2f before the run (%.1f cores free)\n",
                      machine.cores, machine.load, machine.cores_free());
        o << line;
    }
    detail::table_hosts(o, *this);
    detail::table_lock(o, *this);
    detail::table_fits(o, *this);
    if (prediction.fitted) {
        detail::table_prediction(o, prediction);
    } else if (!prediction.note.empty()) {
        o << "prediction: none (" << prediction.note << ")\n";
    } else {
        o << "prediction: none (bench::predict was not run on this report)\n";
    }
    return o.str();
}

}  // namespace chunkwise::bench
