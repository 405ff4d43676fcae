#pragma once
/// \file
/// `partial_results<R>`: what one process computed in a `map_blocks` call, keyed by block index.

#include <chunkwise/failure.hpp>
#include <chunkwise/stats.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise {

/// The results this process computed, in ascending block index, with the run's statistics.
///
/// Without MPI it holds every block's result; under MPI, this rank's. `gather` and `reduce`
/// consume it (pass it with std::move); `stats()` stays readable afterwards and then also holds
/// the combine time.
template <class R>
class partial_results {
public:
    using value_type = R;  ///< one block's result

    partial_results() = default;

    /// \param total_blocks blocks in the whole partition, on all ranks
    /// \param indices block index of each value, strictly ascending, each < total_blocks
    /// \param values one result per index
    /// \param stats statistics of the run that produced them
    /// \throws std::invalid_argument if the sizes differ or the indices are not ascending and in range
    partial_results(std::size_t total_blocks, std::vector<std::size_t> indices, std::vector<R> values,
                    run_stats stats = {})
            : total_(total_blocks), indices_(std::move(indices)), values_(std::move(values)), stats_(std::move(stats)) {
        if (indices_.size() != values_.size()) {
            throw std::invalid_argument("[chunkwise.partial_results] " + std::to_string(indices_.size()) +
                                        " indices but " + std::to_string(values_.size()) + " values");
        }
        for (std::size_t k = 0; k < indices_.size(); ++k) {
            if (indices_[k] >= total_ || (k > 0 && indices_[k] <= indices_[k - 1])) {
                throw std::invalid_argument("[chunkwise.partial_results] block indices must be ascending and below " +
                                            std::to_string(total_) + "; entry " + std::to_string(k) + " is " +
                                            std::to_string(indices_[k]));
            }
        }
    }

    /// Blocks in the whole partition (on all ranks together).
    [[nodiscard]] std::size_t total_blocks() const noexcept { return total_; }
    /// Results held here.
    [[nodiscard]] std::size_t size() const noexcept { return values_.size(); }
    /// Block index of each held result, ascending.
    [[nodiscard]] const std::vector<std::size_t>& indices() const noexcept { return indices_; }
    /// The held results, in the order of indices().
    [[nodiscard]] const std::vector<R>& values() const noexcept { return values_; }
    /// The held results, in the order of indices(), for moving out.
    [[nodiscard]] std::vector<R>& values() noexcept { return values_; }
    /// Per-worker time of the run in this process (and of the combine step, once done).
    [[nodiscard]] const run_stats& stats() const noexcept { return stats_; }
    /// Per-worker time, writable: gather and reduce add their combine time here.
    [[nodiscard]] run_stats& stats() noexcept { return stats_; }

    /// Blocks of this process that failed under on_error::collect (empty otherwise), by index.
    /// gather leaves them out; reduce treats them as absent leaves of its tree.
    [[nodiscard]] const std::vector<failure>& failures() const noexcept { return failures_; }
    /// True when no block of this process failed.
    [[nodiscard]] bool ok() const noexcept { return failures_.empty(); }
    /// Positions (in the range given to map_blocks) of the failed blocks, ascending.
    [[nodiscard]] const std::vector<std::size_t>& failed_positions() const noexcept { return failed_positions_; }

    /// The number of the map_blocks call that produced these results on a distributed policy
    /// (1 for its first call on that policy; 0 without MPI or for results built by hand). Every
    /// collective checks that all ranks pass results of the same call.
    [[nodiscard]] std::uint64_t call_id() const noexcept { return call_id_; }
    /// Set by map_blocks; see call_id().
    void set_call_id(std::uint64_t id) noexcept { call_id_ = id; }

    /// True when map_blocks ran fail-fast and returned: then every rank holds all of its blocks
    /// (a failure anywhere would have thrown everywhere), which lets an MPI gather skip a check.
    [[nodiscard]] bool complete_everywhere() const noexcept { return complete_everywhere_; }
    /// Set by map_blocks; see complete_everywhere().
    void set_complete_everywhere(bool complete) noexcept { complete_everywhere_ = complete; }

    /// Records failed blocks (map_blocks does this under on_error::collect).
    /// \param failures one per failed block
    /// \param positions their positions in the range given to map_blocks, ascending
    void set_failures(std::vector<failure> failures, std::vector<std::size_t> positions) {
        failures_ = std::move(failures);
        failed_positions_ = std::move(positions);
    }

private:
    std::size_t total_ = 0;
    std::vector<std::size_t> indices_;
    std::vector<R> values_;
    run_stats stats_;
    std::vector<failure> failures_;
    std::vector<std::size_t> failed_positions_;
    bool complete_everywhere_ = false;
    std::uint64_t call_id_ = 0;
};

}  // namespace chunkwise
