#pragma once
/// \file
/// `map_blocks`: run a function on every block of a partition under a policy.

#include <chunkwise/block_error.hpp>
#include <chunkwise/detail/execute.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/policy.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace chunkwise {

namespace detail {

template <class Blocks>
using block_ref_t = std::ranges::range_reference_t<const Blocks>;

/// What map_blocks stores for a block function returning T (void becomes std::monostate).
template <class T>
using stored_result_t = std::conditional_t<std::is_void_v<T>, std::monostate, std::remove_cvref_t<T>>;

/// A short text naming what a block covers, for error messages and logs.
template <class Block>
std::string describe_block(const Block& b) {
    if constexpr (requires {
                      { b.begin } -> std::convertible_to<std::size_t>;
                      { b.end } -> std::convertible_to<std::size_t>;
                  }) {
        return "items [" + std::to_string(static_cast<std::size_t>(b.begin)) + ", " +
               std::to_string(static_cast<std::size_t>(b.end)) + ")";
    } else if constexpr (std::is_convertible_v<const Block&, std::string_view>) {
        return std::string(std::string_view(b));
    } else if constexpr (requires {
                             { b.string() } -> std::convertible_to<std::string>;
                         }) {
        return b.string();  // std::filesystem::path and the like
    } else {
        return {};
    }
}

template <class Policy, class Blocks, class BlockFn>
auto map_blocks_impl(Policy& policy, const Blocks& blocks, BlockFn& fn, error_mode mode) {
    using raw_t = std::invoke_result_t<BlockFn&, block_ref_t<Blocks>>;
    using result_t = stored_result_t<raw_t>;
    const std::size_t n = static_cast<std::size_t>(std::ranges::size(blocks));
    const auto first = std::ranges::begin(blocks);

    std::vector<std::optional<result_t>> slots(n);
    auto body = [&](std::size_t i) {
        const auto it = first + static_cast<std::ranges::range_difference_t<const Blocks>>(i);
        if constexpr (std::is_void_v<raw_t>) {
            std::invoke(fn, *it);
            slots[i].emplace();
        } else {
            slots[i].emplace(std::invoke(fn, *it));
        }
    };
    exec_result r = policy.execute(n, body, mode);

    if (mode == error_mode::fail_fast && !r.failures.empty()) {
        failure_record& f = r.failures.front();
        const auto it = first + static_cast<std::ranges::range_difference_t<const Blocks>>(f.index);
        throw block_error(f.index, f.rank, std::move(f.message), describe_block(*it), f.error);
    }

    std::vector<std::size_t> indices;
    std::vector<result_t> values;
    for (std::size_t i = 0; i < n; ++i) {
        if (slots[i]) {
            indices.push_back(i);
            values.push_back(std::move(*slots[i]));
        }
    }
    return partial_results<result_t>(n, std::move(indices), std::move(values), std::move(r.stats));
}

}  // namespace detail

/// Runs `fn` on every element of `blocks` under `policy` and returns what this process computed.
///
/// \param policy where blocks run: serial_policy, thread_policy, mpi_policy or hybrid_policy
/// \param blocks any random-access sized range; element i is block number i (typically the
///        std::vector<block> from partition())
/// \param fn called once per block with the element; its result R is kept (void becomes
///        std::monostate); it may run on any thread of the policy, several at once
/// \returns partial_results<R>: all results without MPI, this rank's under MPI
/// \throws block_error if a block throws: no block starts after the failure, running ones finish,
///         and the lowest failing block index is reported (under MPI on every rank; collective)
template <class Policy, class Blocks, class BlockFn>
auto map_blocks(Policy& policy, const Blocks& blocks, BlockFn&& fn) {
    static_assert(execution_policy<Policy>,
                  "chunkwise::map_blocks: the first argument must be an execution policy: serial_policy "
                  "(<chunkwise/serial.hpp>), thread_policy (<chunkwise/threads.hpp>), or mpi_policy / "
                  "hybrid_policy (<chunkwise/mpi.hpp>, CMake component mpi)");
    if constexpr (execution_policy<Policy>) {
        static_assert(std::ranges::random_access_range<const Blocks> && std::ranges::sized_range<const Blocks>,
                      "chunkwise::map_blocks: blocks must be a random-access sized range, such as the "
                      "std::vector<chunkwise::block> that chunkwise::partition returns");
        if constexpr (std::ranges::random_access_range<const Blocks> && std::ranges::sized_range<const Blocks>) {
            static_assert(std::invocable<BlockFn&, detail::block_ref_t<Blocks>>,
                          "chunkwise::map_blocks: the block function must be callable with one element of "
                          "blocks, e.g. [](const chunkwise::block& b) { ... }");
            if constexpr (std::invocable<BlockFn&, detail::block_ref_t<Blocks>>) {
                return detail::map_blocks_impl(policy, blocks, fn, detail::error_mode::fail_fast);
            } else {
                return partial_results<std::monostate>{};  // only the static_assert above is reported
            }
        } else {
            return partial_results<std::monostate>{};
        }
    } else {
        return partial_results<std::monostate>{};
    }
}

}  // namespace chunkwise
