#pragma once
/// \file
/// What map_blocks does when a block throws (`on_error`), and how a failed block is reported
/// (`failure`).

#include <cstddef>
#include <string>

namespace chunkwise {

/// What map_blocks does when a block throws.
enum class on_error {
    fail_fast,  ///< start no new block, let running ones finish, throw block_error (the default)
    collect,    ///< run every block; report failures in partial_results::failures()
};

/// One block that failed under on_error::collect.
struct failure {
    std::size_t index = 0;  ///< the block's index (its `index` member where it has one, else its position)
    std::string block;      ///< what it covers: "items [10, 20)", a file name, ...
    int rank = 0;           ///< MPI rank it ran on (0 without MPI)
    std::string message;    ///< the exception's what()
    std::string time;       ///< when it failed, UTC, ISO 8601

    /// Equal when every field is.
    friend bool operator==(const failure&, const failure&) = default;
};

}  // namespace chunkwise
