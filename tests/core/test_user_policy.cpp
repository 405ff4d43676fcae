// A policy written by a user, as <chunkwise/policy.hpp> and docs/guide.md describe it: one class
// with workers(), rank(), is_root() and execute_range, built from <chunkwise/executor.hpp> alone
// (no detail:: name: packaging.walls checks it). This one runs each block on a thread
// of its own that it pins to one CPU (Linux: pthread_setaffinity_np), takes blocks from a shared
// counter, and reports statistics and failures as the contract asks. Every algorithm of the core
// runs on it with the same bits as serial_policy, failures included.
#include "catch.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/executor.hpp>

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

/// Runs blocks on `workers` threads, worker w pinned to the w-th CPU this process may use.
class pinned_policy {
public:
    explicit pinned_policy(std::size_t workers) : workers_(workers) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) == 0) {
            for (int c = 0; c < CPU_SETSIZE; ++c) {
                if (CPU_ISSET(c, &set)) cpus_.push_back(c);
            }
        }
    }

    [[nodiscard]] std::size_t workers() const noexcept { return workers_; }
    [[nodiscard]] int rank() const noexcept { return 0; }
    [[nodiscard]] bool is_root() const noexcept { return true; }

    /// The CPUs the workers of the last call ran on.
    std::set<int> used_cpus;

    /// The executor of the policy contract: blocks [first, last) on the pinned threads.
    template <class Body>
    chunkwise::exec_result execute_range(std::size_t first, std::size_t last, Body& body,
                                                 chunkwise::on_error mode, int rank) {
        chunkwise::exec_result r = chunkwise::start_exec(rank, workers_);
        std::vector<std::vector<chunkwise::failure_record>> failures(workers_);
        std::atomic<std::size_t> next{first};
        std::atomic<bool> stop{false};
        std::mutex cpus_mutex;
        used_cpus.clear();
        const auto t0 = chunkwise::clock::now();
        auto work = [&](std::size_t w) {
            if (!cpus_.empty()) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(cpus_[w % cpus_.size()], &one);
                pthread_setaffinity_np(pthread_self(), sizeof one, &one);
            }
            {
                std::lock_guard lock(cpus_mutex);
                used_cpus.insert(sched_getcpu());
            }
            chunkwise::worker_clock busy(r.stats.workers[w]);
            for (std::size_t i; !stop.load() && (i = next.fetch_add(1)) < last;) {
                ++busy.blocks;
                if (!chunkwise::run_one_block(body, i, failures[w], rank) &&
                    mode == chunkwise::on_error::fail_fast) {
                    stop = true;
                }
            }
        };
        std::vector<std::thread> threads;
        for (std::size_t w = 0; w < workers_; ++w) threads.emplace_back(work, w);
        for (std::thread& t : threads) t.join();
        for (auto& f : failures) {
            for (auto& rec : f) r.failures.push_back(std::move(rec));
        }
        chunkwise::sort_failures(r.failures);
        chunkwise::finish_stats(r.stats, chunkwise::seconds_since(t0));
        return r;
    }

private:
    std::size_t workers_;
    std::vector<int> cpus_;
};

static_assert(chunkwise::execution_policy<pinned_policy>);
static_assert(!chunkwise::distributed_policy<pinned_policy>);

double wild(const chunkwise::block& b) {
    double s = 0;
    for (std::size_t i = b.begin; i < b.end; ++i) s += std::sin(double(i)) * std::ldexp(1.0, int(i % 40) - 20);
    return s;
}

}  // namespace

TEST_CASE("a user policy that pins workers to cores runs every algorithm with serial's bits", "[policy]") {
    pinned_policy pinned(3);
    chunkwise::serial_policy serial;
    const auto blocks = chunkwise::partition(10'000, chunkwise::parts{37});
    const double mine = chunkwise::reduce(pinned, chunkwise::map_blocks(pinned, blocks, wild), std::plus<>{});
    const double ref = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, wild), std::plus<>{});
    REQUIRE(std::memcmp(&mine, &ref, sizeof mine) == 0);
    REQUIRE(chunkwise::gather(pinned, chunkwise::map_blocks(pinned, blocks, wild)) ==
            chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, wild)));
    REQUIRE_FALSE(pinned.used_cpus.empty());
    // Statistics as the contract asks: one entry per worker, every block counted once.
    auto partial = chunkwise::map_blocks(pinned, blocks, wild);
    REQUIRE(partial.stats().workers.size() == 3);
    std::size_t counted = 0;
    for (const auto& w : partial.stats().workers) counted += w.blocks;
    REQUIRE(counted == blocks.size());
    // Failures: fail_fast throws block_error naming the lowest failing block; collect reports all.
    auto bad = [](const chunkwise::block& b) -> double {
        if (b.index == 5 || b.index == 30) throw std::runtime_error("bad block");
        return 1.0;
    };
    REQUIRE_THROWS_AS(chunkwise::map_blocks(pinned, blocks, bad), chunkwise::block_error);
    chunkwise::run_options collect;
    collect.errors = chunkwise::on_error::collect;
    const auto r = chunkwise::map_blocks(pinned, blocks, bad, collect);
    REQUIRE(r.failures().size() == 2);
    REQUIRE(r.failures()[0].index == 5);
    REQUIRE(r.failures()[1].index == 30);
}
