#pragma once
/// \file
/// Combining results correctly at any scale (standard library only): the `mergeable` concept,
/// `reduce` over mergeable results (R::merge in the fixed tree: the same bits on every policy and
/// worker count), and the statistics of `chunkwise::acc`: count, sum, mean (acc/moments.hpp),
/// variance (acc/variance.hpp), covariance (acc/covariance.hpp), extrema (acc/extrema.hpp), histogram
/// (acc/histogram.hpp) and quantiles (acc/quantiles.hpp). T may be an xtensor type: element-wise, the shape fixed by
/// the first add. docs/combine.md says which statistic to use for what and how to write your own.

#include <chunkwise/acc/covariance.hpp>
#include <chunkwise/acc/extrema.hpp>
#include <chunkwise/acc/histogram.hpp>
#include <chunkwise/acc/moments.hpp>
#include <chunkwise/acc/quantiles.hpp>
#include <chunkwise/acc/variance.hpp>
#include <chunkwise/concatenate.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/mergeable.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/policy.hpp>

#include <concepts>
#include <utility>

namespace chunkwise {

namespace detail {
/// reduce's operation for mergeable results: a.merge(b) (in place in the tree: merge_into).
struct merge_op {
    template <class A>
    A operator()(A a, const A& b) const {
        a.merge(b);
        return a;
    }
    template <class A>
    void merge_into(A& a, const A& b) const {
        a.merge(b);
    }
};
}  // namespace detail

/// Merges every block's result with R::merge over the fixed pairwise tree of block indices (as
/// `reduce(policy, results, op)`): the same bits under every policy, thread count and rank count.
/// With no blocks the result is R{} (the identity). Collective under MPI; the value is on the root.
template <class Policy, mergeable R>
R reduce(Policy& policy, partial_results<R>&& results) {
    return reduce(policy, std::move(results), detail::merge_op{});
}

/// `reduce` of mergeable results, with the value on every rank. Collective under MPI.
template <class Policy, mergeable R>
R all_reduce(Policy& policy, partial_results<R>&& results) {
    return all_reduce(policy, std::move(results), detail::merge_op{});
}

}  // namespace chunkwise
