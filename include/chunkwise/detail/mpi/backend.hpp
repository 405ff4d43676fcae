#pragma once
// Internal: the MPI half shared by mpi_policy (Local = serial_policy) and hybrid_policy
// (Local = thread_policy): the schedules that assign blocks to ranks, and every collective hook
// chunkwise's algorithms reach through detail::policy_access (the concept
// chunkwise::distributed_policy names each one). Each collective starts with agree_on_call and
// is built from the steps of agree.hpp: a step that throws on one rank makes every rank throw.
#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/detail/core/tree_reduce.hpp>
#include <chunkwise/detail/mpi/agree.hpp>
#include <chunkwise/detail/mpi/block_counter.hpp>
#include <chunkwise/detail/mpi/check.hpp>
#include <chunkwise/detail/mpi/serialization.hpp>
#include <chunkwise/detail/mpi/transfer.hpp>
#include <chunkwise/detail/mpi/values.hpp>
#include <chunkwise/failure.hpp>
#include <chunkwise/mpi/schedule.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/stats.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise {

namespace detail {

/// What mpi_policy and hybrid_policy share whatever their ranks' local policy: the communicator,
/// the schedule and every collective (compiled once for both).
class mpi_backend_core {
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
    mpi_backend_core(boost::mpi::communicator comm, mpi_schedule schedule, const char* who)
            : comm_((require_mpi(who), std::move(comm))),
              rank_(comm_.rank()),
              size_(comm_.size()),
              schedule_(schedule) {}

    friend struct detail::policy_access;
    // Every result in block order on root, empty elsewhere. Collective.
    template <class R>
    std::vector<R> gather_results(partial_results<R>& results) {
        collective_scope scope("gather");
        agree_on_call("gather", results.call_id(), results.total_blocks(), 0);
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
        collective_scope scope("all_gather");
        agree_on_call("all_gather", results.call_id(), results.total_blocks(), 0);
        std::vector<R> out = gather_agreed(results);
        broadcast_values(comm_, out, 0);
        return out;
    }

    // The fixed-tree reduction's value on root (nullopt elsewhere). Each rank reduces the
    // complete subtrees it holds; root combines those nodes in block order, so the operands are
    // those of the serial tree. Collective.
    template <class R, class Op>
    std::optional<R> reduce_results(partial_results<R>& results, Op& op) {
        collective_scope scope("reduce");
        agree_on_call("reduce", results.call_id(), results.total_blocks(), 0);
        return reduce_agreed(results, op);
    }

    // The fixed-tree reduction's value on every rank. Collective.
    template <class R, class Op>
    R all_reduce_results(partial_results<R>& results, Op& op) {
        collective_scope scope("all_reduce");
        agree_on_call("all_reduce", results.call_id(), results.total_blocks(), 0);
        std::optional<R> root = reduce_agreed(results, op);
        std::vector<R> one;
        std::string empty;
        if (rank_ == 0)
            empty = attempt(rank_, "combine", [&] { one.push_back(root ? std::move(*root) : empty_reduction<R>()); });
        settle_root(comm_, rank_, 0, empty, "the operation threw");
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
        std::vector<std::uint64_t> keys, empty_keys;
        std::vector<R> values;
        settle(comm_,
               attempt(rank_, "combine",
                       [&] {
                           std::vector<tree_node<R>> nodes = local_tree_nodes(results, op, results.failed_positions());
                           for (tree_node<R>& node : nodes) {
                               if (node.value) {
                                   keys.push_back(node_key(node));
                                   values.push_back(std::move(*node.value));
                               } else {
                                   empty_keys.push_back(node_key(node));
                               }
                           }
                       }),
               "the operation threw");
        auto pairs = gather_keyed(comm_, keys, values, 0);
        std::vector<std::uint64_t> empty_counts;
        const auto all_empty = gather_raw<std::uint64_t>(comm_, empty_keys, 0, empty_counts);
        std::optional<R> out;
        std::string problem;
        if (rank_ == 0) {
            problem = attempt(rank_, "combine", [&] {
                std::vector<tree_node<R>> all;
                all.reserve(pairs.size() + all_empty.size());
                for (auto& kv : pairs) all.push_back(node_of_key<R>(kv.first, std::move(kv.second)));
                for (std::uint64_t key : all_empty) all.push_back(node_of_key<R>(key, std::nullopt));
                std::sort(all.begin(), all.end(),
                          [](const tree_node<R>& a, const tree_node<R>& b) { return a.start() < b.start(); });
                out = finish_tree(results.total_blocks(), all, op);
            });
        }
        settle_root(comm_, rank_, 0, problem, "the operation threw");
        return out;
    }

    // Every rank's failures on root, by block index (empty elsewhere). Collective.
    template <class R>
    std::vector<failure> gather_failures(const partial_results<R>& results) {
        collective_scope scope("gather_failures");
        agree_on_call("gather_failures", results.call_id(), results.total_blocks(), 0);
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
        collective_scope scope("map_blocks");
        call_start start;
        start.call = calls_ + 1;  // counted only once every rank agreed: a refused call is no call
        const auto [any_progress, any_problem] = detail::agree_on_call(
            comm_, "map_blocks", start.call, n, mode == on_error::collect ? 1 : 0, progress, !problem.empty());
        if (any_problem) throw_agreed(detail::agree_on_problem(comm_, problem));
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
        collective_scope scope("gather_stats");
        agree_on_call("gather_stats", 0, 0, 0);
        // Each rank sends: rank, wall, from_checkpoint, save failures, workers, then per worker
        // busy, read, wait, combine, blocks, lock_wait, lock_held, read_bytes (counts are exact in a double up
        // to 2^53); and its host name.
        constexpr std::size_t per_worker = 8;
        std::vector<double> mine;
        std::vector<char> host;
        settle(
            comm_,
            attempt(rank_, "serialize",
                    [&] {
                        mine = {static_cast<double>(stats.rank), stats.wall, static_cast<double>(stats.from_checkpoint),
                                static_cast<double>(stats.checkpoint_save_failures),
                                static_cast<double>(stats.workers.size())};
                        for (const worker_stats& w : stats.workers) {
                            mine.insert(mine.end(), {w.busy, w.read, w.wait, w.combine, static_cast<double>(w.blocks),
                                                     w.lock_wait, w.lock_held, w.read_bytes});
                        }
                        const std::string& name = stats.host.empty() ? this_host() : stats.host;
                        host.assign(name.begin(), name.end());
                    }),
            "encoding the statistics failed");
        std::vector<std::uint64_t> counts, host_counts;
        const std::vector<double> all = gather_raw<double>(comm_, mine, 0, counts);
        const std::vector<char> hosts = gather_raw<char>(comm_, host, 0, host_counts);
        std::vector<run_stats> out;
        std::string decoded;
        if (rank_ == 0) {
            decoded = attempt(rank_, "deserialize", [&] {
                std::size_t at = 0, host_at = 0;
                for (std::size_t r = 0; r < counts.size(); ++r) {
                    const std::uint64_t count = counts[r];
                    const double* v = all.data() + at;
                    run_stats s;
                    s.rank = static_cast<int>(v[0]);
                    s.host.assign(hosts.data() + host_at, static_cast<std::size_t>(host_counts[r]));
                    host_at += static_cast<std::size_t>(host_counts[r]);
                    s.wall = v[1];
                    s.from_checkpoint = static_cast<std::size_t>(v[2]);
                    s.checkpoint_save_failures = static_cast<std::size_t>(v[3]);
                    s.workers.resize(static_cast<std::size_t>(v[4]));
                    for (std::size_t w = 0; w < s.workers.size(); ++w) {
                        const double* x = v + 5 + per_worker * w;
                        s.workers[w] =
                            worker_stats{x[0], x[1], x[2], x[3], static_cast<std::size_t>(x[4]), x[5], x[6], x[7]};
                    }
                    out.push_back(std::move(s));
                    at += static_cast<std::size_t>(count);
                }
            });
        }
        settle_root(comm_, rank_, 0, decoded, "decoding the statistics failed");
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

    // The agreement at the start of a collective named `name` (any layer may name its own).
    void agree_on_call(const char* name, std::uint64_t call, std::uint64_t blocks, long long detail) {
        collective_scope scope(*current_collective != '\0' ? current_collective : name);
        (void)detail::agree_on_call(comm_, name, call, blocks, detail);
    }
    // "" when no rank has a problem; else the lowest rank's, on every rank. Collective.
    std::string agree_on_problem(const std::string& mine) { return detail::agree_on_problem(comm_, mine); }
    // Every rank passes the same value for `what`, or all throw std::invalid_argument. Collective.
    void check_same(const char* what, const std::string& value) { detail::check_same(comm_, what, value); }

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
        unsigned long long length = message.size();
        check_mpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, lowest.rank, comm_), "MPI_Bcast");
        message.resize(static_cast<std::size_t>(length));
        if (length > 0) {
            check_mpi(MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, lowest.rank, comm_), "MPI_Bcast");
        }
        r.failures.assign(1, failure_record{static_cast<std::size_t>(lowest.index), lowest.rank, std::move(message),
                                            std::move(error)});
    }

    boost::mpi::communicator comm_;
    int rank_;
    int size_;
    mpi_schedule schedule_;
    std::unique_ptr<block_counter> progress_;
    std::uint64_t calls_ = 0;  // map_blocks calls so far, the same on every rank
};

/// mpi_backend_core with each rank's own policy `Local` that runs its blocks.
template <class Local>
class mpi_backend : public mpi_backend_core {
protected:
    mpi_backend(boost::mpi::communicator comm, mpi_schedule schedule, Local local, const char* who)
            : mpi_backend_core(std::move(comm), schedule, who), local_(std::move(local)) {}

    Local& local() noexcept { return local_; }
    const Local& local() const noexcept { return local_; }

private:
    friend struct detail::policy_access;

    // The executor of the policy contract: blocks [first, last) on this rank's own workers.
    template <class Body>
    exec_result execute_range(std::size_t first, std::size_t last, Body& body, on_error mode, int rank) {
        return policy_access::execute_range(local_, first, last, body, mode, rank);
    }

    // Runs this rank's blocks of a map_blocks call, then agrees on failures with every rank
    // (collective): under fail_fast every rank reports the same lowest failing block.
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
                add_worker_time(r.stats.workers, part.stats.workers);
                for (failure_record& f : part.failures) r.failures.push_back(std::move(f));
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

    Local local_;
};

}  // namespace detail
}  // namespace chunkwise
