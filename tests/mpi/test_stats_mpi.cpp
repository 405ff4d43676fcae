// Statistics under MPI: a rank that waits for a slower one reports that wait; gather_stats
// brings every rank's statistics to the root, in rank order.
#include "catch.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <chrono>
#include <thread>

using chunkwise::block;

TEMPLATE_TEST_CASE("wait includes the time a rank waits for another rank", "[mpi][stats]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const std::size_t n = static_cast<std::size_t>(world.size()) * 2;
    const auto blocks = chunkwise::partition(n, chunkwise::parts{n});
    static constexpr double slow = 0.3;
    auto partial = chunkwise::map_blocks(policy, blocks, [](const block& b) {
        if (b.index == 0) std::this_thread::sleep_for(std::chrono::duration<double>(slow));
        return b.index;
    });
    auto values = chunkwise::gather(policy, std::move(partial));
    const auto all = chunkwise::gather_stats(policy, partial.stats());
    INFO(TestType::name() << " at " << world.size() << " ranks");
    if (!policy.is_root()) {
        REQUIRE(all.empty());
        return;
    }
    REQUIRE(values.size() == n);
    REQUIRE(all.size() == static_cast<std::size_t>(world.size()));
    const auto s = chunkwise::summarize(all);
    REQUIRE(s.busy_max >= slow);
    std::size_t checked = 0;
    for (std::size_t r = 0; r < all.size(); ++r) {
        REQUIRE(all[r].rank == static_cast<int>(r));
        REQUIRE(all[r].workers.size() == policy.workers() / static_cast<std::size_t>(world.size()));
        for (std::size_t w = 0; w < all[r].workers.size(); ++w) {
            if (static_cast<int>(r) == s.slowest_rank && w == s.slowest_worker) continue;
            REQUIRE(all[r].workers[w].wait >= slow * 0.8);  // it waited for the slow block's worker
            ++checked;
        }
    }
    REQUIRE(checked == s.workers - 1);
    std::size_t blocks_run = 0;
    for (const auto& r : all) {
        for (const auto& w : r.workers) blocks_run += w.blocks;
    }
    REQUIRE(blocks_run == n);
    REQUIRE(all[0].workers[0].combine > 0);
}
