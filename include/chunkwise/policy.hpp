#pragma once
/// \file
/// The concepts every execution policy satisfies (`execution_policy`: serial_policy,
/// thread_policy, mpi_policy, hybrid_policy) and the distributed ones add to
/// (`distributed_policy`: mpi_policy, hybrid_policy).

#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/failure.hpp>
#include <chunkwise/stats.hpp>

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace chunkwise {

template <class R>
class partial_results;

/// Something `map_blocks`, `gather` and `reduce` can run on.
///
/// A policy reports `workers()` (blocks it runs at once in this process), `rank()` (its MPI rank,
/// 0 without MPI) and `is_root()` (rank 0), and runs the blocks of one call through an executor
/// that is a detail of the library (reached through detail::policy_access): write policies by
/// wrapping the bundled ones, not by hand.
template <class Policy>
concept execution_policy = requires(Policy& p, const Policy& cp, detail::probe_body body) {
    { cp.workers() } -> std::convertible_to<std::size_t>;
    { cp.rank() } -> std::convertible_to<int>;
    { cp.is_root() } -> std::convertible_to<bool>;
    {
        detail::policy_access::execute(p, std::size_t{}, body, on_error::fail_fast)
        } -> std::same_as<detail::exec_result>;
};

/// An execution policy across MPI ranks: it names every collective hook that map_blocks,
/// gather, reduce, all_gather, all_reduce, gather_failures, gather_stats and h5::write_blocks
/// use (each called by every rank together; each starts by checking that every rank makes the
/// same call on results of the same map_blocks call), plus `size()` (ranks) and
/// `communicator()`. gather and friends dispatch on this
/// concept; serial_policy and thread_policy do not satisfy it.
template <class Policy>
concept distributed_policy = execution_policy<Policy> &&
    requires(Policy& p, const Policy& cp, partial_results<double>& r, const partial_results<double>& cr,
             detail::probe_op& op, double& value, std::size_t n, const run_stats& stats) {
    { cp.size() } -> std::convertible_to<int>;
    cp.communicator();
    { detail::policy_access::gather_results(p, r) } -> std::same_as<std::vector<double>>;
    { detail::policy_access::all_gather_results(p, r) } -> std::same_as<std::vector<double>>;
    { detail::policy_access::reduce_results(p, r, op) } -> std::same_as<std::optional<double>>;
    { detail::policy_access::all_reduce_results(p, r, op) } -> std::same_as<double>;
    detail::policy_access::agree_on_call(p, detail::collective::write_blocks, n, n);
    { detail::policy_access::gather_failures(p, cr) } -> std::same_as<std::vector<failure>>;
    detail::policy_access::broadcast_value(p, value);
    { detail::policy_access::gather_stats(p, stats) } -> std::same_as<std::vector<run_stats>>;
    {
        detail::policy_access::begin_map_blocks(p, n, on_error::fail_fast, true, std::string())
        } -> std::same_as<detail::call_start>;
    { detail::policy_access::add_progress(p, n) } -> std::convertible_to<std::size_t>;
    detail::policy_access::end_map_blocks(p);
};

}  // namespace chunkwise
