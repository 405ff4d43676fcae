#pragma once
/// \file
/// Where a run's time went: per-worker busy, read, wait and combine seconds.

#include <chunkwise/detail/core/clock.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace chunkwise {

/// Seconds one worker (a thread, or a rank's only thread) spent in each phase of a run.
///
/// busy: inside block functions (read included); read: the part of busy reported through
/// `read_scope` (compute = busy - read); wait: wall time of the run not spent busy (idle,
/// scheduling, waiting for other workers or ranks); combine: gather/reduce on this worker;
/// lock_wait and lock_held: the part of read spent waiting for, and holding, a lock of the read
/// path (the HDF5 library lock): the serial fraction of the reads, measured.
struct worker_stats {
    double busy = 0;         ///< seconds inside block functions, read time included
    double read = 0;         ///< seconds of busy spent reading input (see read_scope)
    double wait = 0;         ///< seconds of the run's wall time not spent busy
    double combine = 0;      ///< seconds spent combining results (gather, reduce)
    std::size_t blocks = 0;  ///< blocks this worker ran
    double lock_wait = 0;    ///< seconds of read spent waiting for a lock of the read path
    double lock_held = 0;    ///< seconds of read spent holding one (serial: no other reader runs it)
    double read_bytes = 0;   ///< bytes read from storage (h5 reads, count_read_bytes; exact up to 2^53)
    double cpu = 0;          ///< seconds of busy the worker's thread ran on a CPU (the scheduler's account)
    /// Seconds of busy the worker's thread was ready to run but waited for a CPU (Linux's schedstat;
    /// NaN where the kernel does not say).
    double run_delay = 0;

    /// Seconds of busy not spent reading.
    [[nodiscard]] double compute() const noexcept { return busy - read; }
    /// Seconds of read spent at a lock: waiting for it and holding it.
    [[nodiscard]] double lock() const noexcept { return lock_wait + lock_held; }
    /// Of its busy time, the share the worker was not kept waiting for a CPU: 1 - run_delay / busy
    /// (cpu / busy where the kernel gives no run_delay; NaN before any block ran). About 1 alone on
    /// a core, whether the work computes, sleeps or waits on storage; below 0.8, other work took
    /// its cores (docs/scaling.md, "Contention").
    [[nodiscard]] double cpu_share() const noexcept {
        if (!(busy > 0)) return std::numeric_limits<double>::quiet_NaN();
        const double share = std::isnan(run_delay) ? cpu / busy : 1 - run_delay / busy;
        return std::clamp(share, 0.0, 1.0);
    }
};

/// Statistics of one `map_blocks` call in this process, plus the combine step that consumed it.
struct run_stats {
    int rank = 0;                              ///< MPI rank of this process (0 without MPI)
    std::string host;                          ///< the host this process ran on (its host name)
    double wall = 0;                           ///< seconds from start to end of map_blocks here
    std::vector<worker_stats> workers;         ///< one entry per worker of this process
    std::size_t from_checkpoint = 0;           ///< blocks loaded from a checkpoint instead of run
    std::size_t checkpoint_save_failures = 0;  ///< results kept but not checkpointed (full disk, ...)

    /// Sum of a phase over all workers, e.g. `total(&worker_stats::busy)`.
    [[nodiscard]] double total(double worker_stats::*phase) const noexcept {
        double s = 0;
        for (const worker_stats& w : workers) s += w.*phase;
        return s;
    }
};

/// One run over every worker of every rank, summed up (see summarize).
struct run_summary {
    std::size_t ranks = 0;           ///< ranks (processes) summarized
    std::size_t workers = 0;         ///< workers over all ranks
    double wall = 0;                 ///< the longest wall time of any rank
    double busy_max = 0;             ///< busy seconds of the slowest worker
    double busy_min = 0;             ///< busy seconds of the fastest worker
    double busy_mean = 0;            ///< mean busy seconds per worker
    int slowest_rank = 0;            ///< rank of the worker with the most busy time (a straggler?)
    std::string slowest_host;        ///< the host of that rank
    std::size_t slowest_worker = 0;  ///< its worker number on that rank
    int fastest_rank = 0;            ///< rank of the worker with the least busy time
    std::size_t fastest_worker = 0;  ///< its worker number on that rank
    double imbalance = 1;            ///< busy_max / busy_mean: 1 is perfect balance
    double total_read = 0;           ///< read seconds summed over all workers
    double total_compute = 0;        ///< compute seconds (busy - read) summed over all workers
    double total_wait = 0;           ///< wait seconds summed over all workers
    double total_combine = 0;        ///< combine seconds summed over all workers
    double total_lock_wait = 0;      ///< seconds waiting for a lock of the read path, all workers
    double total_lock_held = 0;      ///< seconds holding one, all workers (serial: see docs/scaling.md)
    /// The mean of worker_stats::cpu_share over the workers that ran blocks: below 0.8, other work
    /// took the cores (NaN: none ran).
    double cpu_share = std::numeric_limits<double>::quiet_NaN();
    /// The mean of cpu / busy over the same workers: the share of busy time they ran on a CPU (about
    /// 1 for work that computes, near 0 for work that sleeps or waits on storage; NaN: none ran).
    double cpu_use = std::numeric_limits<double>::quiet_NaN();
};

/// Sums up the statistics of every rank (from gather_stats) or of one process: the slowest and
/// fastest worker, the imbalance (max busy / mean busy) and the total of every phase.
[[nodiscard]] inline run_summary summarize(const std::vector<run_stats>& ranks) {
    run_summary s;
    s.ranks = ranks.size();
    double busy_total = 0, share_total = 0, use_total = 0;
    std::size_t judged = 0;
    bool first = true;
    for (const run_stats& r : ranks) {
        s.wall = r.wall > s.wall ? r.wall : s.wall;
        for (std::size_t w = 0; w < r.workers.size(); ++w) {
            const worker_stats& x = r.workers[w];
            ++s.workers;
            busy_total += x.busy;
            s.total_read += x.read;
            s.total_compute += x.compute();
            s.total_wait += x.wait;
            s.total_combine += x.combine;
            s.total_lock_wait += x.lock_wait;
            s.total_lock_held += x.lock_held;
            if (const double share = x.cpu_share(); !std::isnan(share)) {
                share_total += share;
                use_total += std::min(1.0, x.cpu / x.busy);
                ++judged;
            }
            if (first || x.busy > s.busy_max) {
                s.busy_max = x.busy;
                s.slowest_rank = r.rank;
                s.slowest_host = r.host;
                s.slowest_worker = w;
            }
            if (first || x.busy < s.busy_min) {
                s.busy_min = x.busy;
                s.fastest_rank = r.rank;
                s.fastest_worker = w;
            }
            first = false;
        }
    }
    if (s.workers > 0) s.busy_mean = busy_total / static_cast<double>(s.workers);
    s.imbalance = s.busy_mean > 0 ? s.busy_max / s.busy_mean : 1.0;
    if (judged > 0) {
        s.cpu_share = share_total / static_cast<double>(judged);
        s.cpu_use = use_total / static_cast<double>(judged);
    }
    return s;
}

/// summarize of one process's statistics.
[[nodiscard]] inline run_summary summarize(const run_stats& one) { return summarize(std::vector<run_stats>{one}); }

/// Adds `bytes` to the bytes read from storage by the block running on this thread
/// (`worker_stats::read_bytes`), for a workload that reads by other means than h5:: (which counts
/// its own). The scaling harness takes the read bandwidth of a run from these bytes.
inline void count_read_bytes(double bytes) noexcept { detail::thread_read_bytes += bytes; }

/// Counts the time between its construction and destruction as read time of the block running
/// on this thread (`worker_stats::read`). Put one around the I/O inside a block function.
class read_scope {
public:
    read_scope() noexcept : start_(clock::now()), depth_(detail::thread_read_depth++) {}
    ~read_scope() {
        --detail::thread_read_depth;
        if (depth_ == 0) detail::thread_read_seconds += seconds_since(start_);  // nested scopes count once
    }
    read_scope(const read_scope&) = delete;
    read_scope& operator=(const read_scope&) = delete;

private:
    clock::time_point start_;
    unsigned depth_;
};

}  // namespace chunkwise
