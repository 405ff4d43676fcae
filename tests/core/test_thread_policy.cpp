// thread_policy: real concurrency, dynamic scheduling, nesting, reuse, shutdown.
#include "catch.hpp"

#include <chunkwise/chunkwise.hpp>

#include <sched.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using chunkwise::block;
using chunkwise::parts;
using namespace std::chrono_literals;

namespace {

// Blocks wait here until `expected` of them are inside at once (or 10 s pass).
class rendezvous {
public:
    explicit rendezvous(int expected) : expected_(expected) {}
    bool arrive_and_wait() {
        std::unique_lock lock(m_);
        ++inside_;
        max_inside_ = std::max(max_inside_, inside_);
        cv_.notify_all();
        const bool met = cv_.wait_for(lock, 10s, [&] { return max_inside_ >= expected_; });
        --inside_;
        return met;
    }
    int max_inside() {
        std::lock_guard lock(m_);
        return max_inside_;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    int expected_;
    int inside_ = 0;
    int max_inside_ = 0;
};

}  // namespace

TEST_CASE("thread_policy(0) is an error; the default is the hardware thread count", "[threads]") {
    REQUIRE_THROWS_AS(chunkwise::thread_policy(0), std::invalid_argument);
    REQUIRE_THROWS_WITH(chunkwise::thread_policy(0), Catch::Matchers::Contains("at least 1"));
    chunkwise::thread_policy p;
    REQUIRE(p.workers() == chunkwise::thread_policy::default_workers());
    REQUIRE(p.workers() >= 1);
    REQUIRE(p.rank() == 0);
    REQUIRE(p.is_root());
}

TEST_CASE("thread_policy(n) runs n blocks at once, never more", "[threads]") {
    for (std::size_t n : {1u, 2u, 3u, 5u}) {
        chunkwise::thread_policy policy(n);
        std::atomic<int> running{0}, peak{0};
        rendezvous meet(static_cast<int>(n));
        const auto blocks = chunkwise::partition(4 * n, parts{4 * n});
        auto met = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, [&](const block&) {
                                         const int now = running.fetch_add(1) + 1;
                                         int p = peak.load();
                                         while (now > p && !peak.compare_exchange_weak(p, now)) {
                                         }
                                         const bool ok = meet.arrive_and_wait();
                                         running.fetch_sub(1);
                                         return ok;
                                     }));
        INFO("n=" << n);
        REQUIRE(meet.max_inside() == static_cast<int>(n));  // n blocks were inside together
        REQUIRE(peak.load() == static_cast<int>(n));        // and never more than n
        REQUIRE(std::all_of(met.begin(), met.end(), [](bool b) { return b; }));
    }
}

TEST_CASE("the pool's threads persist: every call reuses the same threads", "[threads]") {
    chunkwise::thread_policy policy(3);
    std::mutex m;
    std::set<std::thread::id> seen;
    const auto blocks = chunkwise::partition(64, parts{64});
    for (int call = 0; call < 20; ++call) {
        (void)chunkwise::map_blocks(policy, blocks, [&](const block&) {
            std::this_thread::sleep_for(100us);
            std::lock_guard lock(m);
            seen.insert(std::this_thread::get_id());
            return 0;
        });
    }
    REQUIRE(seen.size() <= 3);  // the caller and two pool threads, whatever the number of calls
    REQUIRE(seen.count(std::this_thread::get_id()) == 1);
}

TEST_CASE("dynamic scheduling: a slow block does not hold back the others", "[threads]") {
    chunkwise::thread_policy policy(2);
    const auto blocks = chunkwise::partition(101, parts{101});
    // Block 0 stays busy until every other block has finished (or 20 s pass). Under dynamic
    // scheduling the other thread runs all 100 short blocks meanwhile; a static split would leave
    // 50 of them queued behind block 0 and the wait would run out. No timing is asserted.
    std::mutex m;
    std::condition_variable cv;
    std::size_t others_done = 0;
    bool saw_all = false;
    auto r = chunkwise::map_blocks(policy, blocks, [&](const block& b) {
        std::unique_lock lock(m);
        if (b.index == 0) {
            saw_all = cv.wait_for(lock, 20s, [&] { return others_done == 100; });
        } else {
            ++others_done;
            cv.notify_all();
        }
        return b.index;
    });
    REQUIRE(saw_all);
    REQUIRE(r.values().size() == 101);
}

TEST_CASE("map_blocks inside a block on the same policy completes", "[threads][nested]") {
    for (std::size_t n : {1u, 2u, 4u}) {
        chunkwise::thread_policy policy(n);
        const auto outer = chunkwise::partition(16, parts{16});
        auto sums = chunkwise::gather(
            policy, chunkwise::map_blocks(policy, outer, [&](const block& o) {
                const auto inner = chunkwise::partition(100, parts{10});
                return chunkwise::reduce(
                    policy,
                    chunkwise::map_blocks(policy, inner,
                                          [&](const block& b) { return (b.end - b.begin) * (o.index + 1); }),
                    std::plus<>{});
            }));
        INFO("n=" << n);
        for (std::size_t i = 0; i < sums.size(); ++i) REQUIRE(sums[i] == 100 * (i + 1));
    }
}

TEST_CASE("three levels of nesting with every thread blocked in an outer block", "[threads][nested]") {
    chunkwise::thread_policy policy(3);
    const auto blocks = chunkwise::partition(6, parts{6});
    auto level3 = [&](const block&) { return 1; };
    auto level2 = [&](const block&) {
        return chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, level3), std::plus<>{});
    };
    auto level1 = [&](const block&) {
        return chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, level2), std::plus<>{});
    };
    REQUIRE(chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, level1), std::plus<>{}) == 216);
}

TEST_CASE("a failure in a nested call reaches the outer caller", "[threads][nested][errors]") {
    chunkwise::thread_policy policy(2);
    const auto blocks = chunkwise::partition(4, parts{4});
    try {
        (void)chunkwise::map_blocks(policy, blocks, [&](const block& o) {
            return chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, [&](const block& i) {
                                         if (o.index == 2 && i.index == 3) throw std::runtime_error("inner");
                                         return 0;
                                     }));
        });
        FAIL("no exception");
    } catch (const chunkwise::block_error& e) {
        REQUIRE(e.block_index() == 2);  // the outer block, whose function threw the inner block_error
        REQUIRE(e.message() == "[chunkwise.block_error] block 3 (items [3, 4)) failed on rank 0: inner");
    }
}

TEST_CASE("several threads may call map_blocks on one policy at once", "[threads]") {
    chunkwise::thread_policy policy(3);
    const auto blocks = chunkwise::partition(5000, parts{500});
    std::vector<std::size_t> totals(4);
    std::vector<std::thread> callers;
    for (std::size_t t = 0; t < totals.size(); ++t) {
        callers.emplace_back([&, t] {
            for (int rep = 0; rep < 10; ++rep) {
                totals[t] += chunkwise::reduce(
                    policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) { return b.size() * (t + 1); }),
                    std::plus<>{});
            }
        });
    }
    for (auto& c : callers) c.join();
    for (std::size_t t = 0; t < totals.size(); ++t) REQUIRE(totals[t] == 10 * 5000 * (t + 1));
}

TEST_CASE("policies start and stop cleanly, also right after a failure", "[threads]") {
    const auto blocks = chunkwise::partition(32, parts{32});
    for (int i = 0; i < 50; ++i) {
        chunkwise::thread_policy policy(4);
        if (i % 2 == 0) {
            REQUIRE_THROWS_AS(chunkwise::map_blocks(policy, blocks,
                                                    [](const block& b) -> int {
                                                        if (b.index == 5) throw std::runtime_error("x");
                                                        return 0;
                                                    }),
                              chunkwise::block_error);
        }
    }
    chunkwise::thread_policy moved_from(2);
    chunkwise::thread_policy policy = std::move(moved_from);
    REQUIRE(chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [](const block& b) { return b.size(); }),
                              std::plus<>{}) == 32);
}

TEST_CASE("calls larger than one pool job run as several jobs, in order and fail-fast", "[threads]") {
    const std::size_t saved = chunkwise::detail::max_blocks_per_job;
    chunkwise::detail::max_blocks_per_job = 7;  // stands in for 2^32 - 1
    chunkwise::thread_policy policy(3);
    const auto blocks = chunkwise::partition(100, parts{100});
    auto r = chunkwise::map_blocks(policy, blocks, [](const block& b) { return b.index * 2; });
    REQUIRE(r.size() == 100);
    for (std::size_t i = 0; i < 100; ++i) REQUIRE(r.values()[i] == 2 * i);
    std::size_t ran = 0;
    for (const auto& w : r.stats().workers) ran += w.blocks;
    REQUIRE(ran == 100);
    std::atomic<std::size_t> highest{0};
    REQUIRE_THROWS_AS(chunkwise::map_blocks(policy, blocks,
                                            [&](const block& b) -> int {
                                                std::size_t h = highest.load();
                                                while (b.index > h && !highest.compare_exchange_weak(h, b.index)) {
                                                }
                                                if (b.index == 10) throw std::runtime_error("x");
                                                return 0;
                                            }),
                      chunkwise::block_error);
    REQUIRE(highest.load() < 14);  // the jobs after the failing one never started
    chunkwise::detail::max_blocks_per_job = saved;
}

TEST_CASE("default_workers counts the CPUs this process may run on, or CHUNKWISE_NUM_THREADS", "[thread_policy][affinity]") {
    ::unsetenv("CHUNKWISE_NUM_THREADS");
    cpu_set_t mine;
    CPU_ZERO(&mine);
    REQUIRE(::sched_getaffinity(0, sizeof mine, &mine) == 0);
    REQUIRE(chunkwise::thread_policy::default_workers() == static_cast<std::size_t>(CPU_COUNT(&mine)));
    // Under `taskset -c 0` (ctest thread_policy.taskset runs this binary so): one CPU, one worker.
    if (const char* want = std::getenv("CHUNKWISE_TEST_EXPECT_WORKERS")) {
        REQUIRE(chunkwise::thread_policy::default_workers() == std::stoul(want));
        REQUIRE(chunkwise::thread_policy().workers() == std::stoul(want));
    }
    // This thread pinned to one CPU: the affinity of the calling thread is what counts.
    int first = 0;
    while (!CPU_ISSET(first, &mine)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    REQUIRE(::sched_setaffinity(0, sizeof one, &one) == 0);
    const std::size_t pinned = chunkwise::thread_policy::default_workers();
    REQUIRE(::sched_setaffinity(0, sizeof mine, &mine) == 0);
    REQUIRE(pinned == 1);

    ::setenv("CHUNKWISE_NUM_THREADS", "3", 1);
    REQUIRE(chunkwise::thread_policy::default_workers() == 3);
    REQUIRE(chunkwise::thread_policy().workers() == 3);
    for (const char* bad : {"0", "-2", "+2", "two", "4x", "", " 4", "1048577", "99999999999999999999"}) {
        INFO(bad);
        ::setenv("CHUNKWISE_NUM_THREADS", bad, 1);
        REQUIRE_THROWS_WITH(chunkwise::thread_policy::default_workers(),
                            Catch::Matchers::Contains("CHUNKWISE_NUM_THREADS='" + std::string(bad) + "'") &&
                                Catch::Matchers::Contains("positive integer"));
    }
    ::setenv("CHUNKWISE_NUM_THREADS", "1048576", 1);
    REQUIRE(chunkwise::thread_policy::default_workers() == 1048576);
    ::unsetenv("CHUNKWISE_NUM_THREADS");
}
