#pragma once
/// \file
/// `concatenate` of xtensor arrays: per-block arrays (what `gather` returns) joined along axis 0
/// in block order. (Vectors: <chunkwise/concatenate.hpp>.)

#include <chunkwise/concatenate.hpp>
#include <chunkwise/detail/tensor/xtensor.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise {

/// The arrays of `parts` joined along axis 0 in order (every other axis must agree): gather's
/// per-block results as one array (`concatenate(gather(policy, std::move(partial)))`; under MPI
/// an empty array off the root).
/// \throws std::invalid_argument naming the first block whose extents beyond axis 0 differ from
///         block 0's
template <class T, std::size_t N>
[[nodiscard]] xt::xtensor<T, N> concatenate(std::vector<xt::xtensor<T, N>>&& parts) {
    static_assert(N >= 1, "chunkwise::concatenate: arrays of rank 1 or more");
    std::array<std::size_t, N> shape{};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto& s = parts[i].shape();
        if (i == 0) {
            for (std::size_t d = 0; d < N; ++d) shape[d] = s[d];
            continue;
        }
        for (std::size_t d = 1; d < N; ++d) {
            if (s[d] != shape[d]) {
                auto text = [](const auto& v) {
                    std::string t = "(";
                    for (std::size_t k = 0; k < N; ++k) t += (k ? ", " : "") + std::to_string(v[k]);
                    return t + ")";
                };
                std::array<std::size_t, N> got{};
                for (std::size_t k = 0; k < N; ++k) got[k] = s[k];
                throw std::invalid_argument("[chunkwise.concatenate] block " + std::to_string(i) + " has shape " +
                                            text(got) + ", block 0 " + text(shape) +
                                            ": every axis but the first must agree");
            }
        }
        shape[0] += s[0];
    }
    auto out = xt::xtensor<T, N>::from_shape(shape);
    std::size_t at = 0;
    for (auto& p : parts) {
        std::copy(p.data(), p.data() + p.size(), out.data() + at);
        at += p.size();
    }
    parts.clear();
    return out;
}

}  // namespace chunkwise
