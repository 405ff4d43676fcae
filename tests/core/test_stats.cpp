// Statistics (<chunkwise/stats.hpp>): phases filled by chunkwise itself, and their summary.
#include "catch.hpp"
#include "policies.hpp"

#include <chunkwise/chunkwise.hpp>

#include <chrono>
#include <thread>

using chunkwise::block;

TEST_CASE("summarize: slowest and fastest worker, imbalance, totals over ranks", "[stats]") {
    chunkwise::run_stats a, b;
    a.rank = 0;
    a.wall = 2.0;
    a.workers = {{1.0, 0.25, 1.0, 0.5, 3}, {2.0, 0.5, 0.0, 0.0, 4}};
    b.rank = 1;
    b.wall = 2.5;
    b.workers = {{0.5, 0.0, 2.0, 0.0, 1}};
    const auto s = chunkwise::summarize(std::vector<chunkwise::run_stats>{a, b});
    REQUIRE(s.ranks == 2);
    REQUIRE(s.workers == 3);
    REQUIRE(s.wall == 2.5);
    REQUIRE(s.slowest_rank == 0);
    REQUIRE(s.slowest_worker == 1);
    REQUIRE(s.busy_max == 2.0);
    REQUIRE(s.fastest_rank == 1);
    REQUIRE(s.fastest_worker == 0);
    REQUIRE(s.busy_min == 0.5);
    REQUIRE(s.busy_mean == Approx(3.5 / 3));
    REQUIRE(s.imbalance == Approx(2.0 / (3.5 / 3)));
    REQUIRE(s.total_read == 0.75);
    REQUIRE(s.total_compute == Approx(3.5 - 0.75));
    REQUIRE(s.total_wait == 3.0);
    REQUIRE(s.total_combine == 0.5);
    REQUIRE(chunkwise::summarize(chunkwise::run_stats{}).workers == 0);
}

TEMPLATE_TEST_CASE("wait: workers idle while one block runs long; read and combine are filled in", "[stats][threads]",
                   test::threads_case<2>, test::threads_case<3>) {
    auto pool = TestType::make();
    const auto blocks = chunkwise::partition(4, chunkwise::parts{4});
    auto partial = chunkwise::map_blocks(pool, blocks, [](const block& b) {
        if (b.index == 3) std::this_thread::sleep_for(std::chrono::milliseconds(300));
        {
            chunkwise::read_scope reading;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return b.index;
    });
    const auto& st = partial.stats();
    const auto s = chunkwise::summarize(st);
    REQUIRE(s.busy_max >= 0.3);
    for (std::size_t w = 0; w < st.workers.size(); ++w) {
        if (w != s.slowest_worker) REQUIRE(st.workers[w].wait >= 0.2);  // idle next to the slow block
        REQUIRE(st.workers[w].busy + st.workers[w].wait == Approx(st.wall).margin(1e-3));
    }
    REQUIRE(s.total_read >= 4 * 0.02 * 0.9);
    auto all = chunkwise::gather(pool, std::move(partial));
    REQUIRE(partial.stats().workers[0].combine > 0);
    const auto gathered = chunkwise::gather_stats(pool, partial.stats());
    REQUIRE(gathered.size() == 1);
    REQUIRE(gathered[0].workers.size() == pool.workers());
}
