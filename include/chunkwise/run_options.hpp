#pragma once
/// \file
/// Production runs: `run_options` and the `map_blocks` overload that takes them — failures
/// collected instead of stopping the run, every finished block checkpointed, every block logged,
/// progress with an ETA. (Needs POSIX besides the standard library: fsync'ed checkpoint files,
/// O_APPEND log lines, isatty.)

#include <chunkwise/failure.hpp>
#include <chunkwise/map_blocks.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <variant>

namespace chunkwise {

/// One progress report of a production run, for run_options::on_progress.
struct progress_report {
    std::size_t done = 0;      ///< blocks finished so far (run or loaded from a checkpoint; all ranks)
    std::size_t total = 0;     ///< blocks in the call
    std::size_t computed = 0;  ///< of them, blocks run (not loaded)
    double elapsed = 0;        ///< seconds since the run began
    double rate = 0;           ///< blocks run per second
    double eta = -1;           ///< seconds left at that rate; -1 when not yet known
    bool final = false;        ///< the run's last report
};

}  // namespace chunkwise

// The machinery of production runs: checkpoints, the log, progress (it uses progress_report).
#include <chunkwise/detail/run/production.hpp>

namespace chunkwise {

/// Adds a line about the running block to the run's log (run_options::log), e.g. the output
/// file it wrote: "block 3: wrote out/3.csv". Does nothing outside a logged run.
inline void log_note(const std::string& text) {
    if (detail::current_reporter != nullptr && detail::current_block_label != nullptr) {
        detail::current_reporter->line(*detail::current_block_label + ": " + text);
    }
}

/// How a production run behaves. Every field is optional.
struct run_options {
    on_error errors = on_error::fail_fast;  ///< fail_fast or collect
    std::filesystem::path checkpoint;       ///< directory of finished blocks' results; empty: none
    bool progress = false;                  ///< progress with rate and ETA on stderr (drawn by the root under MPI)
    std::filesystem::path log;              ///< file to append timestamped block events to; empty: none
    /// Receives the progress instead of the line on stderr, and turns progress on (under MPI: on
    /// the root). Called from whichever thread reports, one call at a time, at most every 0.1 s
    /// and once at the end (`final`).
    std::function<void(const progress_report&)> on_progress;
    /// Receives every log line ("TIME [rank R] TEXT", no newline), with or without `log`: route
    /// them to your own logger. Called from the worker threads, one call at a time, on every rank.
    std::function<void(const std::string&)> on_log;
};

/// Runs `fn` on every element of `blocks` under `policy`, as map_blocks(policy, blocks, fn), with
/// production-run options.
///
/// \param policy serial_policy, thread_policy, mpi_policy or hybrid_policy
/// \param blocks a sized range of blocks (a partition, a vector of file names, ...)
/// \param fn called as fn(block) on every element; its result type is R (void allowed)
/// \param opts on_error::collect runs every block and reports failures in
///        partial_results::failures(); `checkpoint` saves each finished block atomically and loads
///        saved blocks instead of running them (a result that cannot be saved is kept and
///        counted in stats().checkpoint_save_failures); `log` and `progress` report every block
/// \throws block_error if a block throws under on_error::fail_fast (running blocks finish and
///         are checkpointed); std::invalid_argument if a checkpoint is asked for a result type
///         without checkpoint_traits; chunkwise::error if the log cannot be opened or the
///         checkpoint directory created. Collective under MPI.
template <class Policy, class Blocks, class BlockFn>
auto map_blocks(Policy& policy, const Blocks& blocks, BlockFn&& fn, const run_options& opts) {
    if constexpr (detail::check_map_blocks_arguments<Policy, Blocks, BlockFn>()) {
        using result_t = detail::stored_result_t<std::invoke_result_t<BlockFn&, detail::block_ref_t<Blocks>>>;
        if (opts.checkpoint.empty() && opts.log.empty() && !opts.progress && !opts.on_progress && !opts.on_log) {
            detail::plain_run around;  // without checkpoint, log or progress: the plain path
            return detail::run_blocks(policy, blocks, fn, opts.errors, around);
        }
        detail::production_run<Policy, result_t, detail::block_value_t<Blocks>> around(
            policy, opts.checkpoint, opts.log, opts.progress, static_cast<std::size_t>(std::ranges::size(blocks)),
            opts.on_progress, opts.on_log);
        return detail::run_blocks(policy, blocks, fn, opts.errors, around);
    } else {
        return partial_results<std::monostate>{};  // only the static_assert is reported
    }
}

}  // namespace chunkwise
