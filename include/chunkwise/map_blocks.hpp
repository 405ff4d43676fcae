#pragma once
/// \file
/// `map_blocks`: run a function on every block of a partition under a policy. (The overload
/// with `run_options` — failures collected, checkpoints, log, progress — is in
/// <chunkwise/run_options.hpp>.)

#include <chunkwise/block_error.hpp>
#include <chunkwise/detail/core/block_identity.hpp>
#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/failure.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/policy.hpp>

#include <concepts>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace chunkwise {

namespace detail {

template <class Blocks>
using block_ref_t = std::ranges::range_reference_t<const Blocks>;

template <class Blocks>
using block_value_t = std::remove_cvref_t<block_ref_t<Blocks>>;

/// What map_blocks stores for a block function returning T (void becomes std::monostate).
template <class T>
using stored_result_t = std::conditional_t<std::is_void_v<T>, std::monostate, std::remove_cvref_t<T>>;

/// A stand-in for the computation block hooks wrap (only to state the concept).
struct probe_compute {
    void operator()() const {}
};

/// What runs around each block of a map_blocks call, the one place a run's per-block behaviour is
/// plugged in: `plain_run` (nothing) or a production run's checkpoints, log and progress
/// (detail/run/production.hpp). run_blocks calls, in order: progress_wanted() and problem() (what
/// this process asks for and could not set up; agreed across ranks), begin(progress), start(n,
/// workers), then block(i, element, slot, compute) once per block on any worker thread (it calls
/// compute(), which fills slot, or fills slot itself from a checkpoint), finished(result),
/// failed(index) on a fail-fast failure, loaded() (blocks taken from a checkpoint), and
/// ended(values, n, failures).
template <class Hooks, class Result, class Block>
concept block_hooks = requires(Hooks& h, const Hooks& ch, std::size_t i, const Block& b, std::optional<Result>& slot,
                               exec_result& r, const std::vector<Result>& values) {
    { ch.progress_wanted() } -> std::convertible_to<bool>;
    { ch.problem() } -> std::convertible_to<std::string>;
    h.begin(true);
    h.start(i, i);
    h.block(i, b, slot, probe_compute{});
    h.finished(r);
    h.failed(i);
    { ch.loaded() } -> std::convertible_to<std::size_t>;
    h.ended(values, i, i);
};

/// What runs around each block of a plain map_blocks call: nothing. A production run
/// (<chunkwise/run_options.hpp>) puts checkpoints, log lines and progress here instead.
struct plain_run {
    [[nodiscard]] bool progress_wanted() const noexcept { return false; }
    [[nodiscard]] std::string problem() const { return {}; }
    void begin(bool) {}
    void start(std::size_t, std::size_t) {}
    template <class Block, class Result, class Compute>
    void block(std::size_t, const Block&, std::optional<Result>&, Compute&& compute) {
        compute();
    }
    void finished(const exec_result&) {}
    void failed(std::size_t) {}
    [[nodiscard]] std::size_t loaded() const noexcept { return 0; }
    template <class Values>
    void ended(const Values&, std::size_t, std::size_t) {}
};

/// The algorithm behind every map_blocks: run fn on every element under policy (through the
/// policy's executor), with `around` wrapped about each block; collect the results in block
/// order; turn a fail-fast failure into block_error, collected failures into `failure`s.
template <class Policy, class Blocks, class BlockFn, class Around>
auto run_blocks(Policy& policy, const Blocks& blocks, BlockFn& fn, on_error mode, Around& around) {
    using raw_t = std::invoke_result_t<BlockFn&, block_ref_t<Blocks>>;
    using result_t = stored_result_t<raw_t>;
    using identity = block_identity<block_value_t<Blocks>>;
    static_assert(block_hooks<Around, result_t, block_value_t<Blocks>>,
                  "chunkwise: the hooks around each block must provide every member of detail::block_hooks");
    const std::size_t n = static_cast<std::size_t>(std::ranges::size(blocks));
    const auto first = std::ranges::begin(blocks);
    auto element = [&](std::size_t i) -> decltype(auto) {
        return *(first + static_cast<std::ranges::range_difference_t<const Blocks>>(i));
    };

    // Under MPI every map_blocks starts with the ranks agreeing on the call (and on progress, and
    // on any rank's set-up problem) and ends with a collective clean-up, whichever path it takes.
    struct call_end {
        Policy& policy;
        bool begun = false;
        ~call_end() {
            if constexpr (distributed_policy<Policy>) {
                if (begun) policy_access::end_map_blocks(policy);
            }
        }
    } ending{policy};
    std::uint64_t call = 0;
    if constexpr (distributed_policy<Policy>) {
        const call_start start =
            policy_access::begin_map_blocks(policy, n, mode, around.progress_wanted(), around.problem());
        ending.begun = true;
        call = start.call;
        around.begin(start.progress);
    } else {
        around.begin(around.progress_wanted());
    }
    around.start(n, policy.workers());
    std::vector<std::optional<result_t>> slots(n);
    auto body = [&](std::size_t i) {
        decltype(auto) b = element(i);
        std::optional<result_t>& slot = slots[i];
        around.block(i, b, slot, [&] {
            if constexpr (std::is_void_v<raw_t>) {
                std::invoke(fn, b);
                slot.emplace();
            } else {
                slot.emplace(std::invoke(fn, b));
            }
        });
    };
    exec_result r = policy_access::execute(policy, n, body, mode);
    around.finished(r);

    if (mode == on_error::fail_fast && !r.failures.empty()) {
        failure_record& f = r.failures.front();
        around.failed(f.index);
        throw block_error(f.index, f.rank, std::move(f.message), identity::description(element(f.index)), f.error);
    }

    std::vector<std::size_t> indices;
    std::vector<result_t> values;
    indices.reserve(n - r.failures.size());
    values.reserve(n - r.failures.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (slots[i]) {
            indices.push_back(i);
            values.push_back(std::move(*slots[i]));
        }
    }
    std::vector<failure> failures;
    std::vector<std::size_t> failed;
    if (!r.failures.empty()) {
        const std::string when = utc_now();
        for (const failure_record& f : r.failures) {
            decltype(auto) b = element(f.index);
            failures.push_back(failure{identity::index(b, f.index), identity::description(b), f.rank, f.message, when});
            failed.push_back(f.index);
        }
    }
    around.ended(values, n, failures.size());
    r.stats.from_checkpoint = around.loaded();
    partial_results<result_t> out(n, std::move(indices), std::move(values), std::move(r.stats));
    out.set_failures(std::move(failures), std::move(failed));
    out.set_complete_everywhere(mode == on_error::fail_fast);
    out.set_call_id(call);
    return out;
}

/// One sentence per way to get map_blocks wrong; true when the arguments are usable.
template <class Policy, class Blocks, class BlockFn>
constexpr bool check_map_blocks_arguments() {
    static_assert(execution_policy<Policy>,
                  "chunkwise::map_blocks: the first argument must be an execution policy: serial_policy "
                  "(<chunkwise/serial.hpp>), thread_policy (<chunkwise/threads.hpp>), or mpi_policy / "
                  "hybrid_policy (<chunkwise/mpi.hpp>, CMake component mpi)");
    if constexpr (execution_policy<Policy>) {
        static_assert(std::ranges::random_access_range<const Blocks> && std::ranges::sized_range<const Blocks>,
                      "chunkwise::map_blocks: blocks must be a random-access sized range, such as the "
                      "std::vector<chunkwise::block> that chunkwise::partition returns");
        if constexpr (std::ranges::random_access_range<const Blocks> && std::ranges::sized_range<const Blocks>) {
            static_assert(std::invocable<BlockFn&, block_ref_t<Blocks>>,
                          "chunkwise::map_blocks: the block function must be callable with one element of "
                          "blocks, e.g. [](const chunkwise::block& b) { ... }");
            return std::invocable<BlockFn&, block_ref_t<Blocks>>;
        }
    }
    return false;
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
/// \throws block_error if a block throws: no block starts after the failure, running ones
///         finish, and the lowest failing block index is reported (under MPI on every rank;
///         collective)
template <class Policy, class Blocks, class BlockFn>
auto map_blocks(Policy& policy, const Blocks& blocks, BlockFn&& fn) {
    if constexpr (detail::check_map_blocks_arguments<Policy, Blocks, BlockFn>()) {
        detail::plain_run around;
        return detail::run_blocks(policy, blocks, fn, on_error::fail_fast, around);
    } else {
        return partial_results<std::monostate>{};  // only the static_assert above is reported
    }
}

}  // namespace chunkwise
