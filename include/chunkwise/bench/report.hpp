#pragma once
/// \file
/// A strong-scaling report (standard library only): its points, each with the critical path of
/// the run broken into phases that add up to the wall time, a breakdown per rank with the
/// straggler named, and the derived figures (speedup, efficiency, Karp-Flatt, the Amdahl and USL
/// fits) computed only against a measured baseline. Written as JSON and CSV by
/// <chunkwise/bench/report_io.hpp>; the prediction of <chunkwise/bench/model.hpp> rides along.
/// Schema and how to read the figures: docs/scaling.md.

#include <chunkwise/bench/fits.hpp>
#include <chunkwise/bench/machine.hpp>
#include <chunkwise/error.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/version.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::bench {

inline constexpr double not_measured = std::numeric_limits<double>::quiet_NaN();  ///< a figure written as null

/// The critical path of one run (or their mean over repeats), seconds: the slowest rank's own
/// read, compute and wait (per worker of that rank), its combine, and `other`, the rest of the
/// wall time (the workload's serial code outside map_blocks, launch, agreement, barriers). The
/// five add up to the wall time. `lock` is the part of read spent at a lock of the read path.
struct phase_times {
    double read = 0;     ///< inside h5 reads and read_scope
    double compute = 0;  ///< busy minus read
    double wait = 0;     ///< idle until the last worker of the whole run finished
    double combine = 0;  ///< gather, reduce on the calling thread
    double other = 0;    ///< the rest of the wall time: outside map_blocks and the combine
    double lock = 0;     ///< of read: waiting for and holding a lock of the read path

    /// read + compute + wait + combine + other: the wall time of the run.
    [[nodiscard]] double total() const noexcept { return read + compute + wait + combine + other; }
};

/// One rank of a point: seconds per worker of that rank (mean over its threads and the repeats).
struct rank_times {
    int rank = 0;             ///< MPI rank (0 for threads in one process)
    std::string host;         ///< where it ran
    std::size_t threads = 1;  ///< its workers
    double busy = 0;     ///< seconds per worker inside block functions
    double read = 0;     ///< of busy, reading
    double compute = 0;  ///< of busy, not reading
    double wait = 0;     ///< idle until the run ended
    double combine = 0;  ///< combining on the calling thread
    double lock = 0;     ///< of read, at a lock of the read path
};

/// One worker count of a scaling run.
struct scaling_point {
    std::size_t workers = 0;      ///< total workers: ranks x threads
    std::size_t ranks = 1;        ///< MPI ranks (1 for threads in one process)
    std::size_t threads = 1;      ///< threads per rank
    std::size_t hosts = 1;        ///< distinct hosts the ranks ran on
    std::vector<double> samples;  ///< wall seconds of each repeat (the slowest rank's)
    phase_times phases;           ///< the critical path, mean over repeats; adds up to `mean`
    std::vector<rank_times> per_rank;  ///< every rank, in rank order
    int slowest_rank = 0;              ///< the rank with the most busy time per worker (the straggler)
    std::string slowest_host;          ///< its host
    double imbalance = 1;              ///< max / mean busy time per worker over the ranks (1: balanced)
    /// Of the busy time of every worker of every rank, the share spent holding a lock of the read
    /// path (mean over repeats): serial, whatever the worker count.
    double lock_held_share = 0;
    // Filled by scaling_report::finish():
    double mean = 0;                     ///< of samples, seconds
    double std = 0;                      ///< standard deviation of samples, seconds
    double min = 0;                      ///< fastest sample, seconds
    double speedup = not_measured;       ///< t(N0) / t(N), relative to the baseline N0 (null without one)
    double efficiency = not_measured;    ///< speedup / (N / N0)
    double karp_flatt = not_measured;    ///< needs a measured t(1); null at N = 1 and without one

    /// The Amdahl bound on the speedup at `n` workers that lock_held_share implies.
    [[nodiscard]] double lock_bound(double n) const noexcept {
        return 1.0 / (lock_held_share + (1 - lock_held_share) / n);
    }

    /// Records one repeat: every rank's statistics (gather_stats; one entry without MPI) and each
    /// rank's own seconds for the repeat, in the same order. The wall time is the longest of
    /// them; the critical path is the straggler's (the most busy time per worker), `other` the
    /// rest of the wall time.
    /// \throws std::invalid_argument if the two lists differ in length or are empty
    void add_repeat(const std::vector<run_stats>& ranks_stats, const std::vector<double>& rank_seconds) {
        if (ranks_stats.empty() || ranks_stats.size() != rank_seconds.size()) {
            throw std::invalid_argument("[chunkwise.bench] add_repeat: " + std::to_string(ranks_stats.size()) +
                                        " ranks' statistics but " + std::to_string(rank_seconds.size()) +
                                        " ranks' times");
        }
        const double wall = *std::max_element(rank_seconds.begin(), rank_seconds.end());
        const double n = static_cast<double>(samples.size());
        std::size_t straggler = 0;
        double most_busy = -1;
        if (per_rank.size() != ranks_stats.size()) per_rank.assign(ranks_stats.size(), rank_times{});
        for (std::size_t r = 0; r < ranks_stats.size(); ++r) {
            const run_stats& s = ranks_stats[r];
            const double t = static_cast<double>(std::max<std::size_t>(s.workers.size(), 1));
            rank_times mine;
            mine.rank = s.rank;
            mine.host = s.host;
            mine.threads = s.workers.size();
            for (const worker_stats& w : s.workers) {
                mine.busy += w.busy / t;
                mine.read += w.read / t;
                mine.compute += w.compute() / t;
                mine.wait += w.wait / t;
                mine.lock += w.lock() / t;
                mine.combine += w.combine;  // the calling thread's
            }
            if (mine.busy > most_busy) {
                most_busy = mine.busy;
                straggler = r;
            }
            // The mean over repeats, kept as it grows.
            rank_times& acc = per_rank[r];
            acc.rank = mine.rank;
            acc.host = mine.host;
            acc.threads = mine.threads;
            acc.busy = (acc.busy * n + mine.busy) / (n + 1);
            acc.read = (acc.read * n + mine.read) / (n + 1);
            acc.compute = (acc.compute * n + mine.compute) / (n + 1);
            acc.wait = (acc.wait * n + mine.wait) / (n + 1);
            acc.combine = (acc.combine * n + mine.combine) / (n + 1);
            acc.lock = (acc.lock * n + mine.lock) / (n + 1);
        }
        double held = 0, busy = 0;
        for (const run_stats& st : ranks_stats) {
            for (const worker_stats& w : st.workers) {
                held += w.lock_held;
                busy += w.busy;
            }
        }
        lock_held_share = (lock_held_share * n + (busy > 0 ? std::min(1.0, held / busy) : 0.0)) / (n + 1);
        // The straggler's own path through the repeat.
        const run_stats& s = ranks_stats[straggler];
        const double t = static_cast<double>(std::max<std::size_t>(s.workers.size(), 1));
        phase_times p;
        for (const worker_stats& w : s.workers) {
            p.read += w.read / t;
            p.compute += w.compute() / t;
            p.wait += w.wait / t;
            p.lock += w.lock() / t;
            p.combine += w.combine;
        }
        p.other = std::max(0.0, wall - (p.read + p.compute + p.wait + p.combine));
        phases.read = (phases.read * n + p.read) / (n + 1);
        phases.compute = (phases.compute * n + p.compute) / (n + 1);
        phases.wait = (phases.wait * n + p.wait) / (n + 1);
        phases.combine = (phases.combine * n + p.combine) / (n + 1);
        phases.other = (phases.other * n + p.other) / (n + 1);
        phases.lock = (phases.lock * n + p.lock) / (n + 1);
        samples.push_back(wall);
        summarize_ranks();
    }

    /// Records one repeat known only by its wall time (a workload without statistics): all of it
    /// is `other`.
    void add_timed_repeat(double wall) {
        const double n = static_cast<double>(samples.size());
        phases.other = (phases.other * n + wall) / (n + 1);
        samples.push_back(wall);
    }

    /// The straggler, the imbalance and the number of hosts, from per_rank.
    void summarize_ranks() {
        if (per_rank.empty()) return;
        double sum = 0, most = -1;
        std::set<std::string> distinct;
        for (const rank_times& r : per_rank) {
            sum += r.busy;
            distinct.insert(r.host);
            if (r.busy > most) {
                most = r.busy;
                slowest_rank = r.rank;
                slowest_host = r.host;
            }
        }
        const double mean_busy = sum / static_cast<double>(per_rank.size());
        imbalance = mean_busy > 0 ? most / mean_busy : 1.0;
        hosts = distinct.size();
    }
};

/// A model of the run fitted to its measured points, and what it predicts (filled by
/// <chunkwise/bench/model.hpp>'s predict; empty until then).
struct prediction_report {
    /// One predicted worker count.
    struct point {
        double workers = 0;     ///< N
        double seconds = 0;     ///< the model's t(N)
        double speedup = 0;     ///< the measured t(1) / t(N)
        double efficiency = 0;  ///< speedup / N
    };
    bool fitted = false;       ///< false: not enough points (see note)
    std::string note;          ///< why there is no prediction, or what it assumes
    std::vector<point> points;  ///< predicted at 8, 16, ..., 1024 workers
    double knee = 0;           ///< the worker count past which doubling gains less than 10%
    double break_even = 0;     ///< P*: past it, more core-hours are spent than the run saves (E < 0.5)
    double recommended = 0;    ///< the workers to ask for: min(knee, P*)
    // The fitted model t(N) = t_serial + W / N + D / min(N b, B) + c g(N), and the laws beside it.
    double t_serial = 0;          ///< seconds no worker count shortens
    double work = 0;              ///< W: seconds of parallel compute on one worker
    double bytes = 0;             ///< D: bytes read per run (0: unknown)
    double worker_bandwidth = 0;  ///< b: bytes/s one worker reads at (0 where D is unknown)
    double shared_bandwidth = 0;  ///< B: bytes/s all readers share (the probe's; 0: none)
    double comm = 0;              ///< c: seconds per unit of g(N)
    double read_one = 0;          ///< D / b: the read time on one worker, seconds
    std::string growth;           ///< g(N): "n" or "log2(n)"
    double model_error = 0;       ///< RMS relative error of the model's times over the measured points
    amdahl_fit amdahl;            ///< Amdahl's law fitted to the same points
    usl_fit usl;                  ///< the Universal Scalability Law fitted to the same points
};

/// A strong-scaling run: points over worker counts, the derived figures and fits, written as
/// scaling.json, scaling.csv and scaling_ranks.csv (schema in docs/scaling.md).
class scaling_report {
public:
    std::string workload;          ///< what ran
    std::string input;             ///< what it read: "FILE:DATASET" (absolute path), or "" for none
    std::string mode = "threads";  ///< "threads", "mpi" or "hybrid"
    machine_info machine = machine_info::here();                ///< where it ran (the root's host)
    std::string chunkwise_version = CHUNKWISE_VERSION_STRING;  ///< the chunkwise that measured
    std::vector<scaling_point> points;  ///< ascending worker count after finish()
    std::size_t baseline_workers = 0;   ///< N0: the fewest workers measured; speedups are relative to it
    std::string baseline_note;          ///< why figures that need t(1) are null ("" when N0 = 1)
    amdahl_fit amdahl;                  ///< fitted to every sample of every point
    bool amdahl_fitted = false;         ///< false with fewer than two worker counts or N0 > 1
    usl_fit usl;                        ///< the Universal Scalability Law, fitted likewise
    std::string amdahl_note;            ///< why there is no Amdahl or USL fit ("" when fitted)
    double bytes_read = 0;              ///< D: bytes the workload reads from its input per run (0: none)
    double shared_bandwidth = 0;        ///< B: bytes/s the input's file system gave a short read probe (0: none)
    std::string probe;                  ///< how B was measured
    prediction_report prediction;       ///< the per-phase model and what it predicts (model.hpp)

    /// Sorts the points and computes mean, std, min; the baseline N0 (the fewest workers); speedup
    /// S(N) = t(N0) / t(N) and efficiency S(N) / (N / N0) against it; Karp-Flatt, Amdahl and USL
    /// only when N0 = 1 (they need t(1)); null otherwise, with the reason in baseline_note.
    void finish() {
        std::sort(points.begin(), points.end(), [](const scaling_point& a, const scaling_point& b) {
            return a.workers < b.workers || (a.workers == b.workers && a.ranks < b.ranks);
        });
        std::vector<double> ns, ts;
        for (scaling_point& p : points) {
            if (p.samples.empty()) throw std::invalid_argument("[chunkwise.bench] a scaling point without samples");
            double sum = 0;
            p.min = p.samples.front();
            for (double t : p.samples) {
                sum += t;
                p.min = std::min(p.min, t);
                ns.push_back(static_cast<double>(p.workers));
                ts.push_back(t);
            }
            p.mean = sum / static_cast<double>(p.samples.size());
            double var = 0;
            for (double t : p.samples) var += (t - p.mean) * (t - p.mean);
            p.std = p.samples.size() > 1 ? std::sqrt(var / static_cast<double>(p.samples.size() - 1)) : 0.0;
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

    /// One report of every point of `parts`, derived figures recomputed; points of the same ranks
    /// and threads in several parts become one (their samples together). The parts must be runs
    /// of one workload on one input: `names` (one per part, e.g. the folders they came from) name
    /// them in the error otherwise.
    /// \throws std::invalid_argument if the parts differ in workload or input, naming each
    [[nodiscard]] static scaling_report merge(const std::vector<scaling_report>& parts,
                                              const std::vector<std::string>& names = {}) {
        scaling_report r;
        if (parts.empty()) return r;
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
                mix(same->phases.read, s.phases.read);
                mix(same->phases.compute, s.phases.compute);
                mix(same->phases.wait, s.phases.wait);
                mix(same->phases.combine, s.phases.combine);
                mix(same->phases.other, s.phases.other);
                mix(same->phases.lock, s.phases.lock);
                mix(same->lock_held_share, s.lock_held_share);
                if (same->per_rank.size() == s.per_rank.size()) {
                    for (std::size_t k = 0; k < s.per_rank.size(); ++k) {
                        rank_times& x = same->per_rank[k];
                        const rank_times& y = s.per_rank[k];
                        mix(x.busy, y.busy);
                        mix(x.read, y.read);
                        mix(x.compute, y.compute);
                        mix(x.wait, y.wait);
                        mix(x.combine, y.combine);
                        mix(x.lock, y.lock);
                    }
                }
                same->samples.insert(same->samples.end(), s.samples.begin(), s.samples.end());
            }
        }
        r.mode = mpi ? (threads_beyond_one ? "hybrid" : "mpi") : "threads";
        r.finish();
        return r;
    }

    /// A table for the terminal: one line per point (the critical path's phases, which add up to
    /// the mean wall time; the straggler and the imbalance), the baseline, the fits, and the
    /// prediction where there is one.
    [[nodiscard]] std::string table() const {
        std::ostringstream o;
        char line[512];
        auto fig = [](double x, const char* format) {
            if (std::isnan(x)) return std::string("-");
            char b[32];
            std::snprintf(b, sizeof b, format, x);
            return std::string(b);
        };
        std::snprintf(line, sizeof line, "%7s %5s %7s  %9s %8s  %7s %7s %7s %7s %7s  %7s %6s %6s  %s\n", "workers",
                      "ranks", "threads", "wall s", "std s", "read", "compute", "wait", "combine", "other", "speedup",
                      "eff", "K-F", "slowest rank@host (imbalance)");
        o << line;
        for (const scaling_point& p : points) {
            std::snprintf(line, sizeof line, "%7zu %5zu %7zu  %9.4f %8.4f  %7.4f %7.4f %7.4f %7.4f %7.4f  %7s %6s %6s  %d@%s (%.2f)\n",
                          p.workers, p.ranks, p.threads, p.mean, p.std, p.phases.read, p.phases.compute, p.phases.wait,
                          p.phases.combine, p.phases.other, fig(p.speedup, "%.2f").c_str(),
                          fig(p.efficiency, "%.2f").c_str(), fig(p.karp_flatt, "%.3f").c_str(), p.slowest_rank,
                          p.slowest_host.c_str(), p.imbalance);
            o << line;
        }
        if (!points.empty()) {
            o << "lock of the read path held (share of busy time; the Amdahl bound it implies at 16, 64, 1024):";
            for (const scaling_point& p : points) {
                std::snprintf(line, sizeof line, " %zu: %.2f%% (%.1f, %.1f, %.0f)", p.workers, 100 * p.lock_held_share,
                              p.lock_bound(16), p.lock_bound(64), p.lock_bound(1024));
                o << line;
            }
            o << "\n";
            o << "baseline: " << baseline_workers << " worker" << (baseline_workers == 1 ? "" : "s")
              << (baseline_note.empty() ? " (measured)" : " (" + baseline_note + ")") << "\n";
        }
        if (amdahl_fitted) {
            std::snprintf(line, sizeof line,
                          "Amdahl fit: serial fraction %.4f, max speedup %s, t1 %.4f s, error %.1f%%\n"
                          "USL fit: contention %.4f, coherency %.6f, peak at %s workers, error %.1f%%\n",
                          amdahl.serial_fraction,
                          std::isinf(amdahl.max_speedup) ? "unbounded" : fig(amdahl.max_speedup, "%.1f").c_str(),
                          amdahl.t1, 100 * amdahl.error, usl.sigma, usl.kappa,
                          std::isinf(usl.peak_workers()) ? "no" : fig(usl.peak_workers(), "%.0f").c_str(),
                          100 * usl.error);
            o << line;
        } else if (!points.empty()) {
            o << "Amdahl and USL fits: none (" << amdahl_note << ")\n";
        }
        if (prediction.fitted) {
            const prediction_report& q = prediction;
            std::snprintf(line, sizeof line,
                          "model: t(N) = %.4f + %.4f/N + read %.4f/min(N, B/b) + %.2e*%s   (error %.1f%%)\n",
                          q.t_serial, q.work, q.read_one, q.comm, q.growth == "n" ? "N" : "log2(N)",
                          100 * q.model_error);
            o << line;
            o << "predicted:";
            for (const auto& p : q.points) {
                std::snprintf(line, sizeof line, "  %g: %.3f s (S %.1f, E %.2f)", p.workers, p.seconds, p.speedup,
                              p.efficiency);
                o << line;
            }
            std::snprintf(line, sizeof line,
                          "\nknee at %g workers, break-even P* = %g: ask for %g workers\n", q.knee, q.break_even,
                          q.recommended);
            o << line;
        } else if (!prediction.note.empty()) {
            o << "prediction: none (" << prediction.note << ")\n";
        }
        return o.str();
    }

    // JSON and CSV (report_io.hpp):
    /// The report as JSON (schema in docs/scaling.md; NaN and infinity are written as null).
    [[nodiscard]] std::string json() const;
    /// The points as CSV, one row each (columns in docs/scaling.md; NaN written as "nan").
    [[nodiscard]] std::string csv() const;
    /// Every rank of every point as CSV, one row each (scaling_ranks.csv).
    [[nodiscard]] std::string ranks_csv() const;
    /// Writes scaling.json, scaling.csv and scaling_ranks.csv into `dir` (created if needed).
    /// \throws chunkwise::error naming the folder or file that cannot be written
    void write(const std::filesystem::path& dir) const;
    /// A report read back from its JSON (samples included), for merging runs made apart (one
    /// mpiexec per rank count). \throws chunkwise::error if the text is not such a report
    [[nodiscard]] static scaling_report from_json(const std::string& text);
};

}  // namespace chunkwise::bench

#include <chunkwise/bench/report_io.hpp>  // the member functions declared above
