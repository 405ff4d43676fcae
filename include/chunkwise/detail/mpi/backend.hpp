#pragma once
// Internal: the MPI half shared by mpi_policy (Local = serial_policy) and hybrid_policy
// (Local = thread_policy): the schedules that assign blocks to ranks, and every collective hook
// chunkwise's algorithms reach through detail::policy_access (the concept
// chunkwise::distributed_policy names each one). Each collective starts with agree_on_call and
// is built from the steps of agree.hpp: a step that throws on one rank makes every rank throw.
#include <chunkwise/detail/core/compiled.hpp>
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
    mpi_backend_core(boost::mpi::communicator comm, mpi_schedule schedule, const char* who);

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
                // In start order; the nodes sorted by index, then moved once (no value moved by the sort).
                std::vector<std::size_t> order(all.size());
                for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
                std::sort(order.begin(), order.end(),
                          [&](std::size_t a, std::size_t b) { return all[a].start() < all[b].start(); });
                std::vector<tree_node<R>> sorted;
                sorted.reserve(all.size());
                for (std::size_t i : order) sorted.push_back(std::move(all[i]));
                out = finish_tree(results.total_blocks(), sorted, op);
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
    call_start begin_map_blocks(std::size_t n, on_error mode, bool progress, const std::string& problem);
    // Adds this rank's newly finished blocks; returns the run-wide count so far.
    std::size_t add_progress(std::size_t delta) {
        return progress_ ? static_cast<std::size_t>(progress_->fetch_add(delta) + delta) : 0;
    }
    // The end of a map_blocks call (after begin_map_blocks, on every rank). Collective.
    void end_map_blocks() { progress_.reset(); }

    // Every rank's statistics on root, in rank order (empty elsewhere). Collective.
    std::vector<run_stats> gather_stats(const run_stats& stats);

    // Root's value on every rank. Collective.
    template <class R>
    void broadcast_value(R& value) {
        std::vector<R> one;
        if (rank_ == 0) one.push_back(std::move(value));
        broadcast_values(comm_, one, 0);
        value = std::move(one.front());
    }

    // Rank r's contiguous run of blocks: the r-th of min(size, n) balanced runs.
    [[nodiscard]] std::pair<std::size_t, std::size_t> share(std::size_t n, int r) const;

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
    void agree_on_failure(exec_result& r);

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

#if CHUNKWISE_MPI_HEADER_ONLY
#include <chunkwise/detail/mpi/backend.ipp>
#endif
