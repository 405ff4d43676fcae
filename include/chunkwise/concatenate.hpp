#pragma once
/// \file
/// `concatenate`: the per-block vectors that `gather` returns, joined into one in block order
/// (standard library only). For xtensor arrays joined along axis 0: <chunkwise/hdf5.hpp>.

#include <cstddef>
#include <iterator>
#include <vector>

namespace chunkwise {

/// The vectors of `parts` joined in order: gather's per-block results as one array
/// (`concatenate(gather(policy, std::move(partial)))`; under MPI an empty vector off the root).
template <class T>
[[nodiscard]] std::vector<T> concatenate(std::vector<std::vector<T>>&& parts) {
    std::size_t total = 0;
    for (const auto& p : parts) total += p.size();
    std::vector<T> out;
    out.reserve(total);
    for (auto& p : parts) out.insert(out.end(), std::make_move_iterator(p.begin()), std::make_move_iterator(p.end()));
    parts.clear();
    return out;
}

}  // namespace chunkwise
