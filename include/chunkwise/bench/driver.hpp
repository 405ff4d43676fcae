#pragma once
/// \file
/// `strong_scaling`: runs a workload at each worker count and returns its report with its
/// prediction (standard library only). The policy at each count comes from a factory: thread pools in this process (the
/// default), or, under MPI, the ranks of the launch with a thread pool each (hybrid_policy) —
/// one launch measures every thread count per rank; benchmarks/scale-mpi.sh makes one launch per
/// rank count and merges them. Per-rank times travel through gather_stats, so this layer never
/// includes MPI. docs/scaling.md shows a workload of one's own measured across ranks.

#include <chunkwise/bench/machine.hpp>
#include <chunkwise/bench/model.hpp>
#include <chunkwise/bench/report.hpp>
#include <chunkwise/clock.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/threads.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::bench {

/// How strong_scaling runs a workload.
struct scaling_options {
    std::string workload = "workload";       ///< a name for the report
    std::vector<std::size_t> workers{1, 2};  ///< the counts passed to the policy factory (threads; per rank under MPI)
    std::size_t repeats = 3;                 ///< timed runs per count (the least, with `precision`)
    std::size_t warmup = 1;                  ///< untimed runs first, per count
    /// > 0: repeat each count until the 95% confidence interval of its mean is within ±precision
    /// of it (0.03: ±3%, as chunkwise-bench), the count's `budget_s` runs out, or `max_repeats`
    /// were made; the point says which (scaling_point::stop). 0: exactly `repeats`.
    double precision = 0.03;
    double budget_s = 60;          ///< seconds per count for the repeats past `repeats` (0: no limit)
    std::size_t max_repeats = 50;  ///< timed runs per count at most, with `precision`
    /// Cores per host the advice may count on (0: those of this machine, machine_info::cores): no
    /// point above it is trusted, and no measurement above it is asked for.
    std::size_t cores = 0;
    std::size_t cores_per_node = 0;  ///< C > 0: the advice in whole nodes of C cores, with core-hours (predict)
};

/// The half-width of the 95% confidence interval of the mean of `samples`, over the mean
/// (infinity with fewer than two samples).
[[nodiscard]] inline double relative_precision(const std::vector<double>& samples) {
    const sample_summary s = summarize_samples(samples);
    return samples.size() > 1 && s.mean > 0 ? s.half / s.mean : std::numeric_limits<double>::infinity();
}

/// Runs `workload(policy)` on `make_policy(n)` for each n in opt.workers (warm-up runs first,
/// then opt.repeats timed ones) and returns the finished report. A distributed policy's ranks all
/// run each repeat, starting together (synchronize); each rank times itself and the root records
/// every rank's statistics and time (gather_stats): the critical path, the per-rank breakdown,
/// the straggler; the report is complete on the root (empty elsewhere). If the workload returns
/// the run_stats of its map_blocks (partial.stats() after gather/reduce), each point holds the
/// critical path's phases (they add up to the wall time: what the workload did outside
/// map_blocks and the combine is `other`); a workload returning anything else is timed only (all
/// of its time is `other`). Measure at 1 worker for speedups against a measured baseline. Each
/// point records the share of a core its workers got, the load before it and the CPU time stolen
/// during it; contended points are left out of the fits. The report comes with its prediction
/// (predict, with opt.cores per host): the advice, or why there is none.
/// Collective under MPI (every rank calls it with the same options).
/// \throws std::invalid_argument for an empty count list, a count of 0, or 0 repeats
template <class MakePolicy, class Workload>
[[nodiscard]] scaling_report strong_scaling(const scaling_options& opt, MakePolicy&& make_policy, Workload&& workload) {
    if (opt.workers.empty()) throw std::invalid_argument("[chunkwise.bench] strong_scaling: no worker counts");
    for (std::size_t n : opt.workers) {
        if (n == 0) throw std::invalid_argument("[chunkwise.bench] strong_scaling: a worker count of 0");
    }
    if (opt.repeats == 0) throw std::invalid_argument("[chunkwise.bench] strong_scaling: repeats must be at least 1");
    if (!(opt.precision >= 0) || !(opt.budget_s >= 0)) {
        throw std::invalid_argument("[chunkwise.bench] strong_scaling: precision and budget_s must be >= 0");
    }
    using policy_t = std::remove_cvref_t<std::invoke_result_t<MakePolicy&, std::size_t>>;
    static_assert(execution_policy<policy_t>,
                  "chunkwise::bench::strong_scaling: make_policy(n) must return an execution policy");
    scaling_report report;
    report.workload = opt.workload;
    bool root = true, threads_beyond_one = false;
    for (std::size_t n : opt.workers) {
        policy_t policy = std::invoke(make_policy, n);
        root = policy.is_root();
        scaling_point point;
        point.workers = policy.workers();
        if constexpr (distributed_policy<policy_t>) point.ranks = static_cast<std::size_t>(policy.size());
        point.threads = point.workers / std::max<std::size_t>(point.ranks, 1);
        threads_beyond_one = threads_beyond_one || point.threads > 1;
        const auto point_start = clock::now();
        point.load = machine_info::load_average();
        const cpu_counters cpu_before = cpu_counters::now();
        for (std::size_t k = 0;; ++k) {
            synchronize(policy);
            const auto t0 = clock::now();
            run_stats mine;
            if constexpr (std::is_convertible_v<std::invoke_result_t<Workload&, policy_t&>, const run_stats&>) {
                mine = std::invoke(workload, policy);
            } else {
                (void)std::invoke(workload, policy);
            }
            const bool timed_only = mine.workers.empty();
            mine.wall = seconds_since(t0);  // this rank's whole repeat
            mine.rank = policy.rank();
            if (mine.host.empty()) mine.host = report.machine.host;
            const std::vector<run_stats> all = gather_stats(policy, mine);
            if (k >= opt.warmup && root) {
                std::vector<double> times;
                for (const run_stats& r : all) times.push_back(r.wall);
                if (timed_only) {
                    point.add_timed_repeat(*std::max_element(times.begin(), times.end()));
                } else {
                    point.add_repeat(all, times);
                }
            }
            // The root decides whether to go on; under MPI every rank follows it.
            double more = 0;
            if (root) {
                const std::size_t timed = point.samples.size();
                if (k < opt.warmup || timed < opt.repeats) {
                    more = 1;
                } else if (opt.precision <= 0) {
                    point.stop = "fixed";
                } else if (relative_precision(point.samples) <= opt.precision) {
                    point.stop = "precision";
                } else if (timed >= opt.max_repeats) {
                    point.stop = "max repeats";
                } else if (opt.budget_s > 0 && seconds_since(point_start) >= opt.budget_s) {
                    point.stop = "budget";
                } else {
                    more = 1;
                }
            }
            if constexpr (distributed_policy<policy_t>) chunkwise::detail::policy_access::broadcast_value(policy, more);
            if (more == 0) break;
        }
        point.steal = cpu_counters::now().steal_share_since(cpu_before);
        if (root) report.points.push_back(std::move(point));
    }
    report.mode = distributed_policy<policy_t> ? (threads_beyond_one ? "hybrid" : "mpi") : "threads";
    if (root) {
        // D: the bytes the workers counted per run (h5 and Zarr reads, count_read_bytes), as the
        // first point read them (every count reads the same input).
        for (const rank_times& r : report.points.front().per_rank) report.bytes_read += r.read_bytes;
        report.finish();
        predict(report, false, opt.cores > 0 ? opt.cores : report.machine.cores, opt.cores_per_node);
    }
    return report;
}

/// strong_scaling over thread pools in this process: a thread_policy of each count in
/// opt.workers.
template <class Workload>
[[nodiscard]] scaling_report strong_scaling(const scaling_options& opt, Workload&& workload) {
    return strong_scaling(
        opt, [](std::size_t n) { return thread_policy(n); }, std::forward<Workload>(workload));
}

}  // namespace chunkwise::bench
