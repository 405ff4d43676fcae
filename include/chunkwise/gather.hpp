#pragma once
/// \file
/// `gather` and `reduce`: combine the results of `map_blocks`, deterministically.

#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/detail/core/tree_reduce.hpp>
#include <chunkwise/failure.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/stats.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise {

namespace detail {

template <class R>
void add_combine_time(partial_results<R>& results, clock::time_point t0) {
    run_stats& s = results.stats();
    if (s.workers.empty()) s.workers.resize(1);
    s.workers.front().combine += seconds_since(t0);
}

/// One sentence per way to get reduce or all_reduce wrong; true when the arguments are usable.
template <class Policy, class R, class Op>
constexpr bool check_reduce_arguments() {
    static_assert(execution_policy<Policy>,
                  "chunkwise::reduce: the first argument must be the execution policy that ran map_blocks");
    static_assert(reduction_op<Op, R>,
                  "chunkwise::reduce: op must be callable as op(R, R) and return something convertible to R, "
                  "where R is the block function's result type");
    return execution_policy<Policy> && reduction_op<Op, R>;
}

}  // namespace detail

/// Every block's result in block order.
///
/// Without MPI this moves the values out of `results`. Under MPI it is collective: the root gets
/// all results in block order, other ranks an empty vector.
/// `results.stats()` afterwards includes the time spent here (worker 0's combine).
template <class Policy, class R>
std::vector<R> gather(Policy& policy, partial_results<R>&& results) {
    static_assert(execution_policy<Policy>,
                  "chunkwise::gather: the first argument must be the execution policy that ran map_blocks");
    const auto t0 = clock::now();
    if constexpr (distributed_policy<Policy>) {
        std::vector<R> out = detail::policy_access::gather_results(policy, results);
        detail::add_combine_time(results, t0);
        return out;
    } else {
        std::vector<R> out = std::move(results.values());
        detail::add_combine_time(results, t0);
        return out;
    }
}

/// Combines all results with `op` over a fixed pairwise tree of block indices.
///
/// The tree depends only on the number of blocks: the same operands meet in the same order under
/// every policy, thread count and rank count, so floating-point results agree to the bit. With no
/// blocks the result is R{} (std::invalid_argument if R has no default value). Under MPI it is
/// collective and the value is on the root (R{} elsewhere).
/// \param policy the execution policy that ran map_blocks
/// \param results what map_blocks returned, consumed (pass it with std::move)
/// \param op callable as op(R, R), returning something convertible to R; need not be commutative
template <class Policy, class R, class Op>
R reduce(Policy& policy, partial_results<R>&& results, Op op) {
    if constexpr (!detail::check_reduce_arguments<Policy, R, Op>()) {
        return R{};  // only the static_assert above is reported
    } else {
        const auto t0 = clock::now();
        std::optional<R> out;
        if constexpr (distributed_policy<Policy>) {
            out = detail::policy_access::reduce_results(policy, results, op);
        } else {
            std::vector<detail::tree_node<R>> nodes =
                detail::local_tree_nodes(results, op, detail::missing_indices(results));
            out = detail::finish_tree(results.total_blocks(), nodes, op);
        }
        detail::add_combine_time(results, t0);
        if (!out) return detail::empty_reduction<R>();
        return std::move(*out);
    }
}

/// Every block that failed under on_error::collect, in block order: this process's failures
/// without MPI; under MPI all ranks' failures on the root, empty elsewhere (collective).
template <class Policy, class R>
std::vector<failure> gather_failures(Policy& policy, const partial_results<R>& results) {
    static_assert(execution_policy<Policy>,
                  "chunkwise::gather_failures: the first argument must be the execution policy that ran map_blocks");
    if constexpr (distributed_policy<Policy>) {
        return detail::policy_access::gather_failures(policy, results);
    } else {
        return results.failures();
    }
}

/// Every rank's statistics on the root, in rank order (an empty vector elsewhere); without MPI
/// a vector holding `stats`. Collective under MPI. Pass `partial.stats()` after the gather or
/// reduce that consumed the results to include their combine time; `summarize` sums it up.
template <class Policy>
std::vector<run_stats> gather_stats(Policy& policy, const run_stats& stats) {
    static_assert(execution_policy<Policy>,
                  "chunkwise::gather_stats: the first argument must be the execution policy that ran map_blocks");
    if constexpr (distributed_policy<Policy>) {
        return detail::policy_access::gather_stats(policy, stats);
    } else {
        return {stats};
    }
}

/// Returns on every rank once every rank of the policy has called it (a barrier); returns at once
/// for a policy of one process. Collective.
template <class Policy>
void synchronize(Policy& policy) {
    static_assert(execution_policy<Policy>, "chunkwise::synchronize: the argument must be an execution policy");
    if constexpr (distributed_policy<Policy>) {
        (void)detail::policy_access::agree_on_problem(policy, std::string());
    } else {
        (void)policy;
    }
}

/// `gather`, with the result on every rank (without MPI the same as gather). Collective.
template <class Policy, class R>
std::vector<R> all_gather(Policy& policy, partial_results<R>&& results) {
    static_assert(execution_policy<Policy>,
                  "chunkwise::all_gather: the first argument must be the execution policy that ran map_blocks");
    if constexpr (distributed_policy<Policy>) {
        const auto t0 = clock::now();
        std::vector<R> out = detail::policy_access::all_gather_results(policy, results);
        detail::add_combine_time(results, t0);
        return out;
    } else {
        return gather(policy, std::move(results));
    }
}

/// `reduce`, with the value on every rank (the same bits everywhere; without MPI the same as
/// reduce). Collective.
template <class Policy, class R, class Op>
R all_reduce(Policy& policy, partial_results<R>&& results, Op op) {
    if constexpr (!detail::check_reduce_arguments<Policy, R, Op>()) {
        return R{};
    } else if constexpr (distributed_policy<Policy>) {
        const auto t0 = clock::now();
        R value = detail::policy_access::all_reduce_results(policy, results, op);
        detail::add_combine_time(results, t0);
        return value;
    } else {
        return reduce(policy, std::move(results), std::move(op));
    }
}

}  // namespace chunkwise
