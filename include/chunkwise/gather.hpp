#pragma once
/// \file
/// `gather` and `reduce`: combine the results of `map_blocks`, deterministically.

#include <chunkwise/detail/tree_reduce.hpp>
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

/// The reduction tree over the results held here, leaves in block order. Indices in [first, last)
/// without a result (failed blocks) enter as empty leaves, so they change no other node's operands.
template <class R, class Op>
std::vector<tree_node<R>> local_tree_nodes(partial_results<R>& results, Op& op, std::size_t first,
                                           std::size_t last) {
    tree_accumulator<R, Op> acc(results.total_blocks(), op);
    const std::vector<std::size_t>& idx = results.indices();
    std::vector<R>& vals = results.values();
    std::size_t k = 0;
    auto flush_until = [&](std::size_t stop) {
        for (; k < idx.size() && idx[k] < stop; ++k) acc.push_leaf(idx[k], std::move(vals[k]));
    };
    for (std::size_t i = first; i < last; ++i) {
        flush_until(i);
        if (k < idx.size() && idx[k] == i) {
            acc.push_leaf(i, std::move(vals[k]));
            ++k;
        } else {
            acc.push_leaf(i, std::nullopt);
        }
    }
    flush_until(results.total_blocks());
    return std::move(acc.nodes());
}

/// The root's value given every node of a complete cover of [0, n), in start order.
template <class R, class Op>
std::optional<R> finish_tree(std::size_t n, std::vector<tree_node<R>>& nodes, Op& op) {
    tree_accumulator<R, Op> acc(n, op);
    for (tree_node<R>& node : nodes) acc.push(node.level, node.k, std::move(node.value));
    std::vector<tree_node<R>>& rest = acc.nodes();
    // Nodes missing from the cover (failed blocks) leave gaps: combine what is left in order.
    std::optional<R> out;
    for (tree_node<R>& node : rest) {
        if (!node.value) continue;
        if (out) {
            out.emplace(std::invoke(op, std::move(*out), std::move(*node.value)));
        } else {
            out = std::move(node.value);
        }
    }
    return out;
}

/// Op can combine two R into an R.
template <class Op, class R>
concept reduction_op = std::invocable<Op&, R, R> && std::convertible_to<std::invoke_result_t<Op&, R, R>, R>;

template <class R>
R empty_reduction() {
    if constexpr (std::is_default_constructible_v<R>) {
        return R{};
    } else {
        throw std::invalid_argument(
            "[chunkwise.reduce] no results to reduce and the result type has no default value");
    }
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
    const auto t0 = detail::clock::now();
    if constexpr (requires { policy.gather_results(results); }) {
        std::vector<R> out = policy.gather_results(results);
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
/// \param op callable as op(R, R), returning something convertible to R; need not be commutative
template <class Policy, class R, class Op>
R reduce(Policy& policy, partial_results<R>&& results, Op op) {
    static_assert(execution_policy<Policy>,
                  "chunkwise::reduce: the first argument must be the execution policy that ran map_blocks");
    static_assert(detail::reduction_op<Op, R>,
                  "chunkwise::reduce: op must be callable as op(R, R) and return something convertible to R, "
                  "where R is the block function's result type");
    if constexpr (!detail::reduction_op<Op, R>) {
        return R{};  // only the static_assert above is reported
    } else {
        const auto t0 = detail::clock::now();
        std::optional<R> out;
        if constexpr (requires { policy.reduce_results(results, op); }) {
            out = policy.reduce_results(results, op);
        } else {
            std::vector<detail::tree_node<R>> nodes =
                detail::local_tree_nodes(results, op, 0, results.total_blocks());
            out = detail::finish_tree(results.total_blocks(), nodes, op);
        }
        detail::add_combine_time(results, t0);
        if (!out) return detail::empty_reduction<R>();
        return std::move(*out);
    }
}

}  // namespace chunkwise
