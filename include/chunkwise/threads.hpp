#pragma once
/// \file
/// `thread_policy`: blocks on a persistent pool of std::threads, scheduled dynamically.

#include <chunkwise/detail/execute.hpp>
#include <chunkwise/detail/thread_pool.hpp>
#include <chunkwise/stats.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace chunkwise {

/// Runs blocks on this process's threads: at most `workers()` blocks at once, the calling thread
/// counted (it works too, next to workers()-1 pool threads).
///
/// The pool starts with the policy, lives as long as it, and is reused by every call. Blocks are
/// handed out one at a time as threads free up, so a few slow blocks never leave the other
/// threads idle. `map_blocks` may be called from inside a running block with the same policy: the
/// inner call completes (the calling thread works on it; idle pool threads help).
class thread_policy {
public:
    /// \param workers blocks run at once, the calling thread included; defaults to the hardware
    ///        thread count (1 where unknown)
    /// \throws std::invalid_argument if workers is 0; std::system_error if a thread cannot start
    explicit thread_policy(std::size_t workers = default_workers())
        : workers_(checked(workers)), pool_(std::make_unique<detail::thread_pool>(workers_ - 1)) {}

    /// Blocks run at once in this process, the calling thread included.
    [[nodiscard]] std::size_t workers() const noexcept { return workers_; }
    /// Always 0 (no MPI).
    [[nodiscard]] int rank() const noexcept { return 0; }
    /// Always true (no MPI).
    [[nodiscard]] bool is_root() const noexcept { return true; }

    /// The hardware thread count, or 1 where the platform cannot tell.
    [[nodiscard]] static std::size_t default_workers() noexcept {
        const unsigned h = std::thread::hardware_concurrency();
        return h == 0 ? 1 : h;
    }

    /// Library detail: runs body(0) .. body(n-1) on the pool, dynamically scheduled. Under
    /// fail_fast, no block starts after a failure is seen; running blocks finish.
    template <class Body>
    detail::exec_result execute(std::size_t n, Body& body, detail::error_mode mode) {
        return execute_range(0, n, body, mode, 0);
    }

    /// Library detail: as execute, over block indices [first, last), failures tagged with `rank`.
    template <class Body>
    detail::exec_result execute_range(std::size_t first, std::size_t last, Body& body, detail::error_mode mode,
                                      int rank) {
        job<Body> j(first, last, body, mode, workers_, rank);
        const auto t0 = detail::clock::now();
        const std::size_t n = last > first ? last - first : 0;
        pool_->run(j, n > 1 ? n - 1 : 0);
        detail::exec_result r;
        r.stats.rank = rank;
        r.stats.workers = std::move(j.stats);
        for (auto& f : j.failures) {
            for (auto& rec : f) r.failures.push_back(std::move(rec));
        }
        detail::sort_failures(r.failures);
        detail::finish_stats(r.stats, detail::seconds_since(t0));
        return r;
    }

private:
    static std::size_t checked(std::size_t workers) {
        if (workers == 0) {
            throw std::invalid_argument("[chunkwise.thread_policy] workers must be at least 1, got 0");
        }
        return workers;
    }

    template <class Body>
    class job final : public detail::pool_job {
    public:
        job(std::size_t first, std::size_t last, Body& body, detail::error_mode mode, std::size_t slots, int rank)
            : next_(first), last_(last), body_(body), mode_(mode), rank_(rank), stats(slots), failures(slots) {}

        void work(std::size_t slot) noexcept override {
            worker_stats& w = stats[slot];
            std::vector<detail::failure_record>& mine = failures[slot];
            detail::worker_clock busy(w);
            for (;;) {
                if (stop_.load(std::memory_order_relaxed)) return;
                const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
                if (i >= last_) return;
                if (stop_.load(std::memory_order_acquire)) return;
                if (!detail::run_one_block(body_, i, w, mine, rank_) && mode_ == detail::error_mode::fail_fast) {
                    stop_.store(true, std::memory_order_release);
                }
            }
        }

    private:
        std::atomic<std::size_t> next_;
        std::atomic<bool> stop_{false};
        std::size_t last_;
        Body& body_;
        detail::error_mode mode_;
        int rank_;

    public:
        // One entry per slot, each written by one thread only; read after pool.run returns.
        std::vector<worker_stats> stats;
        std::vector<std::vector<detail::failure_record>> failures;
    };

    std::size_t workers_;
    std::unique_ptr<detail::thread_pool> pool_;
};

}  // namespace chunkwise
