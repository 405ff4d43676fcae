#pragma once
/// \file
/// `strong_scaling`: runs a workload over thread counts in this process and returns its report
/// (standard library only). Across MPI ranks, chunkwise-bench and benchmarks/scale-mpi.sh do the
/// same one launch per rank count (docs/scaling.md).

#include <chunkwise/bench/report.hpp>
#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/threads.hpp>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::bench {

/// How strong_scaling runs a workload.
struct scaling_options {
    std::string workload = "workload";       ///< a name for the report
    std::vector<std::size_t> workers{1, 2};  ///< thread counts to run at
    std::size_t repeats = 3;                 ///< timed runs per thread count
    std::size_t warmup = 1;                  ///< untimed runs first, per thread count
};

/// Runs `workload(pool)` on a thread_policy of each count in opt.workers (warm-up runs first,
/// then opt.repeats timed ones) and returns the finished report. If the workload returns the
/// run_stats of its map_blocks (partial.stats() after gather/reduce), each point holds the
/// critical path's phases (they add up to the wall time: what the workload did outside
/// map_blocks and the combine is `other`); a workload returning anything else is timed only (all
/// of its time is `other`). Measure at 1 worker for speedups against a measured baseline.
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
        for (std::size_t k = 0; k < opt.repeats; ++k) {
            const auto t0 = chunkwise::detail::clock::now();
            if constexpr (std::is_convertible_v<std::invoke_result_t<Workload&, thread_policy&>, const run_stats&>) {
                run_stats stats = std::invoke(workload, pool);
                const double wall = chunkwise::detail::seconds_since(t0);
                if (stats.host.empty()) stats.host = report.machine.host;
                point.add_repeat({stats}, {wall});
            } else {
                (void)std::invoke(workload, pool);
                point.add_timed_repeat(chunkwise::detail::seconds_since(t0));
            }
        }
        report.points.push_back(std::move(point));
    }
    report.finish();
    return report;
}

}  // namespace chunkwise::bench
