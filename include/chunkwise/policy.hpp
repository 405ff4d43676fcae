#pragma once
/// \file
/// The concepts every execution policy satisfies (`execution_policy`: serial_policy,
/// thread_policy, mpi_policy, hybrid_policy) and the distributed ones add to
/// (`distributed_policy`: mpi_policy, hybrid_policy).

#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/executor.hpp>
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
/// A policy has four members:
/// - `workers()`: blocks it runs at once in this process;
/// - `rank()`: its MPI rank (0 without MPI), and `is_root()`: rank 0;
/// - `execute_range(first, last, body, mode, rank)` (public, or private with `friend struct
///   chunkwise::detail::policy_access;`): calls `body(i)` for every block index i in
///   [first, last) on its workers, catching each block's exception (run_one_block does it);
///   under on_error::fail_fast starts no block after one failed; and returns an exec_result: one
///   worker_stats per worker (time a worker's stretch of blocks with worker_clock), the failures
///   (failure_record, tagged with `rank`) sorted by index, and finish_stats(result.stats, wall)
///   called last. Everything it needs is in <chunkwise/executor.hpp>.
/// map_blocks derives the rest (running all n blocks is execute_range(0, n, ...)). A policy that
/// pins workers to cores, or runs blocks on a task runtime, is such a class (one is compiled in
/// the tests: tests/core/test_user_policy.cpp); docs/architecture.md says the same.
template <class Policy>
concept execution_policy = requires(Policy& p, const Policy& cp, detail::probe_body body) {
    { cp.workers() } -> std::convertible_to<std::size_t>;
    { cp.rank() } -> std::convertible_to<int>;
    { cp.is_root() } -> std::convertible_to<bool>;
    {
        detail::policy_access::execute_range(p, std::size_t{}, std::size_t{}, body, on_error::fail_fast, 0)
        } -> std::same_as<exec_result>;
};

/// An execution policy across MPI ranks: it names every collective hook that map_blocks,
/// gather, reduce, all_gather, all_reduce, gather_failures, gather_stats, synchronize,
/// h5::write_blocks and zarr::write_blocks use (each called by every rank together; each starts by checking that every
/// rank makes the same call on results of the same map_blocks call), plus `size()` (ranks) and `communicator()`. Its
/// `execute(n, body, mode)` runs a map_blocks call's blocks across the ranks (collective). gather and friends dispatch
/// on this concept; serial_policy and thread_policy do not satisfy it.
template <class Policy>
concept distributed_policy = execution_policy<Policy> &&
    requires(Policy& p, const Policy& cp, partial_results<double>& r, const partial_results<double>& cr,
             detail::probe_op& op, double& value, std::size_t n, const run_stats& stats, detail::probe_body body) {
    { cp.size() } -> std::convertible_to<int>;
    cp.communicator();
    { detail::policy_access::execute_distributed(p, n, body, on_error::fail_fast) } -> std::same_as<exec_result>;
    { detail::policy_access::gather_results(p, r) } -> std::same_as<std::vector<double>>;
    { detail::policy_access::all_gather_results(p, r) } -> std::same_as<std::vector<double>>;
    { detail::policy_access::reduce_results(p, r, op) } -> std::same_as<std::optional<double>>;
    { detail::policy_access::all_reduce_results(p, r, op) } -> std::same_as<double>;
    detail::policy_access::agree_on_call(p, "probe", n, n);
    { detail::policy_access::agree_on_problem(p, std::string()) } -> std::same_as<std::string>;
    detail::policy_access::check_same(p, "probe", std::string());
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
