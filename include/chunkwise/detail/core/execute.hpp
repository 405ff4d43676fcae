#pragma once
// Internal: the contract between map_blocks and the policies that run its blocks: a policy's
// executor runs body(i) for the block indices it owns and returns an exec_result (statistics and
// the failed blocks). failure_record is the executor's view of a failed block: it carries the
// original exception (which never crosses ranks), while chunkwise::failure is the public,
// serialisable report map_blocks builds from it.

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

/// What a policy's execute() returns.
struct exec_result {
    run_stats stats;
    std::vector<failure_record> failures;  // sorted by index
    std::uint64_t call = 0;                // distributed policies: the number of this map_blocks call
};

/// The collective calls of distributed policies. Each starts with an agreement in which every
/// rank says which it is making, on the results of which map_blocks call, of how many blocks.
enum class collective : long long {
    map_blocks = 1,
    gather,
    all_gather,
    reduce,
    all_reduce,
    gather_failures,
    gather_stats,
    write_blocks,
};

/// What every rank learnt when a map_blocks call began on a distributed policy.
struct call_start {
    std::uint64_t call = 0;  // the number of this map_blocks call
    bool progress = false;   // some rank asked for progress: the root draws it for the whole run
};

inline const char* collective_name(long long kind) {
    switch (static_cast<collective>(kind)) {
        case collective::map_blocks:
            return "map_blocks";
        case collective::gather:
            return "gather";
        case collective::all_gather:
            return "all_gather";
        case collective::reduce:
            return "reduce";
        case collective::all_reduce:
            return "all_reduce";
        case collective::gather_failures:
            return "gather_failures";
        case collective::gather_stats:
            return "gather_stats";
        case collective::write_blocks:
            return "h5::write_blocks";
    }
    return "an unknown collective";
}

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
    explicit worker_clock(worker_stats& w) noexcept : w_(w), read0_(thread_read_seconds), t0_(clock::now()) {}
    ~worker_clock() {
        w_.busy += seconds_since(t0_);
        w_.read += thread_read_seconds - read0_;
        w_.blocks += blocks;
    }
    std::size_t blocks = 0;
    worker_clock(const worker_clock&) = delete;
    worker_clock& operator=(const worker_clock&) = delete;

private:
    worker_stats& w_;
    double read0_;
    clock::time_point t0_;
};

/// Fills in wait = wall - busy for every worker.
inline void finish_stats(run_stats& s, double wall) {
    s.wall = wall;
    for (worker_stats& w : s.workers) w.wait = std::max(0.0, wall - w.busy);
}

inline void sort_failures(std::vector<failure_record>& f) {
    std::sort(f.begin(), f.end(), [](const failure_record& a, const failure_record& b) { return a.index < b.index; });
}

}  // namespace chunkwise::detail
