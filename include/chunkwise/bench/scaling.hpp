#pragma once
/// \file
/// The strong-scaling harness (standard library only): Karp-Flatt metric, Amdahl fit, a
/// scaling report (speedup, efficiency, per-phase times per worker count) written as JSON and
/// CSV, and `strong_scaling`, which runs a workload over thread counts. Plots:
/// <chunkwise/bench/plot.hpp>. Schema and how to read the figures: docs/scaling.md.

#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/detail/bench/json.hpp>
#include <chunkwise/error.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/threads.hpp>
#include <chunkwise/version.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace chunkwise::bench {

/// The Karp-Flatt metric, the serial fraction measured at one point: (1/S - 1/N) / (1 - 1/N).
/// Rising with N means overhead grows with the worker count; flat means an Amdahl serial part.
/// \returns NaN for N = 1 (undefined there)
[[nodiscard]] inline double karp_flatt(double speedup, double workers) {
    if (workers == 1.0) return std::numeric_limits<double>::quiet_NaN();
    return (1.0 / speedup - 1.0 / workers) / (1.0 - 1.0 / workers);
}

/// Amdahl's law fitted to measured times: t(N) = t1 * (s + (1 - s) / N).
struct amdahl_fit {
    double serial_fraction = 0;                                    ///< s, in [0, 1]
    double t1 = 0;                                                 ///< the fitted time on one worker, seconds
    double max_speedup = std::numeric_limits<double>::infinity();  ///< 1 / s (infinity for s = 0)

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
    if (workers.size() != seconds.size()) {
        throw std::invalid_argument("[chunkwise.bench] fit_amdahl: " + std::to_string(workers.size()) +
                                    " worker counts but " + std::to_string(seconds.size()) + " times");
    }
    std::set<double> distinct;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        if (!(workers[i] > 0) || !(seconds[i] > 0)) {
            throw std::invalid_argument(
                "[chunkwise.bench] fit_amdahl: worker counts and times must be positive (entry " + std::to_string(i) +
                ")");
        }
        distinct.insert(workers[i]);
    }
    if (distinct.size() < 2) {
        throw std::invalid_argument("[chunkwise.bench] fit_amdahl: needs at least two distinct worker counts, got " +
                                    std::to_string(distinct.size()));
    }
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
    return fit;
}

/// Seconds per worker in each phase of a run: summed over all workers (of all ranks) and
/// divided by the number of workers.
struct phase_times {
    double read = 0;     ///< inside h5 reads and read_scope
    double compute = 0;  ///< busy minus read
    double wait = 0;     ///< idle until the last worker of the whole run finished
    double combine = 0;  ///< gather, reduce

    /// The phases of the statistics of every rank (or of one process).
    [[nodiscard]] static phase_times of(const std::vector<run_stats>& ranks) {
        phase_times p;
        std::size_t workers = 0;
        for (const run_stats& r : ranks) {
            for (const worker_stats& w : r.workers) {
                p.read += w.read;
                p.compute += w.compute();
                p.wait += w.wait;
                p.combine += w.combine;
                ++workers;
            }
        }
        if (workers > 0) {
            const double n = static_cast<double>(workers);
            p.read /= n;
            p.compute /= n;
            p.wait /= n;
            p.combine /= n;
        }
        return p;
    }
};

/// Where a report was measured.
struct machine_info {
    std::string host;       ///< host name
    std::string cpu;        ///< CPU model
    std::size_t cores = 0;  ///< hardware threads of this machine

    /// This machine (Linux: /proc; elsewhere "unknown").
    [[nodiscard]] static machine_info here() {
        machine_info m;
        m.cores = std::thread::hardware_concurrency();
        std::ifstream host("/proc/sys/kernel/hostname");
        if (!(host && std::getline(host, m.host))) m.host = "unknown";
        std::ifstream cpu("/proc/cpuinfo");
        for (std::string line; std::getline(cpu, line);) {
            if (line.rfind("model name", 0) == 0) {
                const auto colon = line.find(':');
                if (colon != std::string::npos) m.cpu = line.substr(line.find_first_not_of(' ', colon + 1));
                break;
            }
        }
        if (m.cpu.empty()) m.cpu = "unknown";
        return m;
    }
};

/// One worker count of a scaling run.
struct scaling_point {
    std::size_t workers = 0;      ///< total workers: ranks x threads
    std::size_t ranks = 1;        ///< MPI ranks (1 for threads in one process)
    std::size_t threads = 1;      ///< threads per rank
    std::vector<double> samples;  ///< seconds of each repeat
    phase_times phases;           ///< mean over repeats, per worker
    // Filled by scaling_report::finish():
    double mean = 0;  ///< of samples, seconds
    double std = 0;   ///< standard deviation of samples, seconds
    double min = 0;   ///< fastest sample, seconds
    double speedup = 0;                 ///< relative to the point with the fewest workers (see finish)
    double efficiency = 0;              ///< speedup / workers
    double karp_flatt = std::numeric_limits<double>::quiet_NaN();  ///< NaN at 1 worker
};

/// A strong-scaling run: points over worker counts, derived figures and the Amdahl fit, written
/// as scaling.json and scaling.csv (schema in docs/scaling.md).
class scaling_report {
public:
    std::string workload;          ///< what ran
    std::string input;             ///< what it read: "FILE:DATASET" (absolute path), or "" for none
    std::string mode = "threads";  ///< "threads", "mpi" or "hybrid"
    machine_info machine = machine_info::here();                ///< where it ran
    std::string chunkwise_version = CHUNKWISE_VERSION_STRING;  ///< the chunkwise that measured
    std::vector<scaling_point> points;  ///< ascending worker count after finish()
    amdahl_fit amdahl;                  ///< fitted to every sample of every point
    bool amdahl_fitted = false;         ///< false with fewer than two worker counts

    /// Sorts the points and computes mean, std, min, speedup S(N) = N0 t(N0) / t(N) relative to
    /// the point with the fewest workers N0 (t1 / tN when N0 = 1), efficiency S / N, Karp-Flatt,
    /// and the Amdahl fit over every sample.
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
        }
        if (points.empty()) return;
        const double base = static_cast<double>(points.front().workers) * points.front().mean;
        for (scaling_point& p : points) {
            p.speedup = base / p.mean;
            p.efficiency = p.speedup / static_cast<double>(p.workers);
            p.karp_flatt = karp_flatt(p.speedup, static_cast<double>(p.workers));
        }
        amdahl_fitted = false;
        try {
            amdahl = fit_amdahl(ns, ts);
            amdahl_fitted = true;
        } catch (const std::invalid_argument&) {
            amdahl = {};
        }
    }

    /// The report as JSON (schema in docs/scaling.md; NaN and infinity are written as null).
    [[nodiscard]] std::string json() const {
        using chunkwise::detail::json_number;
        using chunkwise::detail::json_quote;
        std::ostringstream o;
        o << "{\n  \"workload\": " << json_quote(workload) << ",\n  \"input\": " << json_quote(input)
          << ",\n  \"mode\": " << json_quote(mode)
          << ",\n  \"machine\": {\"host\": " << json_quote(machine.host) << ", \"cpu\": " << json_quote(machine.cpu)
          << ", \"cores\": " << machine.cores << "},\n  \"chunkwise_version\": " << json_quote(chunkwise_version)
          << ",\n  \"points\": [";
        for (std::size_t i = 0; i < points.size(); ++i) {
            const scaling_point& p = points[i];
            o << (i ? ",\n" : "\n") << "    {\"workers\": " << p.workers << ", \"ranks\": " << p.ranks
              << ", \"threads\": " << p.threads << ", \"repeats\": " << p.samples.size()
              << ",\n     \"seconds\": {\"mean\": " << json_number(p.mean) << ", \"std\": " << json_number(p.std)
              << ", \"min\": " << json_number(p.min) << "},\n     \"samples\": [";
            for (std::size_t k = 0; k < p.samples.size(); ++k) o << (k ? ", " : "") << json_number(p.samples[k]);
            o << "],\n     \"phases\": {\"read\": " << json_number(p.phases.read)
              << ", \"compute\": " << json_number(p.phases.compute) << ", \"wait\": " << json_number(p.phases.wait)
              << ", \"combine\": " << json_number(p.phases.combine)
              << "},\n     \"speedup\": " << json_number(p.speedup) << ", \"efficiency\": " << json_number(p.efficiency)
              << ", \"karp_flatt\": " << json_number(p.karp_flatt) << "}";
        }
        o << "\n  ],\n  \"amdahl\": {\"serial_fraction\": "
          << (amdahl_fitted ? json_number(amdahl.serial_fraction) : "null")
          << ", \"max_speedup\": " << (amdahl_fitted ? json_number(amdahl.max_speedup) : "null")
          << ", \"t1\": " << (amdahl_fitted ? json_number(amdahl.t1) : "null") << "}\n}\n";
        return o.str();
    }

    /// The points as CSV, one row each (columns in docs/scaling.md; NaN written as "nan").
    [[nodiscard]] std::string csv() const {
        std::ostringstream o;
        o << "workers,ranks,threads,repeats,mean_s,std_s,min_s,read_s,compute_s,wait_s,combine_s,speedup,efficiency,"
             "karp_flatt\n";
        auto num = [](double x) {
            if (std::isnan(x)) return std::string("nan");
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.9g", x);
            return std::string(buf);
        };
        for (const scaling_point& p : points) {
            o << p.workers << ',' << p.ranks << ',' << p.threads << ',' << p.samples.size() << ',' << num(p.mean) << ','
              << num(p.std) << ',' << num(p.min) << ',' << num(p.phases.read) << ',' << num(p.phases.compute) << ','
              << num(p.phases.wait) << ',' << num(p.phases.combine) << ',' << num(p.speedup) << ',' << num(p.efficiency)
              << ',' << num(p.karp_flatt) << '\n';
        }
        return o.str();
    }

    /// A table for the terminal: one line per point, then the Amdahl fit.
    [[nodiscard]] std::string table() const {
        std::ostringstream o;
        char line[256];
        std::snprintf(line, sizeof line, "%7s %5s %7s  %9s %8s  %7s %7s %7s %7s  %7s %6s %6s\n", "workers", "ranks",
                      "threads", "mean s", "std s", "read", "compute", "wait", "combine", "speedup", "eff", "K-F");
        o << line;
        for (const scaling_point& p : points) {
            std::snprintf(line, sizeof line, "%7zu %5zu %7zu  %9.4f %8.4f  %7.4f %7.4f %7.4f %7.4f  %7.2f %6.2f %6s\n",
                          p.workers, p.ranks, p.threads, p.mean, p.std, p.phases.read, p.phases.compute, p.phases.wait,
                          p.phases.combine, p.speedup, p.efficiency,
                          std::isnan(p.karp_flatt) ? "-" : std::to_string(p.karp_flatt).substr(0, 6).c_str());
            o << line;
        }
        if (amdahl_fitted) {
            std::snprintf(line, sizeof line, "Amdahl fit: serial fraction %.4f, max speedup %s, t1 %.4f s\n",
                          amdahl.serial_fraction,
                          std::isinf(amdahl.max_speedup) ? "unbounded" : std::to_string(amdahl.max_speedup).c_str(),
                          amdahl.t1);
            o << line;
        } else {
            o << "Amdahl fit: needs two worker counts or more\n";
        }
        return o.str();
    }

    /// Writes scaling.json and scaling.csv into `dir` (created if needed).
    /// \throws chunkwise::error naming the folder or file that cannot be written
    void write(const std::filesystem::path& dir) const {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec || !std::filesystem::is_directory(dir)) {
            throw error("[chunkwise.bench] cannot create the output folder " + dir.string() +
                        (ec ? ": " + ec.message() : std::string()));
        }
        for (const auto& [name, text] : {std::pair{"scaling.json", json()}, std::pair{"scaling.csv", csv()}}) {
            const auto path = dir / name;
            std::ofstream out(path, std::ios::trunc);
            if (!(out << text) || !out.flush()) throw error("[chunkwise.bench] cannot write " + path.string());
        }
    }

    /// A report read back from its JSON (samples included), for merging runs made apart (one
    /// mpiexec per rank count). \throws chunkwise::error if the text is not such a report
    [[nodiscard]] static scaling_report from_json(const std::string& text) {
        const chunkwise::detail::json_value v = chunkwise::detail::json_parser(text).parse();
        const auto* points = v["points"].as_array();
        if (v.as_object() == nullptr || points == nullptr) {
            throw error("[chunkwise.bench] not a scaling report: no \"points\"");
        }
        scaling_report r;
        r.workload = v["workload"].string();
        r.input = v["input"].string();
        r.mode = v["mode"].string();
        r.machine.host = v["machine"]["host"].string();
        r.machine.cpu = v["machine"]["cpu"].string();
        r.machine.cores = static_cast<std::size_t>(std::max(0.0, v["machine"]["cores"].number()));
        r.chunkwise_version = v["chunkwise_version"].string();
        for (const chunkwise::detail::json_value& p : *points) {
            scaling_point s;
            s.workers = static_cast<std::size_t>(p["workers"].number());
            s.ranks = static_cast<std::size_t>(p["ranks"].number());
            s.threads = static_cast<std::size_t>(p["threads"].number());
            if (const auto* samples = p["samples"].as_array()) {
                for (const auto& t : *samples) s.samples.push_back(t.number());
            } else {
                s.samples.push_back(p["seconds"]["mean"].number());
            }
            s.phases = {p["phases"]["read"].number(), p["phases"]["compute"].number(), p["phases"]["wait"].number(),
                        p["phases"]["combine"].number()};
            r.points.push_back(std::move(s));
        }
        r.finish();
        return r;
    }

    /// One report of every point of `parts`, derived figures recomputed. The parts must be runs
    /// of one workload on one input: `names` (one per part, e.g. the folders they came from)
    /// name them in the error otherwise.
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
        bool mpi = false, threads_beyond_one = false;
        for (const scaling_report& p : parts) {
            for (const scaling_point& s : p.points) {
                r.points.push_back(s);
                mpi = mpi || s.ranks > 1 || p.mode != "threads";
                threads_beyond_one = threads_beyond_one || s.threads > 1;
            }
        }
        r.mode = mpi ? (threads_beyond_one ? "hybrid" : "mpi") : "threads";
        r.finish();
        return r;
    }
};

/// How strong_scaling runs a workload.
struct scaling_options {
    std::string workload = "workload";       ///< a name for the report
    std::vector<std::size_t> workers{1, 2};  ///< thread counts to run at
    std::size_t repeats = 3;                 ///< timed runs per thread count
    std::size_t warmup = 1;                  ///< untimed runs first, per thread count
};

/// Runs `workload(pool)` on a thread_policy of each count in opt.workers (warm-up runs first,
/// then opt.repeats timed ones) and returns the finished report. If the workload returns the
/// run_stats of its map_blocks (partial.stats() after gather/reduce), the report also holds the
/// per-phase times; a workload returning anything else is timed only.
/// \throws std::invalid_argument for an empty worker list, a count of 0, or 0 repeats
template <class Workload>
[[nodiscard]] scaling_report strong_scaling(const scaling_options& opt, Workload&& workload) {
    if (opt.workers.empty()) throw std::invalid_argument("[chunkwise.bench] strong_scaling: no worker counts");
    for (std::size_t n : opt.workers) {
        if (n == 0) throw std::invalid_argument("[chunkwise.bench] strong_scaling: a worker count of 0");
    }
    if (opt.repeats == 0) throw std::invalid_argument("[chunkwise.bench] strong_scaling: repeats must be at least 1");
    scaling_report report;
    report.workload = opt.workload;
    report.mode = "threads";
    for (std::size_t n : opt.workers) {
        thread_policy pool(n);
        scaling_point point;
        point.workers = point.threads = n;
        for (std::size_t k = 0; k < opt.warmup; ++k) (void)std::invoke(workload, pool);
        phase_times sum;
        for (std::size_t k = 0; k < opt.repeats; ++k) {
            const auto t0 = chunkwise::detail::clock::now();
            if constexpr (std::is_convertible_v<std::invoke_result_t<Workload&, thread_policy&>, const run_stats&>) {
                const run_stats stats = std::invoke(workload, pool);
                point.samples.push_back(chunkwise::detail::seconds_since(t0));
                const phase_times p = phase_times::of({stats});
                sum.read += p.read;
                sum.compute += p.compute;
                sum.wait += p.wait;
                sum.combine += p.combine;
            } else {
                (void)std::invoke(workload, pool);
                point.samples.push_back(chunkwise::detail::seconds_since(t0));
            }
        }
        const double r = static_cast<double>(opt.repeats);
        point.phases = {sum.read / r, sum.compute / r, sum.wait / r, sum.combine / r};
        report.points.push_back(std::move(point));
    }
    report.finish();
    return report;
}

}  // namespace chunkwise::bench
