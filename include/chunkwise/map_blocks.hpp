#pragma once
/// \file
/// `map_blocks`: run a function on every block of a partition under a policy.

#include <chunkwise/block_error.hpp>
#include <chunkwise/checkpoint.hpp>
#include <chunkwise/detail/reporter.hpp>
#include <chunkwise/detail/execute.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/run_options.hpp>

#include <atomic>
#include <concepts>
#include <cstdio>
#include <cstddef>
#include <functional>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <thread>
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

/// The block's identity in logs, checkpoints and failure reports: its `index` member where it
/// has one (so a re-run of some blocks keeps their numbers), else its position in the range.
template <class Block>
std::size_t block_key(const Block& b, std::size_t position) {
    if constexpr (requires { { b.index } -> std::convertible_to<std::size_t>; }) {
        return static_cast<std::size_t>(b.index);
    } else {
        return position;
    }
}

template <class Policy, class Blocks, class BlockFn>
auto map_blocks_impl(Policy& policy, const Blocks& blocks, BlockFn& fn, const run_options& opt) {
    using raw_t = std::invoke_result_t<BlockFn&, block_ref_t<Blocks>>;
    using result_t = stored_result_t<raw_t>;
    const error_mode mode = opt.errors == on_error::collect ? error_mode::collect : error_mode::fail_fast;
    const std::size_t n = static_cast<std::size_t>(std::ranges::size(blocks));
    const auto first = std::ranges::begin(blocks);
    auto element = [&](std::size_t i) -> decltype(auto) {
        return *(first + static_cast<std::ranges::range_difference_t<const Blocks>>(i));
    };

    // Checkpoints: a file per block, keyed by block_key (and, for blocks without an index, by
    // the hash of their description), holding the result type and the block's description.
    std::optional<checkpoint_store> store;
    std::string type_name;
    if (!opt.checkpoint.empty()) {
        if constexpr (checkpointable<result_t>) {
            store.emplace(opt.checkpoint);
            type_name = checkpoint_traits<result_t>::type_name();
        } else {
            throw std::invalid_argument(
                "[chunkwise.checkpoint] the block function's result type has no checkpoint_traits "
                "specialization; specialize chunkwise::checkpoint_traits<R> (see <chunkwise/checkpoint.hpp>)");
        }
    }
    const bool reporting = !opt.log.empty() || opt.progress;
    std::optional<run_reporter> reporter;
    if (reporting) reporter.emplace(opt, n, policy.rank(), policy.is_root());
    auto checkpoint_key = [&](const auto& b, std::size_t i, const std::string& description) {
        if constexpr (requires { { b.index } -> std::convertible_to<std::size_t>; }) {
            (void)description;
            return std::to_string(block_key(b, i));
        } else {
            char hex[17];
            std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(description)));
            return std::string("item-") + hex;
        }
    };

    // Progress counts: blocks done here; under MPI the thread that called map_blocks (the only
    // one that talks to MPI) adds them to a counter on the root, which draws the progress line.
    constexpr bool distributed = requires { policy.begin_progress(); };
    const auto caller = std::this_thread::get_id();
    std::atomic<std::size_t> done_here{0}, computed_here{0};
    std::size_t flushed = 0;
    auto tick = [&] {
        if (!opt.progress) return;
        if constexpr (distributed) {
            if (std::this_thread::get_id() != caller) return;
            const std::size_t now = done_here.load();
            const std::size_t global = policy.add_progress(now - flushed);
            flushed = now;
            if (policy.is_root()) reporter->progress(global, computed_here.load());
        } else {
            reporter->progress(done_here.load(), computed_here.load());
        }
    };
    if constexpr (distributed) {
        if (opt.progress) policy.begin_progress();
    }
    struct progress_end {
        Policy& p;
        bool on;
        ~progress_end() {
            if constexpr (distributed) {
                if (on) p.end_progress();  // collective: every rank gets here
            }
        }
    } progress_guard{policy, distributed && opt.progress};
    if (reporter && reporter->logging()) {
        reporter->line("run start: " + std::to_string(n) + " blocks on " + std::to_string(policy.workers()) +
                       " workers" + (store ? ", checkpoint " + store->dir().string() : std::string()));
    }

    std::vector<std::optional<result_t>> slots(n);
    std::vector<unsigned char> loaded(store ? n : 0, 0);
    // Per block, only what is used: the description for the log and the checkpoint, the
    // checkpoint's file key, the log's label (a progress-only run builds no strings).
    const bool logging = reporter && reporter->logging();
    auto body = [&](std::size_t i) {
        decltype(auto) b = element(i);
        const std::string description = logging || store ? describe_block(b) : std::string();
        const std::string key = store ? checkpoint_key(b, i, description) : std::string();
        const std::string label =
            logging ? "block " + std::to_string(block_key(b, i)) + (description.empty() ? "" : " (" + description + ")")
                    : std::string();
        if constexpr (checkpointable<result_t>) {
            if (store) {
                if (auto bytes = store->load(key, type_name, description)) {
                    slots[i].emplace(checkpoint_traits<result_t>::load(*bytes));
                    loaded[i] = 1;
                    if (logging) reporter->line("loaded " + label + " from checkpoint");
                    done_here.fetch_add(1);
                    tick();
                    return;
                }
            }
        }
        if (logging) reporter->line("start " + label);
        const auto t0 = clock::now();
        current_reporter = logging ? &*reporter : nullptr;
        current_block_label = &label;
        try {
            if constexpr (std::is_void_v<raw_t>) {
                std::invoke(fn, b);
                slots[i].emplace();
            } else {
                slots[i].emplace(std::invoke(fn, b));
            }
            if constexpr (checkpointable<result_t>) {
                if (store) {
                    std::string payload;
                    checkpoint_traits<result_t>::save(*slots[i], payload);
                    store->save(key, type_name, description, payload);
                }
            }
        } catch (...) {
            current_reporter = nullptr;
            current_block_label = nullptr;
            slots[i].reset();
            if (logging) {
                reporter->line("FAILED " + label + " after " + std::to_string(seconds_since(t0)) + " s: " +
                               describe_exception(std::current_exception()));
            }
            done_here.fetch_add(1);
            tick();
            throw;
        }
        current_reporter = nullptr;
        current_block_label = nullptr;
        if (logging) reporter->line("end " + label + " " + std::to_string(seconds_since(t0)) + " s");
        computed_here.fetch_add(1);
        done_here.fetch_add(1);
        tick();
    };
    // Without checkpoint, log or progress a block is only the call and the store of its result.
    auto plain_body = [&](std::size_t i) {
        if constexpr (std::is_void_v<raw_t>) {
            std::invoke(fn, element(i));
            slots[i].emplace();
        } else {
            slots[i].emplace(std::invoke(fn, element(i)));
        }
    };
    exec_result r = reporting || store ? policy.execute(n, body, mode) : policy.execute(n, plain_body, mode);
    if constexpr (distributed) {
        if (opt.progress) {
            const std::size_t global = policy.add_progress(done_here.load() - flushed);
            if (policy.is_root()) reporter->progress(global, computed_here.load(), true);
        }
    } else {
        if (opt.progress) reporter->progress(done_here.load(), computed_here.load(), true);
    }

    if (mode == error_mode::fail_fast && !r.failures.empty()) {
        failure_record& f = r.failures.front();
        if (reporter && reporter->logging()) reporter->line("run failed: block " + std::to_string(f.index));
        throw block_error(f.index, f.rank, std::move(f.message), describe_block(element(f.index)), f.error);
    }

    std::vector<std::size_t> indices;
    std::vector<result_t> values;
    std::size_t from_checkpoint = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (slots[i]) {
            indices.push_back(i);
            values.push_back(std::move(*slots[i]));
            if (store && loaded[i]) ++from_checkpoint;
        }
    }
    std::vector<failure> failures;
    std::vector<std::size_t> failed;
    const std::string when = r.failures.empty() ? std::string() : utc_now();
    for (const failure_record& f : r.failures) {
        decltype(auto) b = element(f.index);
        failures.push_back(failure{block_key(b, f.index), describe_block(b), f.rank, f.message, when});
        failed.push_back(f.index);
    }
    if (reporter && reporter->logging()) {
        reporter->line("run end: " + std::to_string(values.size()) + " of " + std::to_string(n) + " blocks here (" +
                       std::to_string(failures.size()) + " failed, " + std::to_string(from_checkpoint) +
                       " from checkpoint) in " + std::to_string(reporter->elapsed()) + " s");
    }
    r.stats.from_checkpoint = from_checkpoint;
    partial_results<result_t> out(n, std::move(indices), std::move(values), std::move(r.stats));
    out.set_failures(std::move(failures), std::move(failed));
    out.set_complete_everywhere(mode == error_mode::fail_fast);
    return out;
}

}  // namespace detail

/// Runs `fn` on every element of `blocks` under `policy` and returns what this process computed.
///
/// \param policy where blocks run: serial_policy, thread_policy, mpi_policy or hybrid_policy
/// \param blocks any random-access sized range; element i is block number i (typically the
///        std::vector<block> from partition())
/// \param fn called once per block with the element; its result R is kept (void becomes
///        std::monostate); it may run on any thread of the policy, several at once
/// \param opts production-run options (see run_options.hpp): on_error::collect runs every block
///        and reports failures in partial_results::failures(); `checkpoint` saves each finished
///        block atomically and loads saved blocks instead of running them; `log` and `progress`
///        report every block
/// \returns partial_results<R>: all results without MPI, this rank's under MPI
/// \throws block_error if a block throws under on_error::fail_fast: no block starts after the
///         failure, running ones finish (and are checkpointed), and the lowest failing block index
///         is reported (under MPI on every rank; collective)
template <class Policy, class Blocks, class BlockFn>
auto map_blocks(Policy& policy, const Blocks& blocks, BlockFn&& fn, const run_options& opts) {
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
                return detail::map_blocks_impl(policy, blocks, fn, opts);
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

/// map_blocks with the defaults: fail fast, no checkpoint, no log, no progress.
template <class Policy, class Blocks, class BlockFn>
auto map_blocks(Policy& policy, const Blocks& blocks, BlockFn&& fn) {
    return map_blocks(policy, blocks, std::forward<BlockFn>(fn), run_options{});
}

}  // namespace chunkwise
