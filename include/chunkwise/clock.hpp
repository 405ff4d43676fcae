#pragma once
/// \file
/// The clock every timing of chunkwise uses (statistics, logs, the scaling harness), for programs
/// and policies that time work the same way.

#include <chrono>

namespace chunkwise {

/// The clock of every chunkwise timing: monotonic, never adjusted.
using clock = std::chrono::steady_clock;

/// Seconds from `t0` to now, on chunkwise::clock.
[[nodiscard]] inline double seconds_since(clock::time_point t0) noexcept {
    return std::chrono::duration<double>(clock::now() - t0).count();
}

}  // namespace chunkwise
