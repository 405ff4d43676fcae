#pragma once
/// \file
/// The exception `map_blocks` throws when a block's function throws.

#include <chunkwise/error.hpp>

#include <cstddef>
#include <exception>
#include <string>
#include <utility>

namespace chunkwise {

/// A block's function threw: which block, on which rank, and the original message (a chunkwise::error).
///
/// `what()` reads "[chunkwise.block_error] block I (DESCRIPTION) failed on rank R: MESSAGE".
/// Under MPI every rank throws the same error, including ranks whose own blocks succeeded.
class block_error : public error {
public:
    /// \param block_index index of the failed block in its partition
    /// \param rank MPI rank the block ran on (0 without MPI)
    /// \param message the original exception's `what()`
    /// \param description what the block covers, e.g. "rows [10, 20)"; may be empty
    /// \param original the original exception where it was thrown in this process, else null
    block_error(std::size_t block_index, int rank, std::string message, const std::string& description = {},
                std::exception_ptr original = nullptr)
            : error(format(block_index, rank, message, description)),
              index_(block_index),
              rank_(rank),
              message_(std::move(message)),
              original_(std::move(original)) {}

    /// Index of the failed block in its partition.
    [[nodiscard]] std::size_t block_index() const noexcept { return index_; }
    /// MPI rank the block ran on; 0 without MPI.
    [[nodiscard]] int rank() const noexcept { return rank_; }
    /// The original exception's `what()` (or a note that it was not a std::exception).
    [[nodiscard]] const std::string& message() const noexcept { return message_; }
    /// The original exception, for `std::rethrow_exception`; null when it was thrown on another rank.
    [[nodiscard]] std::exception_ptr original() const noexcept { return original_; }

private:
    static std::string format(std::size_t index, int rank, const std::string& message, const std::string& description) {
        std::string s = "[chunkwise.block_error] block " + std::to_string(index);
        if (!description.empty()) s += " (" + description + ")";
        s += " failed on rank " + std::to_string(rank) + ": " + message;
        return s;
    }

    std::size_t index_;
    int rank_;
    std::string message_;
    std::exception_ptr original_;
};

}  // namespace chunkwise
