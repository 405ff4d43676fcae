#pragma once
/// \file
/// A strong-scaling report (standard library only): its points, each with the critical path of
/// the run broken into phases that add up to the wall time, a breakdown per rank with the
/// straggler named, and the derived figures (speedup, efficiency, Karp-Flatt, the Amdahl and USL
/// fits) computed only against a measured baseline (detail/bench/figures.hpp). Written as JSON and
/// CSV (detail/bench/report_io.hpp); the prediction of <chunkwise/bench/model.hpp> rides along.
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
/// A point whose workers were kept from a CPU for more than 1 - this share of their busy time
/// (scaling_point::cpu_share), beyond what their own number asks of the cores, is contended: it
/// measures the machine, not the workload.
inline constexpr double contended_cpu_share = 0.8;
/// A point during which the hypervisor stole more than this share of the machine's CPU time is
/// contended too.
inline constexpr double contended_steal = 0.2;

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
    /// Calls f(mine, theirs) for each time of this and `o`, field by field (to combine them).
    template <class F>
    void each(const phase_times& o, F&& f) {
        f(read, o.read);
        f(compute, o.compute);
        f(wait, o.wait);
        f(combine, o.combine);
        f(other, o.other);
        f(lock, o.lock);
    }
};

/// One rank of a point: seconds per worker of that rank (mean over its threads and the repeats).
struct rank_times {
    int rank = 0;             ///< MPI rank (0 for threads in one process)
    std::string host;         ///< where it ran
    std::size_t threads = 1;  ///< its workers
    double busy = 0;          ///< seconds per worker inside block functions
    double read = 0;          ///< of busy, reading
    double compute = 0;       ///< of busy, not reading
    double wait = 0;          ///< idle until the run ended
    double combine = 0;       ///< combining on the calling thread
    double lock = 0;          ///< of read, at a lock of the read path
    double read_bytes = 0;    ///< bytes all its workers read from storage per run
    /// Calls f(mine, theirs) for each figure of this and `o`, field by field (to combine them).
    template <class F>
    void each(const rank_times& o, F&& f) {
        f(read_bytes, o.read_bytes);
        f(busy, o.busy);
        f(read, o.read);
        f(compute, o.compute);
        f(wait, o.wait);
        f(combine, o.combine);
        f(lock, o.lock);
    }
};

/// One host of a point: its ranks together.
struct host_times {
    std::string host;         ///< the host name
    std::size_t ranks = 0;    ///< ranks that ran there
    std::size_t threads = 0;  ///< their workers together
    double busy = 0;          ///< seconds per worker inside block functions (mean over its ranks' workers)
    double read = 0;          ///< of busy, reading (seconds per worker)
    double read_bytes = 0;    ///< bytes its workers read from storage per run
    int slowest_rank = 0;     ///< its rank with the most busy time per worker
};

/// One worker count of a scaling run.
struct scaling_point {
    std::size_t workers = 0;           ///< total workers: ranks x threads
    std::size_t ranks = 1;             ///< MPI ranks (1 for threads in one process)
    std::size_t threads = 1;           ///< threads per rank
    std::size_t hosts = 1;             ///< distinct hosts the ranks ran on
    std::vector<double> samples;       ///< wall seconds of each repeat (the slowest rank's)
    phase_times phases;                ///< the critical path, mean over repeats; adds up to `mean`
    std::vector<rank_times> per_rank;  ///< every rank, in rank order
    std::vector<host_times> per_host;  ///< every host, in the order of its first rank (from per_rank)
    int slowest_rank = 0;              ///< the rank with the most busy time per worker (the straggler)
    std::string slowest_host;          ///< its host
    double imbalance = 1;              ///< max / mean busy time per worker over the ranks (1: balanced)
    /// Of the busy time of every worker of every rank, the share spent holding a lock of the read
    /// path (mean over repeats): serial, whatever the worker count.
    double lock_held_share = 0;
    /// Of their busy time, the share the workers were not kept waiting for a CPU:
    /// worker_stats::cpu_share, the mean over the workers of every rank and the repeats.
    double cpu_share = not_measured;
    /// Of their busy time, the share the workers ran on a CPU (cpu / busy, the same mean): about 1
    /// for work that computes, near 0 for work that sleeps or waits on storage.
    double cpu_use = not_measured;
    double load = not_measured;   ///< the machine's 1-minute load average before the point (the root's host)
    double steal = not_measured;  ///< the share of the root host's CPU time the hypervisor stole during the point
    /// Other work took the cores (judged_contended: cpu_share below contended_cpu_share of what the
    /// workers would get alone, or steal above contended_steal): the point measures the machine,
    /// not the workload, and no fit or prediction uses it (set by finish()).
    bool contended = false;
    // Filled by scaling_report::finish():
    double mean = 0;                   ///< of samples, seconds
    double std = 0;                    ///< standard deviation of samples, seconds
    double min = 0;                    ///< fastest sample, seconds
    double speedup = not_measured;     ///< t(N0) / t(N), relative to the baseline N0 (null without one)
    double efficiency = not_measured;  ///< speedup / (N / N0)
    double karp_flatt = not_measured;  ///< needs a measured t(1); null at N = 1 and without one
    /// The 95% confidence interval of the mean wall time, seconds (Student's t over the samples;
    /// null with one sample): its lower end.
    double interval_low = not_measured;
    double interval_high = not_measured;  ///< its upper end, seconds
    /// Why the repeats stopped: "precision" (the interval within the precision asked for),
    /// "budget" (the time budget ran out), "max repeats", or "fixed" (a fixed count was asked for).
    std::string stop = "fixed";
    /// D / the critical path's read time: the read bandwidth the run itself reached at this count,
    /// bytes/s (null without bytes or a read phase).
    double read_bandwidth = not_measured;
    /// Core-hours of one run at this point on whole nodes: ceil(N / C) C t / 3600 (filled by predict
    /// with cores per node C; null otherwise).
    double core_hours = not_measured;

    /// The interval's half-width over the mean (0.03: known within ±3%); infinity with one sample.
    [[nodiscard]] double relative_precision() const noexcept {
        return std::isnan(interval_high) || !(mean > 0) ? std::numeric_limits<double>::infinity()
                                                        : (interval_high - interval_low) / 2 / mean;
    }

    /// The share of a core each worker would get with nothing else running on hosts of `cores`
    /// cores: 1, or cores / workers per host where this point has more (0 cores: unknown, 1).
    [[nodiscard]] double own_share(std::size_t cores) const noexcept {
        const std::size_t h = std::max<std::size_t>(hosts, 1);
        const double each_host = static_cast<double>((workers + h - 1) / h);
        return cores > 0 ? std::min(1.0, static_cast<double>(cores) / each_host) : 1.0;
    }
    /// Whether the point is contended by the rule of `contended` on hosts of `cores` cores: its
    /// workers got less than contended_cpu_share of what they would get alone (own_share: a point
    /// with more workers than cores is oversubscribed by itself, not contended), or steal above
    /// contended_steal.
    [[nodiscard]] bool judged_contended(std::size_t cores) const noexcept {
        return cpu_share < contended_cpu_share * own_share(cores) || steal > contended_steal;
    }

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
        const auto running = [n](double& so_far, double x) { so_far = (so_far * n + x) / (n + 1); };  // over repeats
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
                mine.read_bytes += w.read_bytes;
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
            acc.each(mine, running);
        }
        double held = 0, busy = 0;
        for (const run_stats& st : ranks_stats) {
            for (const worker_stats& w : st.workers) {
                held += w.lock_held;
                busy += w.busy;
            }
        }
        running(lock_held_share, busy > 0 ? std::min(1.0, held / busy) : 0.0);
        if (const run_summary sum = summarize(ranks_stats); !std::isnan(sum.cpu_share)) {
            if (std::isnan(cpu_share)) {
                cpu_share = sum.cpu_share;
                cpu_use = sum.cpu_use;
            } else {
                running(cpu_share, sum.cpu_share);
                running(cpu_use, sum.cpu_use);
            }
        }
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
        phases.each(p, running);
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

    /// The straggler, the imbalance, the number of hosts and the per-host summary, from per_rank.
    void summarize_ranks() {
        if (per_rank.empty()) return;
        double sum = 0, most = -1;
        std::set<std::string> distinct;
        per_host.clear();
        std::vector<double> host_most;
        for (const rank_times& r : per_rank) {
            sum += r.busy;
            distinct.insert(r.host);
            if (r.busy > most) {
                most = r.busy;
                slowest_rank = r.rank;
                slowest_host = r.host;
            }
            auto h =
                std::find_if(per_host.begin(), per_host.end(), [&](const host_times& x) { return x.host == r.host; });
            if (h == per_host.end()) {
                per_host.push_back(host_times{r.host, 0, 0, 0, 0, 0, r.rank});
                host_most.push_back(-1);
                h = per_host.end() - 1;
            }
            const double before = static_cast<double>(h->threads), mine = static_cast<double>(r.threads);
            const double all = std::max(before + mine, 1.0);
            h->busy = (h->busy * before + r.busy * mine) / all;
            h->read = (h->read * before + r.read * mine) / all;
            h->read_bytes += r.read_bytes;
            h->ranks += 1;
            h->threads += r.threads;
            double& top = host_most[static_cast<std::size_t>(h - per_host.begin())];
            if (r.busy > top) {
                top = r.busy;
                h->slowest_rank = r.rank;
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
        double workers = 0;                ///< N
        double seconds = 0;                ///< the model's t(N)
        double speedup = 0;                ///< the measured t(1) / t(N)
        double efficiency = 0;             ///< speedup / N
        double core_hours = not_measured;  ///< on whole nodes of C cores (NaN without C)
    };
    bool fitted = false;        ///< false: not enough points (see note)
    std::string note;           ///< why there is no prediction, or what it assumes
    std::vector<point> points;  ///< predicted at 8, 16, ..., 1024 workers
    double knee = 0;            ///< the worker count past which doubling gains less than 10%
    double break_even = 0;      ///< P*: past it, more core-hours are spent than the run saves (E < 0.5)
    double recommended = 0;     ///< the workers to ask for: min(knee, P*) of the chosen fit (NaN: not confident)
    std::string chosen;         ///< the fit the figures come from: "model", "amdahl" or "usl"
    /// RMS relative error of the chosen fit's predictions of points it was not fitted to: each
    /// worker count predicted by the fit to the other counts (NaN: too few points).
    double held_out_error = not_measured;
    double model_held_out = not_measured;    ///< the same for the per-phase model
    double amdahl_held_out = not_measured;   ///< for Amdahl's law
    double usl_held_out = not_measured;      ///< for the USL
    bool confident = false;                  ///< whether the points support one recommended count
    std::string reason;                      ///< why not confident ("" when confident)
    double range_low = 0;                    ///< the fewest workers the fits that hold recommend
    double range_high = 0;                   ///< the most workers the fits that hold recommend
    double next_measurement = not_measured;  ///< the worker count to measure next to decide (NaN: none)
    /// What would decide where this machine cannot: "measure 8 workers on a machine with at least 8
    /// cores" ("" where next_measurement says it, or nothing would).
    std::string next_note;
    /// The cores per host the model's compute term is capped at, W / min(N, C) (0: a core per worker).
    std::size_t cores_per_host = 0;
    std::size_t cores_per_node = 0;           ///< C given to predict (0: none)
    double recommended_nodes = not_measured;  ///< ceil(recommended / C) (NaN without C or confidence)
    std::string bandwidth_note;  ///< how the read bandwidth was taken (from the run; the probe checked against it)
    // The fitted model t(N) = t_serial + W / N + D / min(N b, B) + c g(N), and the laws beside it.
    double t_serial = 0;          ///< seconds no worker count shortens
    double work = 0;              ///< W: seconds of parallel compute on one worker
    double bytes = 0;             ///< D: bytes read per run (0: unknown)
    double worker_bandwidth = 0;  ///< b: bytes/s one worker reads at (0 where D is unknown)
    double shared_bandwidth = 0;  ///< B: bytes/s all readers share (the probe's; 0: none)
    double comm = 0;              ///< c: seconds per unit of g(N)
    double read_one = 0;          ///< D / b: the read time on one worker, seconds
    double read_cap = 0;          ///< D / B: the least the read takes whatever the workers, seconds (0: none)
    std::string growth;           ///< g(N): "n" or "log2(n)"
    double model_error = 0;       ///< the largest relative error of the model's times over the points it was fitted to
    amdahl_fit amdahl;            ///< Amdahl's law fitted to the same points
    usl_fit usl;                  ///< the Universal Scalability Law fitted to the same points
};

/// What a report measured, so that only runs of the same work are merged: the program, the
/// workload, the arguments that change the work, and the input.
struct fingerprint {
    std::string program;       ///< e.g. "chunkwise-bench rmsd", or the user's program
    std::string workload;      ///< the workload's name
    std::string args;          ///< the arguments that change the work (not the worker counts or repeats)
    std::string input_path;    ///< the input's absolute path ("" for none)
    double input_bytes = 0;    ///< its size in bytes
    std::string input_layout;  ///< how it is stored (e.g. "chunked (1, 4623, 3), gzip 1")
    /// The fields that differ from `o`, each as "field: 'mine' vs 'theirs'" ("" when the same).
    [[nodiscard]] std::string differences(const fingerprint& o) const {
        std::string d;
        auto cmp = [&](const char* name, const std::string& a, const std::string& b) {
            if (a != b) d += (d.empty() ? "" : "; ") + std::string(name) + ": '" + a + "' vs '" + b + "'";
        };
        cmp("program", program, o.program);
        cmp("workload", workload, o.workload);
        cmp("args", args, o.args);
        cmp("input.path", input_path, o.input_path);
        char a[32], b[32];
        std::snprintf(a, sizeof a, "%.0f", input_bytes);
        std::snprintf(b, sizeof b, "%.0f", o.input_bytes);
        cmp("input.bytes", a, b);
        cmp("input.layout", input_layout, o.input_layout);
        return d;
    }
};

/// A strong-scaling run: points over worker counts, the derived figures and fits, written as
/// scaling.json, scaling.csv and scaling_ranks.csv (schema in docs/scaling.md).
class scaling_report {
public:
    std::string workload;            ///< what ran
    std::string input;               ///< what it read: "FILE:DATASET" (absolute path), or "" for none
    std::string mode = "threads";    ///< "threads", "mpi" or "hybrid"
    struct fingerprint fingerprint;  ///< what was measured; merge refuses reports that differ
    /// Hosts the run was given (scale-mpi.sh: the hostfile, --host or the SLURM nodes; 0: unknown).
    std::size_t hosts_given = 0;
    machine_info machine = machine_info::here();               ///< where it ran (the root's host)
    std::string chunkwise_version = CHUNKWISE_VERSION_STRING;  ///< the chunkwise that measured
    std::vector<scaling_point> points;                         ///< ascending worker count after finish()
    std::size_t baseline_workers = 0;  ///< N0: the fewest workers measured; speedups are relative to it
    std::string baseline_note;         ///< why figures that need t(1) are null ("" when N0 = 1)
    amdahl_fit amdahl;                 ///< fitted to every sample of every point
    bool amdahl_fitted = false;        ///< false with fewer than two worker counts or N0 > 1
    usl_fit usl;                       ///< the Universal Scalability Law, fitted likewise
    std::string amdahl_note;           ///< why there is no Amdahl or USL fit ("" when fitted)
    double bytes_read = 0;             ///< D: bytes the workload reads from its input per run (0: none)
    double shared_bandwidth = 0;       ///< B: bytes/s the input's file system gave a short read probe (0: none)
    std::string probe;                 ///< how B was measured
    prediction_report prediction;      ///< the per-phase model and what it predicts (model.hpp)

    /// Sorts the points and computes mean, std, min; the baseline N0 (the fewest workers); speedup
    /// S(N) = t(N0) / t(N) and efficiency S(N) / (N / N0) against it; Karp-Flatt, Amdahl and USL
    /// only when N0 = 1 (they need t(1)); null otherwise, with the reason in baseline_note.
    void finish();

    /// One report of every point of `parts`, derived figures recomputed; points of the same ranks
    /// and threads in several parts become one (their samples together). The parts must be runs
    /// of one workload on one input: `names` (one per part, e.g. the folders they came from) name
    /// them in the error otherwise.
    /// \throws std::invalid_argument if the parts differ in workload or input, naming each
    [[nodiscard]] static scaling_report merge(const std::vector<scaling_report>& parts,
                                              const std::vector<std::string>& names = {});

    /// A table for the terminal: one line per point (the critical path's phases, which add up to
    /// the mean wall time; the straggler and the imbalance), the baseline, the fits, and the
    /// prediction where there is one.
    [[nodiscard]] std::string table() const;

    // JSON and CSV (detail/bench/report_io.hpp):
    /// The report as JSON (schema in docs/scaling.md; NaN and infinity are written as null).
    [[nodiscard]] std::string json() const;
    /// The points as CSV, one row each (columns in docs/scaling.md; NaN written as "nan").
    [[nodiscard]] std::string csv() const;
    /// Every rank of every point as CSV, one row each (scaling_ranks.csv).
    [[nodiscard]] std::string ranks_csv() const;
    /// Every host of every point as CSV, one row each (scaling_hosts.csv).
    [[nodiscard]] std::string hosts_csv() const;
    /// Writes scaling.json, scaling.csv, scaling_ranks.csv and scaling_hosts.csv into `dir`
    /// (created if needed).
    /// \throws chunkwise::error naming the folder or file that cannot be written
    void write(const std::filesystem::path& dir) const;
    /// A report read back from its JSON (samples included), for merging runs made apart (one
    /// mpiexec per rank count). \throws chunkwise::error if the text is not such a report
    [[nodiscard]] static scaling_report from_json(const std::string& text);
};

}  // namespace chunkwise::bench

// The member functions declared above: derived figures, and the report as files.
#include <chunkwise/detail/bench/figures.hpp>
#include <chunkwise/detail/bench/report_io.hpp>
