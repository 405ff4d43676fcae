#pragma once
/// \file
/// Where a run's time went: per-worker busy, read, wait and combine seconds.

#include <chunkwise/detail/clock.hpp>

#include <cstddef>
#include <vector>

namespace chunkwise {

/// Seconds one worker (a thread, or a rank's only thread) spent in each phase of a run.
///
/// busy: inside block functions (read included); read: the part of busy reported through
/// `read_scope` (compute = busy - read); wait: wall time of the run not spent busy (idle,
/// scheduling, waiting for other workers or ranks); combine: gather/reduce on this worker.
struct worker_stats {
    double busy = 0;     ///< seconds inside block functions, read time included
    double read = 0;     ///< seconds of busy spent reading input (see read_scope)
    double wait = 0;     ///< seconds of the run's wall time not spent busy
    double combine = 0;  ///< seconds spent combining results (gather, reduce)
    std::size_t blocks = 0;  ///< blocks this worker ran

    /// Seconds of busy not spent reading.
    [[nodiscard]] double compute() const noexcept { return busy - read; }
};

/// Statistics of one `map_blocks` call in this process, plus the combine step that consumed it.
struct run_stats {
    int rank = 0;                        ///< MPI rank of this process (0 without MPI)
    double wall = 0;                     ///< seconds from start to end of map_blocks here
    std::vector<worker_stats> workers;   ///< one entry per worker of this process
    std::size_t from_checkpoint = 0;     ///< blocks loaded from a checkpoint instead of run
    std::size_t checkpoint_save_failures = 0;  ///< results kept but not checkpointed (full disk, ...)

    /// Sum of a phase over all workers, e.g. `total(&worker_stats::busy)`.
    [[nodiscard]] double total(double worker_stats::*phase) const noexcept {
        double s = 0;
        for (const worker_stats& w : workers) s += w.*phase;
        return s;
    }
};

/// Counts the time between its construction and destruction as read time of the block running
/// on this thread (`worker_stats::read`). Put one around the I/O inside a block function.
class read_scope {
public:
    read_scope() noexcept : start_(detail::clock::now()) {}
    ~read_scope() { detail::thread_read_seconds += detail::seconds_since(start_); }
    read_scope(const read_scope&) = delete;
    read_scope& operator=(const read_scope&) = delete;

private:
    detail::clock::time_point start_;
};

}  // namespace chunkwise
