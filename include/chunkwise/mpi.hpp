#pragma once
/// \file
/// `mpi_policy` and `hybrid_policy`: blocks across MPI ranks (Boost.MPI), optionally on a
/// thread pool per rank. CMake component `mpi` (target chunkwise::mpi).
///
/// chunkwise never calls MPI_Init: create a `boost::mpi::environment` in main (with
/// `boost::mpi::threading::funneled` for hybrid_policy). Only the thread that calls map_blocks,
/// gather or reduce talks to MPI.

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/detail/mpi_transfer.hpp>  // first: Boost.MPI, then mpi.h
#include <chunkwise/detail/mpi_agree.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise {

/// Boost.Serialization of a failure, so failures travel between ranks.
template <class Archive>
void serialize(Archive& ar, failure& f, const unsigned int /*version*/) {
    ar& f.index;
    ar& f.block;
    ar& f.rank;
    ar& f.message;
    ar& f.time;
}

/// How an MPI policy assigns blocks to ranks.
enum class mpi_schedule {
    contiguous,  ///< rank r gets the r-th of size() balanced contiguous runs of blocks (default)
    dynamic,     ///< ranks take blocks on demand from a shared counter (MPI-3 fetch-and-add on
                 ///< rank 0's memory); for blocks of uneven cost. Every rank computes.
};

namespace detail {

inline void require_mpi(const char* who) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        throw std::logic_error(std::string("[chunkwise.mpi] ") + who +
                               ": MPI is not initialized; create a boost::mpi::environment in main first");
    }
}

/// Adds `part` (one stretch of blocks run by the local executor) to `total`.
inline void merge_exec(exec_result& total, exec_result&& part) {
    if (total.stats.workers.size() < part.stats.workers.size()) total.stats.workers.resize(part.stats.workers.size());
    for (std::size_t w = 0; w < part.stats.workers.size(); ++w) {
        total.stats.workers[w].busy += part.stats.workers[w].busy;
        total.stats.workers[w].read += part.stats.workers[w].read;
        total.stats.workers[w].blocks += part.stats.workers[w].blocks;
    }
    for (failure_record& f : part.failures) total.failures.push_back(std::move(f));
}

/// The shared block counter of the dynamic schedule: one uint64 in rank 0's memory.
class block_counter {
public:
    explicit block_counter(const boost::mpi::communicator& comm) {
        const MPI_Aint bytes = comm.rank() == 0 ? static_cast<MPI_Aint>(sizeof(std::uint64_t)) : 0;
        check_mpi(MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, comm, &base_, &win_),
                  "MPI_Win_allocate");
        if (comm.rank() == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win_);
            *base_ = 0;
            MPI_Win_unlock(0, win_);
        }
        MPI_Barrier(comm);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    }
    block_counter(const block_counter&) = delete;
    block_counter& operator=(const block_counter&) = delete;
    ~block_counter() {
        MPI_Win_unlock_all(win_);
        MPI_Win_free(&win_);  // collective
    }

    /// Adds `k` and returns the value before.
    std::uint64_t fetch_add(std::uint64_t k) {
        std::uint64_t before = 0;
        check_mpi(MPI_Fetch_and_op(&k, &before, mpi_type<std::uint64_t>(), 0, 0, MPI_SUM, win_), "MPI_Fetch_and_op");
        check_mpi(MPI_Win_flush(0, win_), "MPI_Win_flush");
        return before;
    }
    /// Sets the counter to `v` so that no rank takes another block.
    void exhaust(std::uint64_t v) {
        std::uint64_t before = 0;
        check_mpi(MPI_Fetch_and_op(&v, &before, mpi_type<std::uint64_t>(), 0, 0, MPI_REPLACE, win_),
                  "MPI_Fetch_and_op");
        check_mpi(MPI_Win_flush(0, win_), "MPI_Win_flush");
    }

private:
    std::uint64_t* base_ = nullptr;
    MPI_Win win_ = MPI_WIN_NULL;
};

/// The MPI half shared by mpi_policy (Local = serial_policy) and hybrid_policy (thread_policy).
/// Its collective hooks are private: chunkwise's algorithms reach them through policy_access,
/// and the concept chunkwise::distributed_policy names every one of them.
template <class Local>
class mpi_backend {
public:
    /// Ranks in the communicator.
    [[nodiscard]] int size() const noexcept { return size_; }
    /// This process's rank in the communicator.
    [[nodiscard]] int rank() const noexcept { return rank_; }
    /// True on rank 0, where gather and reduce deliver.
    [[nodiscard]] bool is_root() const noexcept { return rank_ == 0; }
    /// The communicator every collective of this policy uses.
    [[nodiscard]] const boost::mpi::communicator& communicator() const noexcept { return comm_; }
    /// How blocks are assigned to ranks.
    [[nodiscard]] mpi_schedule schedule() const noexcept { return schedule_; }

protected:
    mpi_backend(boost::mpi::communicator comm, mpi_schedule schedule, Local local, const char* who)
            : comm_((require_mpi(who), std::move(comm))),
              rank_(comm_.rank()),
              size_(comm_.size()),
              schedule_(schedule),
              local_(std::move(local)) {}

    Local& local() noexcept { return local_; }
    const Local& local() const noexcept { return local_; }

private:
    friend struct detail::policy_access;

    // Runs this rank's blocks, then agrees on failures with every rank (collective): under
    // fail_fast every rank reports the same lowest failing block.
    template <class Body>
    exec_result execute(std::size_t n, Body& body, on_error mode) {
        exec_result r;
        const auto t0 = clock::now();
        if (schedule_ == mpi_schedule::contiguous) {
            const auto [first, last] = share(n, rank_);
            r = policy_access::execute_range(local_, first, last, body, mode, rank_);
        } else {
            r.stats.workers.resize(local_.workers());
            block_counter counter(comm_);
            const std::uint64_t batch = local_.workers();
            for (;;) {
                const std::uint64_t start = counter.fetch_add(batch);
                if (start >= n) break;
                const std::size_t stop = static_cast<std::size_t>(std::min<std::uint64_t>(start + batch, n));
                exec_result part =
                    policy_access::execute_range(local_, static_cast<std::size_t>(start), stop, body, mode, rank_);
                const bool failed = !part.failures.empty();
                merge_exec(r, std::move(part));
                if (failed && mode == on_error::fail_fast) {
                    counter.exhaust(n);  // no rank takes another block
                    break;
                }
            }
        }
        r.stats.rank = rank_;
        sort_failures(r.failures);
        // The run ends for every rank when the last rank is done: time spent waiting for other
        // ranks here is each worker's wait (wall - busy), as on a fast rank next to a slow one.
        if (mode == on_error::fail_fast) {
            agree_on_failure(r);
        } else {
            check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
        }
        finish_stats(r.stats, seconds_since(t0));
        r.call = calls_;
        return r;
    }

    // Every result in block order on root, empty elsewhere. Collective.
    template <class R>
    std::vector<R> gather_results(partial_results<R>& results) {
        agree_on_call(collective::gather, results.call_id(), results.total_blocks(), 0);
        return gather_agreed(results);
    }

    // gather_results once the ranks agreed on the call.
    template <class R>
    std::vector<R> gather_agreed(partial_results<R>& results) {
        // Under the contiguous schedule with nothing missing, rank order is block order and the
        // indices need not travel. A fail-fast map_blocks guarantees that on every rank; otherwise
        // the ranks check it together.
        int all_in_order = 0;
        if (schedule_ == mpi_schedule::contiguous && results.complete_everywhere()) {
            all_in_order = 1;
        } else {
            int in_order = 0;
            if (schedule_ == mpi_schedule::contiguous) {
                const auto [first, last] = share(results.total_blocks(), rank_);
                const auto& idx = results.indices();
                in_order =
                    idx.size() == last - first && (idx.empty() || (idx.front() == first && idx.back() == last - 1));
            }
            check_mpi(MPI_Allreduce(&in_order, &all_in_order, 1, MPI_INT, MPI_LAND, comm_), "MPI_Allreduce");
        }
        if (all_in_order) {
            std::vector<std::uint64_t> counts(static_cast<std::size_t>(size_));
            for (int r = 0; r < size_; ++r) {
                const auto [first, last] = share(results.total_blocks(), r);
                counts[static_cast<std::size_t>(r)] = last - first;
            }
            return gather_values(comm_, results.values(), 0, &counts);
        }

        std::vector<std::uint64_t> keys(results.indices().begin(), results.indices().end());
        auto pairs = gather_keyed(comm_, keys, results.values(), 0);
        std::vector<R> out;
        if (rank_ == 0) {
            auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
            if (!std::is_sorted(pairs.begin(), pairs.end(), by_key)) std::sort(pairs.begin(), pairs.end(), by_key);
            out.reserve(pairs.size());
            for (auto& kv : pairs) out.push_back(std::move(kv.second));
        }
        return out;
    }

    // gather_results, then the same vector on every rank. Collective.
    template <class R>
    std::vector<R> all_gather_results(partial_results<R>& results) {
        agree_on_call(collective::all_gather, results.call_id(), results.total_blocks(), 0);
        std::vector<R> out = gather_agreed(results);
        broadcast_values(comm_, out, 0);
        return out;
    }

    // The fixed-tree reduction's value on root (nullopt elsewhere). Each rank reduces the
    // complete subtrees it holds; root combines those nodes in block order, so the operands are
    // those of the serial tree. Collective.
    template <class R, class Op>
    std::optional<R> reduce_results(partial_results<R>& results, Op& op) {
        agree_on_call(collective::reduce, results.call_id(), results.total_blocks(), 0);
        return reduce_agreed(results, op);
    }

    // The fixed-tree reduction's value on every rank. Collective.
    template <class R, class Op>
    R all_reduce_results(partial_results<R>& results, Op& op) {
        agree_on_call(collective::all_reduce, results.call_id(), results.total_blocks(), 0);
        std::optional<R> root = reduce_agreed(results, op);
        std::vector<R> one;
        if (rank_ == 0) one.push_back(root ? std::move(*root) : empty_reduction<R>());
        broadcast_values(comm_, one, 0);
        return std::move(one.front());
    }

    // reduce_results once the ranks agreed on the call. The operation may throw on any rank:
    // while each rank reduces the subtrees it holds (agreed before anything travels), and on the
    // root while it combines them (its outcome is sent to every rank): either way every rank
    // throws the same chunkwise::error, none waits for the others forever.
    template <class R, class Op>
    std::optional<R> reduce_agreed(partial_results<R>& results, Op& op) {
        static_assert(std::is_default_constructible_v<R>,
                      "chunkwise::reduce under MPI: the result type must be default-constructible (ranks other "
                      "than the root return R{})");
        // A node travels as key = start * 64 + level; nodes without a value as keys alone.
        std::vector<std::uint64_t> keys, empty_keys;
        std::vector<R> values;
        std::string problem;
        try {
            std::vector<tree_node<R>> nodes = local_tree_nodes(results, op, results.failed_positions());
            for (tree_node<R>& node : nodes) {
                const std::uint64_t key = static_cast<std::uint64_t>(node.start()) * 64 + node.level;
                if (node.value) {
                    keys.push_back(key);
                    values.push_back(std::move(*node.value));
                } else {
                    empty_keys.push_back(key);
                }
            }
        } catch (...) {
            problem = describe_exception(std::current_exception());
        }
        fail_if("reduce: the operation threw: ", agree_on_problem(comm_, problem));
        auto pairs = gather_keyed(comm_, keys, values, 0);
        std::vector<std::uint64_t> empty_counts;
        const auto all_empty = gather_raw<std::uint64_t>(comm_, empty_keys, 0, empty_counts);
        std::optional<R> out;
        if (rank_ == 0) {
            try {
                std::vector<tree_node<R>> all;
                all.reserve(pairs.size() + all_empty.size());
                for (auto& kv : pairs) {
                    const auto level = static_cast<unsigned>(kv.first % 64);
                    all.push_back(
                        tree_node<R>{level, static_cast<std::size_t>(kv.first / 64) >> level, std::move(kv.second)});
                }
                for (std::uint64_t key : all_empty) {
                    const auto level = static_cast<unsigned>(key % 64);
                    all.push_back(tree_node<R>{level, static_cast<std::size_t>(key / 64) >> level, std::nullopt});
                }
                std::sort(all.begin(), all.end(),
                          [](const tree_node<R>& a, const tree_node<R>& b) { return a.start() < b.start(); });
                out = finish_tree(results.total_blocks(), all, op);
            } catch (...) {
                problem = describe_exception(std::current_exception());
            }
        }
        boost::mpi::broadcast(comm_, problem, 0);  // the root's outcome, on every rank
        fail_if("reduce: the operation threw: ", problem.empty() ? problem : problem + " (rank 0)");
        return out;
    }

    // Every rank's failures on root, by block index (empty elsewhere). Collective.
    template <class R>
    std::vector<failure> gather_failures(const partial_results<R>& results) {
        agree_on_call(collective::gather_failures, results.call_id(), results.total_blocks(), 0);
        std::vector<failure> mine = results.failures();
        std::vector<failure> out = gather_values(comm_, mine, 0);
        std::sort(out.begin(), out.end(), [](const failure& a, const failure& b) { return a.index < b.index; });
        return out;
    }

    // The start of a map_blocks call, on every rank: the ranks agree that they all make it, with as
    // many blocks and the same on_error; learn whether any rank asked for progress (then the
    // run-wide progress counter on the root starts) and whether any rank failed to set its run
    // up (its log, its checkpoint folder): then every rank throws that rank's error. Collective.
    call_start begin_map_blocks(std::size_t n, on_error mode, bool progress, const std::string& problem) {
        call_start start;
        start.call = calls_ + 1;  // counted only once every rank agreed: a refused call is no call
        const auto [any_progress, any_problem] =
            agree(collective::map_blocks, start.call, n, mode == on_error::collect ? 1 : 0, progress, !problem.empty());
        if (any_problem) throw_agreed(agree_on_problem(comm_, problem));
        calls_ = start.call;
        if (any_progress) progress_ = std::make_unique<block_counter>(comm_);
        start.progress = any_progress;
        return start;
    }
    // Adds this rank's newly finished blocks; returns the run-wide count so far.
    std::size_t add_progress(std::size_t delta) {
        return progress_ ? static_cast<std::size_t>(progress_->fetch_add(delta) + delta) : 0;
    }
    // The end of a map_blocks call (after begin_map_blocks, on every rank). Collective.
    void end_map_blocks() { progress_.reset(); }

    // Every rank's statistics on root, in rank order (empty elsewhere). Collective.
    std::vector<run_stats> gather_stats(const run_stats& stats) {
        agree_on_call(collective::gather_stats, 0, 0, 0);
        // Each rank sends: rank, wall, from_checkpoint, save failures, workers, then per worker
        // busy, read, wait, combine, blocks (counts are exact in a double up to 2^53).
        std::vector<double> mine{
            static_cast<double>(stats.rank), stats.wall, static_cast<double>(stats.from_checkpoint),
            static_cast<double>(stats.checkpoint_save_failures), static_cast<double>(stats.workers.size())};
        for (const worker_stats& w : stats.workers) {
            mine.insert(mine.end(), {w.busy, w.read, w.wait, w.combine, static_cast<double>(w.blocks)});
        }
        std::vector<std::uint64_t> counts;
        const std::vector<double> all = gather_raw<double>(comm_, mine, 0, counts);
        std::vector<run_stats> out;
        if (rank_ != 0) return out;
        std::size_t at = 0;
        for (std::uint64_t count : counts) {
            const double* v = all.data() + at;
            run_stats s;
            s.rank = static_cast<int>(v[0]);
            s.wall = v[1];
            s.from_checkpoint = static_cast<std::size_t>(v[2]);
            s.checkpoint_save_failures = static_cast<std::size_t>(v[3]);
            s.workers.resize(static_cast<std::size_t>(v[4]));
            for (std::size_t w = 0; w < s.workers.size(); ++w) {
                const double* x = v + 5 + 5 * w;
                s.workers[w] = worker_stats{x[0], x[1], x[2], x[3], static_cast<std::size_t>(x[4])};
            }
            out.push_back(std::move(s));
            at += static_cast<std::size_t>(count);
        }
        return out;
    }

    // Root's value on every rank. Collective.
    template <class R>
    void broadcast_value(R& value) {
        std::vector<R> one;
        if (rank_ == 0) one.push_back(std::move(value));
        broadcast_values(comm_, one, 0);
        value = std::move(one.front());
    }

    // Rank r's contiguous run of blocks: the r-th of min(size, n) balanced runs.
    [[nodiscard]] std::pair<std::size_t, std::size_t> share(std::size_t n, int r) const {
        const std::size_t ranks = static_cast<std::size_t>(size_);
        const std::size_t k = n < ranks ? n : ranks;
        const std::size_t ur = static_cast<std::size_t>(r);
        if (ur >= k) return {n, n};
        const std::size_t base = n / k, extra = n % k;
        const std::size_t first = ur * base + std::min(ur, extra);
        return {first, first + base + (ur < extra ? 1 : 0)};
    }

    [[noreturn]] static void throw_agreed(const std::string& what) { throw error("[chunkwise.mpi] " + what); }
    static void fail_if(const char* prefix, const std::string& agreed) {
        if (!agreed.empty()) throw_agreed(prefix + agreed);
    }

    // Every collective starts here: all ranks say which call they make (kind), on the results of
    // which map_blocks call, of how many blocks, with which detail (map_blocks: the on_error
    // mode). One allreduce of one fixed shape for every collective, so that two different
    // collectives meet each other here instead of deadlocking or corrupting each other; on any
    // difference every rank throws the same std::invalid_argument naming what each rank did (a
    // usage error). Two flags ride along, combined by "any rank": returned. Collective.
    std::pair<bool, bool> agree(collective kind, std::uint64_t call, std::uint64_t blocks, long long detail,
                                bool flag_a = false, bool flag_b = false) {
        const long long mine[4] = {static_cast<long long>(kind), static_cast<long long>(call),
                                   static_cast<long long>(blocks), detail};
        long long send[10] = {mine[0],  mine[1],  mine[2],  mine[3],        -mine[0],
                              -mine[1], -mine[2], -mine[3], flag_a ? 1 : 0, flag_b ? 1 : 0};
        long long got[10];
        check_mpi(MPI_Allreduce(send, got, 10, MPI_LONG_LONG, MPI_MAX, comm_), "MPI_Allreduce");
        bool same = true;
        for (int i = 0; i < 4; ++i) same = same && got[i] == -got[i + 4];
        if (same) return {got[8] != 0, got[9] != 0};
        // Who did what, for the message (every rank saw the difference and gets here).
        std::vector<long long> all(static_cast<std::size_t>(size_) * 4);
        check_mpi(MPI_Allgather(mine, 4, MPI_LONG_LONG, all.data(), 4, MPI_LONG_LONG, comm_), "MPI_Allgather");
        auto describe = [&](int r) {
            const long long* v = &all[static_cast<std::size_t>(r) * 4];
            std::string d = collective_name(v[0]);
            if (v[0] == static_cast<long long>(collective::map_blocks)) {
                d += " (call " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
                     " blocks, on_error::" + (v[3] == 1 ? "collect" : "fail_fast") + ")";
            } else if (v[0] != static_cast<long long>(collective::gather_stats)) {
                d += " of the results of map_blocks call " + std::to_string(v[1]) + " (" + std::to_string(v[2]) +
                     " blocks)";
            }
            return d;
        };
        std::string text = "ranks disagree on the collective call: ";
        std::string previous;
        int from = 0;
        for (int r = 0; r <= size_; ++r) {
            const std::string d = r < size_ ? describe(r) : std::string();
            if (r == size_ || (r > 0 && d != previous)) {
                text += (from == 0 ? "" : "; ") +
                        std::string(from == r - 1 ? "rank " + std::to_string(from)
                                                  : "ranks " + std::to_string(from) + "-" + std::to_string(r - 1)) +
                        " called " + previous;
                from = r;
            }
            previous = d;
        }
        throw std::invalid_argument("[chunkwise.mpi] " + text +
                                    ". Every rank must make the same collective calls in the same order, on "
                                    "results of the same map_blocks call, with the same on_error.");
    }

    // agree() for a collective without flags: throws on a mismatch. Collective.
    void agree_on_call(collective kind, std::uint64_t call, std::uint64_t blocks, long long detail) {
        (void)agree(kind, call, blocks, detail);
    }

    // Every rank learns the lowest failing block, its rank and its message. Collective.
    void agree_on_failure(exec_result& r) {
        struct {
            long index;
            int rank;
        } mine{LONG_MAX, rank_}, lowest{LONG_MAX, 0};
        if (!r.failures.empty()) mine.index = static_cast<long>(r.failures.front().index);
        check_mpi(MPI_Allreduce(&mine, &lowest, 1, MPI_LONG_INT, MPI_MINLOC, comm_), "MPI_Allreduce");
        if (lowest.index == LONG_MAX) return;
        std::string message;
        std::exception_ptr error;
        if (lowest.rank == rank_) {
            message = r.failures.front().message;
            error = r.failures.front().error;
        }
        boost::mpi::broadcast(comm_, message, lowest.rank);
        r.failures.assign(1, failure_record{static_cast<std::size_t>(lowest.index), lowest.rank, std::move(message),
                                            std::move(error)});
    }

    boost::mpi::communicator comm_;
    int rank_;
    int size_;
    mpi_schedule schedule_;
    Local local_;
    std::unique_ptr<block_counter> progress_;
    std::uint64_t calls_ = 0;  // map_blocks calls so far, the same on every rank
};

}  // namespace detail

/// Runs blocks across the ranks of a communicator, one block at a time per rank.
///
/// `map_blocks` is collective: every rank calls it with the same blocks and runs its own share
/// (contiguous by default, on demand with mpi_schedule::dynamic). A failing block makes every rank
/// throw the same block_error. `gather` delivers all results in block order on rank 0 (arithmetic
/// values, vectors of them and xtensor arrays as raw MPI_Gatherv buffers, other types through
/// Boost.Serialization); `reduce` delivers the serial tree's bits on rank 0.
class mpi_policy : public detail::mpi_backend<serial_policy> {
public:
    /// \param comm the ranks that share the work (default: MPI_COMM_WORLD)
    /// \param schedule how blocks are assigned to ranks
    /// \throws std::logic_error if MPI is not initialized
    explicit mpi_policy(boost::mpi::communicator comm = {}, mpi_schedule schedule = mpi_schedule::contiguous)
            : mpi_backend(std::move(comm), schedule, serial_policy{}, "mpi_policy") {}

    /// Blocks run at once over all ranks: one per rank.
    [[nodiscard]] std::size_t workers() const noexcept { return static_cast<std::size_t>(size()); }
};

/// Runs blocks across the ranks of a communicator and, within each rank, on its own thread pool.
///
/// As mpi_policy, but each rank runs its share on a thread_policy of `threads_per_rank` workers.
/// Only the thread that calls map_blocks talks to MPI (MPI_THREAD_FUNNELED suffices).
class hybrid_policy : public detail::mpi_backend<thread_policy> {
public:
    /// \param comm the ranks that share the work
    /// \param threads_per_rank blocks each rank runs at once, its calling thread included
    /// \param schedule how blocks are assigned to ranks; under dynamic, a rank takes
    ///        threads_per_rank blocks at a time
    /// \throws std::logic_error if MPI is not initialized, or initialized below
    ///         MPI_THREAD_FUNNELED, or if this is not the thread that initialized MPI;
    ///         std::invalid_argument if threads_per_rank is 0
    hybrid_policy(boost::mpi::communicator comm, std::size_t threads_per_rank,
                  mpi_schedule schedule = mpi_schedule::contiguous)
            : mpi_backend(std::move(comm), schedule, make_pool(threads_per_rank), "hybrid_policy") {}

    /// Blocks run at once over all ranks: ranks times threads per rank.
    [[nodiscard]] std::size_t workers() const noexcept { return static_cast<std::size_t>(size()) * local().workers(); }
    /// Blocks each rank runs at once.
    [[nodiscard]] std::size_t threads_per_rank() const noexcept { return local().workers(); }

private:
    static thread_policy make_pool(std::size_t threads) {
        detail::require_mpi("hybrid_policy");
        int provided = MPI_THREAD_SINGLE, is_main = 0;
        MPI_Query_thread(&provided);
        MPI_Is_thread_main(&is_main);
        if (provided < MPI_THREAD_FUNNELED) {
            throw std::logic_error(
                "[chunkwise.mpi] hybrid_policy needs MPI initialized with at least MPI_THREAD_FUNNELED: create "
                "boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled) in main");
        }
        if (provided == MPI_THREAD_FUNNELED && !is_main) {
            throw std::logic_error(
                "[chunkwise.mpi] hybrid_policy must be created and used on the thread that initialized MPI "
                "(MPI_THREAD_FUNNELED)");
        }
        if (threads == 0) {
            throw std::invalid_argument("[chunkwise.mpi] hybrid_policy: threads_per_rank must be at least 1, got 0");
        }
        return thread_policy(threads);
    }
};

static_assert(distributed_policy<mpi_policy>, "chunkwise: mpi_policy must provide every collective hook");
static_assert(distributed_policy<hybrid_policy>, "chunkwise: hybrid_policy must provide every collective hook");

}  // namespace chunkwise
