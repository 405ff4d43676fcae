#pragma once
// Internal: the counts that environment variables give (CHUNKWISE_NUM_THREADS,
// CHUNKWISE_ZARR_REMOVERS, CHUNKWISE_HDF5_MMAP), read one way everywhere.

#include <charconv>
#include <optional>
#include <string_view>

namespace chunkwise::detail {

/// `text` as a decimal count from `min` to `max`: digits only (no sign, space or suffix), else nullopt.
inline std::optional<unsigned long long> env_count(std::string_view text, unsigned long long min,
                                                   unsigned long long max) noexcept {
    unsigned long long n = 0;
    const char* const last = text.data() + text.size();
    if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
    const auto [end, ec] = std::from_chars(text.data(), last, n);
    if (ec != std::errc{} || end != last || n < min || n > max) return std::nullopt;
    return n;
}

}  // namespace chunkwise::detail
