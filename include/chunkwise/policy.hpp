#pragma once
/// \file
/// The concept every execution policy satisfies (serial_policy, thread_policy, mpi_policy,
/// hybrid_policy).

#include <chunkwise/detail/execute.hpp>

#include <concepts>
#include <cstddef>

namespace chunkwise {

/// Something `map_blocks`, `gather` and `reduce` can run on.
///
/// A policy reports `workers()` (blocks it runs at once in this process), `rank()` (its MPI rank,
/// 0 without MPI) and `is_root()` (rank 0), and runs the blocks of one call with `execute`, a
/// detail of the library: write policies by wrapping the bundled ones, not by hand.
template <class Policy>
concept execution_policy = requires(Policy& p, const Policy& cp, detail::probe_body body) {
    { cp.workers() } -> std::convertible_to<std::size_t>;
    { cp.rank() } -> std::convertible_to<int>;
    { cp.is_root() } -> std::convertible_to<bool>;
    { p.execute(std::size_t{}, body, detail::error_mode::fail_fast) } -> std::same_as<detail::exec_result>;
};

}  // namespace chunkwise
