#pragma once
/// \file
/// `serial_policy`: every block on the calling thread, in index order.

#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/stats.hpp>

#include <cstddef>
#include <vector>

namespace chunkwise {

/// Runs every block on the calling thread, one after another in index order.
///
/// The reference the other policies are checked against: same results to the bit.
class serial_policy {
public:
    /// Blocks run at once: always 1.
    [[nodiscard]] std::size_t workers() const noexcept { return 1; }
    /// Always 0 (no MPI).
    [[nodiscard]] int rank() const noexcept { return 0; }
    /// Always true (no MPI).
    [[nodiscard]] bool is_root() const noexcept { return true; }

private:
    friend struct detail::policy_access;

    // The executor (the policy contract, <chunkwise/policy.hpp>): blocks [first, last), failures
    // tagged with `rank`.
    template <class Body>
    exec_result execute_range(std::size_t first, std::size_t last, Body& body, on_error mode, int rank) {
        exec_result r = start_exec(rank, 1);
        const auto t0 = clock::now();
        {
            worker_clock busy(r.stats.workers[0]);
            for (std::size_t i = first; i < last; ++i) {
                ++busy.blocks;
                if (!run_one_block(body, i, r.failures, rank) && mode == on_error::fail_fast) {
                    break;
                }
            }
        }
        finish_stats(r.stats, seconds_since(t0));
        return r;
    }
};

}  // namespace chunkwise
