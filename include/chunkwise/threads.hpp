#pragma once
/// \file
/// `thread_policy`: blocks on a persistent pool of std::threads, scheduled dynamically.

#include <chunkwise/detail/core/env_count.hpp>
#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/detail/core/thread_pool.hpp>
#include <chunkwise/stats.hpp>

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace chunkwise {

namespace detail {
/// The CPUs this process may run on (Linux: sched_getaffinity, masks of any size); 0 where the
/// platform cannot tell.
inline std::size_t allowed_cpus() noexcept {
#if defined(__linux__)
    for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
        cpu_set_t* set = CPU_ALLOC(cpus);
        if (set == nullptr) return 0;
        const std::size_t bytes = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(bytes, set);
        const int rc = ::sched_getaffinity(0, bytes, set);
        const int count = rc == 0 ? CPU_COUNT_S(bytes, set) : 0;
        const int err = errno;
        CPU_FREE(set);
        if (rc == 0) return static_cast<std::size_t>(count);
        if (err != EINVAL) return 0;  // EINVAL: the kernel's mask is larger; try a larger one
    }
#endif
    return 0;
}

/// Blocks one pool job handles (its offsets are 32-bit); larger calls run as several jobs. Only
/// tests lower it.
inline std::size_t max_blocks_per_job = 0xffffffffu;
}  // namespace detail

/// Runs blocks on this process's threads: at most `workers()` blocks at once, the calling thread
/// counted (it works too, next to workers()-1 pool threads).
///
/// The pool starts with the policy, lives as long as it, and is reused by every call. Scheduling
/// is dynamic: each thread starts on its own contiguous share of the blocks and takes them one
/// at a time; a thread that runs out takes half of the largest share left. A few slow blocks
/// therefore never leave the other threads idle. `map_blocks` may be called from inside a running block with the same
/// policy: the inner call completes (the calling thread works on it; idle pool threads help).
class thread_policy {
public:
    /// \param workers blocks run at once, the calling thread included; defaults to
    ///        default_workers(): the CPUs this process may run on, or CHUNKWISE_NUM_THREADS
    /// \throws std::invalid_argument if workers is 0 (or CHUNKWISE_NUM_THREADS is not a positive
    ///         integer); std::system_error if a thread cannot start
    explicit thread_policy(std::size_t workers = default_workers())
            : workers_(checked(workers)), pool_(std::make_unique<detail::thread_pool>(workers_ - 1)) {}

    /// Blocks run at once in this process, the calling thread included.
    [[nodiscard]] std::size_t workers() const noexcept { return workers_; }
    /// Always 0 (no MPI).
    [[nodiscard]] int rank() const noexcept { return 0; }
    /// Always true (no MPI).
    [[nodiscard]] bool is_root() const noexcept { return true; }

    /// The environment variable CHUNKWISE_NUM_THREADS when set; else the CPUs this process may
    /// run on (its affinity mask on Linux: `taskset -c 0-3` or a SLURM allocation of 4 cores
    /// give 4, as oneTBB and OpenMP count); else the hardware thread count; 1 where unknown.
    /// \throws std::invalid_argument if CHUNKWISE_NUM_THREADS is set but not a positive integer
    [[nodiscard]] static std::size_t default_workers() {
        if (const char* v = std::getenv("CHUNKWISE_NUM_THREADS"); v != nullptr) {
            const auto n = detail::env_count(v, 1, std::size_t{1} << 20);
            if (!n) {
                throw std::invalid_argument(std::string("[chunkwise.threads] CHUNKWISE_NUM_THREADS='") + v +
                                            "': must be a positive integer (threads per process)");
            }
            return static_cast<std::size_t>(*n);
        }
        if (const std::size_t cpus = detail::allowed_cpus(); cpus > 0) return cpus;
        const unsigned h = std::thread::hardware_concurrency();
        return h == 0 ? 1 : h;
    }

private:
    friend struct detail::policy_access;

    // The executor (the policy contract, <chunkwise/policy.hpp>): blocks [first, last), failures
    // tagged with `rank`.
    template <class Body>
    exec_result execute_range(std::size_t first, std::size_t last, Body& body, on_error mode, int rank) {
        exec_result r = start_exec(rank, workers_);
        const auto t0 = clock::now();
        // A job addresses its blocks with 32-bit offsets: more blocks run as several jobs.
        const std::size_t max_job = detail::max_blocks_per_job;
        for (std::size_t lo = first; lo < last; lo += (last - lo < max_job ? last - lo : max_job)) {
            const std::size_t hi = last - lo < max_job ? last : lo + max_job;
            job<Body> j(lo, hi, body, mode, workers_, rank);
            pool_->run(j, std::min(hi - lo - 1, workers_ - 1));
            add_worker_time(r.stats.workers, j.stats);
            for (std::size_t s = 0; s < workers_; ++s) {
                for (auto& rec : j.failures[s]) r.failures.push_back(std::move(rec));
            }
            if (mode == on_error::fail_fast && !r.failures.empty()) break;
        }
        sort_failures(r.failures);
        finish_stats(r.stats, seconds_since(t0));
        return r;
    }

    static std::size_t checked(std::size_t workers) {
        if (workers == 0) {
            throw std::invalid_argument("[chunkwise.thread_policy] workers must be at least 1, got 0");
        }
        return workers;
    }

    // One call's blocks. Each slot starts with a contiguous share of [first, last) and takes
    // blocks from its front; a slot that runs dry steals the back half of the fullest other
    // slot. A slow block thus only holds up its own thread, threads rarely touch the same cache
    // line, and each thread walks through neighbouring blocks.
    template <class Body>
    class job final : public detail::pool_job {
    public:
        job(std::size_t first, std::size_t last, Body& body, on_error mode, std::size_t slots, int rank)
                : body_(body), mode_(mode), rank_(rank), ranges_(slots), stats(slots), failures(slots) {
            const std::size_t n = last > first ? last - first : 0;
            base_ = first;
            for (std::size_t s = 0; s < slots; ++s) {
                ranges_[s].packed.store(pack(n * s / slots, n * (s + 1) / slots), std::memory_order_relaxed);
            }
        }

        void work(std::size_t slot) noexcept override {
            worker_stats& w = stats[slot];
            std::vector<failure_record>& mine = failures[slot];
            worker_clock busy(w);
            std::size_t i = 0;
            while (claim(slot, i)) {
                if (stop_.load(std::memory_order_acquire)) return;
                ++busy.blocks;
                if (!run_one_block(body_, base_ + i, mine, rank_) && mode_ == on_error::fail_fast) {
                    stop_.store(true, std::memory_order_release);
                    return;
                }
            }
        }

    private:
        // A slot's remaining offsets [begin, end) relative to base_, packed into one word.
        static constexpr std::uint64_t pack(std::size_t begin, std::size_t end) noexcept {
            return (static_cast<std::uint64_t>(begin) << 32) | static_cast<std::uint64_t>(end);
        }
        static constexpr std::size_t begin_of(std::uint64_t v) noexcept { return static_cast<std::size_t>(v >> 32); }
        static constexpr std::size_t end_of(std::uint64_t v) noexcept {
            return static_cast<std::size_t>(v & 0xffffffffu);
        }

        bool claim(std::size_t slot, std::size_t& out) noexcept {
            for (;;) {
                if (pop_front(slot, out)) return true;
                if (!steal(slot)) return false;
            }
        }

        bool pop_front(std::size_t slot, std::size_t& out) noexcept {
            std::atomic<std::uint64_t>& r = ranges_[slot].packed;
            std::uint64_t v = r.load(std::memory_order_relaxed);
            while (begin_of(v) < end_of(v)) {
                if (r.compare_exchange_weak(v, pack(begin_of(v) + 1, end_of(v)), std::memory_order_relaxed)) {
                    out = begin_of(v);
                    return true;
                }
            }
            return false;
        }

        // Moves the back half of the fullest other slot into `slot`; false when all are empty.
        bool steal(std::size_t slot) noexcept {
            for (;;) {
                if (stop_.load(std::memory_order_relaxed)) return false;
                std::size_t victim = slot, most = 0;
                for (std::size_t s = 0; s < ranges_.size(); ++s) {
                    const std::uint64_t v = ranges_[s].packed.load(std::memory_order_relaxed);
                    const std::size_t left = end_of(v) > begin_of(v) ? end_of(v) - begin_of(v) : 0;
                    if (s != slot && left > most) {
                        most = left;
                        victim = s;
                    }
                }
                if (most == 0) return false;
                std::atomic<std::uint64_t>& r = ranges_[victim].packed;
                std::uint64_t v = r.load(std::memory_order_relaxed);
                const std::size_t b = begin_of(v), e = end_of(v);
                if (b >= e) continue;
                const std::size_t mid = b + (e - b) / 2;  // the victim keeps [b, mid), we take [mid, e)
                if (r.compare_exchange_strong(v, pack(b, mid), std::memory_order_relaxed)) {
                    ranges_[slot].packed.store(pack(mid, e), std::memory_order_relaxed);
                    return true;
                }
            }
        }

        struct alignas(64) padded_range {
            std::atomic<std::uint64_t> packed{0};
        };

        Body& body_;
        on_error mode_;
        int rank_;
        std::size_t base_ = 0;
        std::vector<padded_range> ranges_;
        alignas(64) std::atomic<bool> stop_{false};

    public:
        // One entry per slot, each written by one thread only; read after pool.run returns.
        std::vector<worker_stats> stats;
        std::vector<std::vector<failure_record>> failures;
    };

    std::size_t workers_;
    std::unique_ptr<detail::thread_pool> pool_;
};

}  // namespace chunkwise
