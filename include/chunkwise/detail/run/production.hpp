#pragma once
// Internal: what runs around each block of a production run (map_blocks with run_options):
// the checkpoint (load a finished block instead of running it; save each result), the log
// (timestamped start/end/failure lines) and the progress line (under MPI drawn by the root for
// the whole run, from a counter every rank adds to). Plugged into detail::run_blocks in place of
// plain_run.
#include <chunkwise/checkpoint.hpp>
#include <chunkwise/detail/core/block_identity.hpp>
#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/detail/run/checkpoint_store.hpp>
#include <chunkwise/detail/run/reporter.hpp>
#include <chunkwise/policy.hpp>

#include <atomic>
#include <cstdio>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

namespace chunkwise::detail {

template <class Policy, class Result, class Block>
class production_run {
public:
    static constexpr bool distributed = distributed_policy<Policy>;
    using identity = block_identity<std::remove_cvref_t<Block>>;

    production_run(Policy& policy, const std::filesystem::path& checkpoint, const std::filesystem::path& log,
                   bool progress, std::size_t total, std::function<void(const progress_report&)> on_progress = {},
                   std::function<void(const std::string&)> on_log = {})
            : policy_(policy),
              caller_(std::this_thread::get_id()),
              wanted_(progress || static_cast<bool>(on_progress)),
              total_(total),
              on_progress_(std::move(on_progress)),
              on_log_(std::move(on_log)) {
        if (!checkpoint.empty()) {
            if constexpr (!identity::nameable) {
                throw std::invalid_argument(
                    "[chunkwise.checkpoint] the blocks have no index, no range and no name, so a checkpoint "
                    "could only key them by their position in the list, and a list reordered or extended "
                    "between runs would load one element's result into another. Name each element: give "
                    "it a std::size_t `index` member that identifies it (or `begin`/`end` members), or "
                    "make it convertible to std::string_view (a stable name), or map over "
                    "chunkwise::partition's blocks and look your items up by block index");
            } else if constexpr (checkpointable<Result>) {
                set_up([&] {
                    store_.emplace(checkpoint, policy.rank());
                    type_name_ = checkpoint_traits<Result>::type_name();
                });
            } else {
                throw std::invalid_argument(
                    "[chunkwise.checkpoint] the block function's result type has no checkpoint_traits "
                    "specialization; specialize chunkwise::checkpoint_traits<R> (see <chunkwise/checkpoint.hpp>)");
            }
        }
        if (!log.empty() || on_log_) {
            set_up([&] {
                reporter_.emplace(log, false, total, policy.rank(), policy.is_root());
                reporter_->set_callbacks(on_progress_, on_log_);
            });
        }
    }
    production_run(const production_run&) = delete;
    production_run& operator=(const production_run&) = delete;

    /// Whether this process asked for progress.
    [[nodiscard]] bool progress_wanted() const noexcept { return wanted_; }
    /// What failed while setting up (log, checkpoint folder) under MPI, agreed before any block.
    [[nodiscard]] const std::string& problem() const noexcept { return problem_; }

    /// Starts the run; `progress`: draw progress (under MPI: some rank asked for it).
    void begin(bool progress) {
        progress_ = progress;
        if (progress_) {
            if (!reporter_) {
                reporter_.emplace(std::filesystem::path(), true, total_, policy_.rank(), policy_.is_root());
                reporter_->set_callbacks(on_progress_, on_log_);
            }
            reporter_->set_progress(true);
        }
        logging_ = reporter_ && reporter_->logging();
    }

    void start(std::size_t n, std::size_t workers) {
        if (logging_) {
            reporter_->line("run start: " + std::to_string(n) + " blocks on " + std::to_string(workers) + " workers" +
                            (store_ ? ", checkpoint " + store_->dir().string() : std::string()));
        }
        // What opening the checkpoint found: a torn tail cut off (in the log), entries skipped (in
        // the log, or on stderr where there is none).
        if (store_) {
            for (const std::string& note : store_->notes()) {
                if (logging_) reporter_->line(note);
            }
            for (const std::string& warning : store_->warnings()) {
                if (logging_) {
                    reporter_->line(warning);
                } else {
                    std::fprintf(stderr, "[chunkwise] %s\n", warning.c_str());
                }
            }
        }
    }

    template <class Compute>
    void block(std::size_t i, const Block& b, std::optional<Result>& slot, Compute&& compute) {
        // Per block, only what is used: the description for the log and the checkpoint, the
        // checkpoint's file key, the log's label (a progress-only run builds no strings).
        const std::string description = logging_ || store_ ? identity::description(b) : std::string();
        const std::string key = store_ ? identity::key(b, i, description) : std::string();
        const std::string label = logging_ ? "block " + std::to_string(identity::index(b, i)) +
                                                 (description.empty() ? "" : " (" + description + ")")
                                           : std::string();
        if constexpr (checkpointable<Result>) {
            if (store_ && key.empty()) {
                note_once(unnamed_, label +
                                        ": not checkpointed: its name is empty (later unnamed blocks are not "
                                        "mentioned again)");
            } else if (store_) {
                if (auto bytes = store_->load(key, type_name_, description)) {
                    // A checkpoint is a cache: a record its type cannot decode is a miss, never a failure.
                    try {
                        slot.emplace(checkpoint_traits<Result>::load(*bytes));
                    } catch (const std::exception& e) {
                        slot.reset();
                        if (logging_) {
                            reporter_->line("checkpoint of " + label + " cannot be decoded (" + e.what() +
                                            "): computed again");
                        }
                    }
                    if (slot) {
                        loaded_.fetch_add(1, std::memory_order_relaxed);
                        if (logging_) reporter_->line("loaded " + label + " from checkpoint");
                        tick(false);
                        return;
                    }
                }
            }
        }
        if (logging_) reporter_->line("start " + label);
        const auto t0 = clock::now();
        current_reporter = logging_ ? &*reporter_ : nullptr;
        current_block_label = &label;
        try {
            compute();
        } catch (...) {
            current_reporter = nullptr;
            current_block_label = nullptr;
            slot.reset();
            if (logging_) {
                reporter_->line("FAILED " + label + " after " + std::to_string(seconds_since(t0)) +
                                " s: " + describe_exception(std::current_exception()));
            }
            tick(false);
            throw;
        }
        current_reporter = nullptr;
        current_block_label = nullptr;
        if constexpr (checkpointable<Result>) {
            if (store_ && !key.empty()) save(key, description, *slot, label);
        }
        if (logging_) reporter_->line("end " + label + " " + std::to_string(seconds_since(t0)) + " s");
        tick(true);
    }

    void finished(exec_result& r) {
        r.stats.checkpoint_save_failures = save_failures_.load();
        if (!progress_) return;
        if constexpr (distributed) {
            const std::size_t global = policy_access::add_progress(policy_, done_.load() - flushed_);
            flushed_ = done_.load();
            if (policy_.is_root()) reporter_->progress(global, computed_.load(), true);
        } else {
            reporter_->progress(done_.load(), computed_.load(), true);
        }
    }

    void failed(std::size_t index) {
        if (logging_) reporter_->line("run failed: block " + std::to_string(index));
    }

    [[nodiscard]] std::size_t loaded() const noexcept { return loaded_.load(); }

    template <class Values>
    void ended(const Values& values, std::size_t total, std::size_t failures) {
        if (logging_) {
            reporter_->line(
                "run end: " + std::to_string(values.size()) + " of " + std::to_string(total) + " blocks here (" +
                std::to_string(failures) + " failed, " + std::to_string(loaded_.load()) + " from checkpoint" +
                (save_failures_.load() > 0 ? ", " + std::to_string(save_failures_.load()) + " not checkpointed"
                                           : std::string()) +
                ") in " + std::to_string(reporter_->elapsed()) + " s");
        }
    }

private:
    // A checkpoint is a cache: a result that cannot be saved (full or read-only disk) is kept,
    // counted (run_stats::checkpoint_save_failures) and logged once with the reason.
    void save(const std::string& key, const std::string& description, const Result& value, const std::string& label) {
        try {
            std::string payload;
            checkpoint_traits<Result>::save(value, payload);
            store_->save(key, type_name_, description, payload);
        } catch (const std::exception& e) {
            if (save_failures_.fetch_add(1) == 0) {
                const std::string text = std::string(
                                             "checkpoint not saved (results are kept; later save failures "
                                             "are only counted): ") +
                                         e.what();
                if (logging_) reporter_->line(label + ": " + text);
                if (!logging_) std::fprintf(stderr, "[chunkwise] %s\n", text.c_str());
            }
        }
    }

    // One line about a kind of event, the first time it happens (in the log, or on stderr).
    void note_once(std::atomic<bool>& said, const std::string& text) {
        if (said.exchange(true)) return;
        if (logging_) {
            reporter_->line(text);
        } else {
            std::fprintf(stderr, "[chunkwise] %s\n", text.c_str());
        }
    }

    // Progress counts: blocks done here; under MPI the thread that called map_blocks (the only one
    // that talks to MPI) adds them to a counter on the root, which draws the progress line.
    void tick(bool computed) {
        if (computed) computed_.fetch_add(1, std::memory_order_relaxed);
        done_.fetch_add(1, std::memory_order_relaxed);
        if (!progress_) return;
        if constexpr (distributed) {
            if (std::this_thread::get_id() != caller_) return;
            const std::size_t now = done_.load();
            const std::size_t global = policy_access::add_progress(policy_, now - flushed_);
            flushed_ = now;
            if (policy_.is_root()) reporter_->progress(global, computed_.load());
        } else {
            reporter_->progress(done_.load(), computed_.load());
        }
    }

    // Runs one set-up step: under MPI a failure becomes problem() (all ranks then agree and throw
    // it together); otherwise it is thrown here.
    template <class Step>
    void set_up(Step&& step) {
        if constexpr (distributed) {
            try {
                step();
            } catch (const std::exception& e) {
                if (problem_.empty()) problem_ = e.what();
            }
        } else {
            step();
        }
    }

    Policy& policy_;
    std::thread::id caller_;
    bool wanted_ = false;
    std::size_t total_ = 0;
    bool progress_ = false;
    bool logging_ = false;
    std::string problem_;
    std::optional<checkpoint_store> store_;
    std::string type_name_;
    std::optional<run_reporter> reporter_;
    std::function<void(const progress_report&)> on_progress_;
    std::function<void(const std::string&)> on_log_;
    std::atomic<std::size_t> done_{0}, computed_{0}, loaded_{0}, save_failures_{0};
    std::atomic<bool> unnamed_{false};
    std::size_t flushed_ = 0;
};

}  // namespace chunkwise::detail
