#pragma once
// Internal: the contract between map_blocks and the policies that run its blocks (the concepts in
// <chunkwise/policy.hpp> name it): a policy's executor, execute_range(first, last, body, mode,
// rank), runs body(i) for the block indices [first, last) on its workers and returns an
// exec_result: per-worker statistics (timed with worker_clock, merged with add_worker_time) and
// the failed blocks, sorted by index. failure_record is the executor's view of a failed block: it
// carries the original exception (which never crosses ranks), while chunkwise::failure is the
// public, serialisable report map_blocks builds from it.

#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/failure.hpp>
#include <chunkwise/stats.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace chunkwise::detail {

/// One failed block as a policy reports it to map_blocks.
struct failure_record {
    std::size_t index = 0;
    int rank = 0;
    std::string message;
    std::exception_ptr error;  // null where the block ran on another rank
};

/// What a policy's executor returns: part of the policy contract (<chunkwise/policy.hpp>).
struct exec_result {
    run_stats stats;
    std::vector<failure_record> failures;  // sorted by index
    std::uint64_t call = 0;                // distributed policies: the number of this map_blocks call
};

/// What every rank learnt when a map_blocks call began on a distributed policy.
struct call_start {
    std::uint64_t call = 0;  // the number of this map_blocks call
    bool progress = false;   // some rank asked for progress: the root draws it for the whole run
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

/// Runs one block on the current thread and catches what it throws. Returns false if the block
/// threw (the failure is appended to `failures`). Timing and counting are per worker (see
/// worker_clock), not per block, to keep the cost of a block to a few nanoseconds.
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
/// as busy, and read_scope time reported meanwhile as read. `blocks` counts the blocks run; it
/// is added to the worker's statistics at the end (worker_stats of different threads share cache
/// lines, so they are written once, not per block).
class worker_clock {
public:
    explicit worker_clock(worker_stats& w) noexcept
            : w_(w),
              read0_(thread_read_seconds),
              wait0_(thread_lock_wait_seconds),
              held0_(thread_lock_held_seconds),
              t0_(clock::now()) {}
    ~worker_clock() {
        w_.busy += seconds_since(t0_);
        w_.read += thread_read_seconds - read0_;
        w_.lock_wait += thread_lock_wait_seconds - wait0_;
        w_.lock_held += thread_lock_held_seconds - held0_;
        w_.blocks += blocks;
    }
    std::size_t blocks = 0;
    worker_clock(const worker_clock&) = delete;
    worker_clock& operator=(const worker_clock&) = delete;

private:
    worker_stats& w_;
    double read0_, wait0_, held0_;
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
    }
}

/// The result an executor fills in: `workers` statistics of rank `rank`, no failures yet.
inline exec_result start_exec(int rank, std::size_t workers) {
    exec_result r;
    r.stats.rank = rank;
    r.stats.host = this_host();
    r.stats.workers.resize(workers);
    return r;
}

/// Fills in wait = wall - busy for every worker.
inline void finish_stats(run_stats& s, double wall) {
    s.wall = wall;
    for (worker_stats& w : s.workers) w.wait = std::max(0.0, wall - w.busy);
}

inline void sort_failures(std::vector<failure_record>& f) {
    std::sort(f.begin(), f.end(), [](const failure_record& a, const failure_record& b) { return a.index < b.index; });
}

}  // namespace chunkwise::detail
