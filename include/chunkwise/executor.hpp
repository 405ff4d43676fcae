#pragma once
/// \file
/// What a policy author needs (the contract of <chunkwise/policy.hpp>): a policy's executor,
/// `execute_range(first, last, body, mode, rank)`, runs `body(i)` for the block indices
/// [first, last) on its workers and returns an `exec_result`: one `worker_stats` per worker
/// (each worker's stretch of blocks timed by a `worker_clock`), the failed blocks as
/// `failure_record`s sorted by index (`run_one_block` catches each block's exception;
/// `sort_failures`), and `finish_stats` called last. `start_exec` makes the result to fill in.
/// docs/guide.md, "Writing a policy", shows a whole policy.

#include <chunkwise/clock.hpp>
#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/failure.hpp>
#include <chunkwise/stats.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace chunkwise {

/// One failed block as a policy reports it to map_blocks: its index, the rank that ran it, the
/// exception's text, and the exception itself (null where the block ran on another rank; it
/// never crosses ranks). map_blocks turns it into the public, serialisable `failure`.
struct failure_record {
    std::size_t index = 0;     ///< the block's index
    int rank = 0;              ///< the rank that ran it
    std::string message;       ///< what() of its exception
    std::exception_ptr error;  ///< the exception (null where the block ran on another rank)
};

/// What a policy's executor returns: its statistics, the failed blocks (sorted by index) and,
/// for distributed policies, the number of the map_blocks call.
struct exec_result {
    run_stats stats;                       ///< one worker_stats per worker; wall by finish_stats
    std::vector<failure_record> failures;  ///< sorted by index (sort_failures)
    std::uint64_t call = 0;                ///< distributed policies: the number of this map_blocks call
};

/// The text of an in-flight exception, for messages that cross threads and ranks.
inline std::string describe_exception(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& ex) {
        return ex.what();
    } catch (...) {
        return "unknown exception (not derived from std::exception)";
    }
}

/// Runs one block on the calling thread and catches what it throws.
/// \returns false if the block threw: its failure_record (tagged with `rank`) is appended to
///          `failures`. Timing and counting are per worker (worker_clock), not per block.
template <class Body>
bool run_one_block(Body& body, std::size_t index, std::vector<failure_record>& failures, int rank) {
    try {
        body(index);
        return true;
    } catch (...) {
        failure_record f;
        f.index = index;
        f.rank = rank;
        f.error = std::current_exception();
        f.message = describe_exception(f.error);
        failures.push_back(std::move(f));
        return false;
    }
}

/// Times one worker's stretch of blocks: everything between construction and destruction counts
/// as busy, and the read and lock time reported meanwhile (read_scope, the HDF5 lock) as read
/// and lock time, and the scheduler's account of the thread (time on a CPU, time waiting for one). Count the blocks run
/// in `blocks`; they are added to the worker's statistics at the end (statistics of different threads share cache
/// lines: written once, not per block).
class worker_clock {
public:
    /// Starts timing into `w`, the statistics of this worker.
    explicit worker_clock(worker_stats& w) noexcept
            : w_(w),
              read0_(detail::thread_read_seconds),
              wait0_(detail::thread_lock_wait_seconds),
              held0_(detail::thread_lock_held_seconds),
              bytes0_(detail::thread_read_bytes),
              sched0_(detail::thread_sched_now()),
              t0_(clock::now()) {}
    /// Adds the stretch's busy, read and lock time and its blocks to the worker's statistics.
    ~worker_clock() {
        w_.busy += seconds_since(t0_);
        w_.read += detail::thread_read_seconds - read0_;
        w_.lock_wait += detail::thread_lock_wait_seconds - wait0_;
        w_.lock_held += detail::thread_lock_held_seconds - held0_;
        w_.read_bytes += detail::thread_read_bytes - bytes0_;
        w_.blocks += blocks;
        const detail::thread_sched now = detail::thread_sched_now();
        w_.cpu += now.on_cpu - sched0_.on_cpu;
        w_.run_delay += now.waiting - sched0_.waiting;  // NaN where the kernel does not say
    }
    std::size_t blocks = 0;  ///< blocks run in this stretch
    worker_clock(const worker_clock&) = delete;
    worker_clock& operator=(const worker_clock&) = delete;

private:
    worker_stats& w_;
    double read0_, wait0_, held0_, bytes0_;
    detail::thread_sched sched0_;
    clock::time_point t0_;
};

/// Adds the time of `part` (one stretch of blocks, worker by worker) to `total`: busy, read, lock
/// and blocks. The one place worker statistics are merged (thread pools, MPI schedules).
inline void add_worker_time(std::vector<worker_stats>& total, const std::vector<worker_stats>& part) {
    if (total.size() < part.size()) total.resize(part.size());
    for (std::size_t w = 0; w < part.size(); ++w) {
        total[w].busy += part[w].busy;
        total[w].read += part[w].read;
        total[w].blocks += part[w].blocks;
        total[w].lock_wait += part[w].lock_wait;
        total[w].lock_held += part[w].lock_held;
        total[w].read_bytes += part[w].read_bytes;
        total[w].cpu += part[w].cpu;
        total[w].run_delay += part[w].run_delay;
    }
}

/// The result an executor fills in: `workers` statistics of rank `rank` on this host, no failures.
inline exec_result start_exec(int rank, std::size_t workers) {
    exec_result r;
    r.stats.rank = rank;
    r.stats.host = detail::this_host();
    r.stats.workers.resize(workers);
    return r;
}

/// The executor's last step: the call's wall time, and wait = wall - busy for every worker.
inline void finish_stats(run_stats& s, double wall) {
    s.wall = wall;
    for (worker_stats& w : s.workers) w.wait = std::max(0.0, wall - w.busy);
}

/// Sorts failures by block index, as exec_result promises.
inline void sort_failures(std::vector<failure_record>& f) {
    std::sort(f.begin(), f.end(), [](const failure_record& a, const failure_record& b) { return a.index < b.index; });
}

}  // namespace chunkwise
