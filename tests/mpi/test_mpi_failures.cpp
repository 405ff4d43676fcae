// A failing block on any rank makes map_blocks throw the same block_error on every rank: no hang,
// no MPI_Abort, no std::terminate, whether the failing rank fails first, last, or while the
// others already wait; and the communicator stays usable.
#include "catch.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using chunkwise::block;
using chunkwise::parts;
using namespace std::chrono_literals;

namespace {

struct outcome {
    bool threw = false;
    std::size_t index = 0;
    int rank = -1;
    std::string message;
};

template <class Policy, class Fn>
outcome run_and_catch(Policy& policy, const std::vector<block>& blocks, Fn fn) {
    outcome o;
    try {
        (void)chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, fn));
    } catch (const chunkwise::block_error& e) {
        o.threw = true;
        o.index = e.block_index();
        o.rank = e.rank();
        o.message = e.message();
    }
    return o;
}

// Every rank saw the same failure (same index, rank, message).
void check_agreed(const outcome& o) {
    boost::mpi::communicator world;
    const std::vector<std::size_t> all_index = [&] {
        std::vector<std::size_t> v;
        boost::mpi::all_gather(world, o.index, v);
        return v;
    }();
    std::vector<int> all_rank;
    boost::mpi::all_gather(world, o.rank, all_rank);
    std::vector<std::string> all_message;
    boost::mpi::all_gather(world, o.message, all_message);
    REQUIRE(o.threw);
    for (int r = 0; r < world.size(); ++r) {
        REQUIRE(all_index[static_cast<std::size_t>(r)] == o.index);
        REQUIRE(all_rank[static_cast<std::size_t>(r)] == o.rank);
        REQUIRE(all_message[static_cast<std::size_t>(r)] == o.message);
    }
}

using test::still_usable;

}  // namespace

TEMPLATE_TEST_CASE("the first block fails at once while the others work on", "[mpi][errors]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(64, parts{16});
    const outcome o = run_and_catch(policy, blocks, [](const block& b) -> int {
        if (b.index == 0) throw std::runtime_error("block zero is corrupt");
        std::this_thread::sleep_for(20ms);
        return 0;
    });
    check_agreed(o);
    REQUIRE(o.index == 0);
    REQUIRE(o.message == "block zero is corrupt");
    if (policy.schedule() == chunkwise::mpi_schedule::contiguous) REQUIRE(o.rank == 0);
    still_usable(policy);
}

TEMPLATE_TEST_CASE("the last block fails last, after the others already wait", "[mpi][errors]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(64, parts{16});
    const outcome o = run_and_catch(policy, blocks, [](const block& b) -> int {
        if (b.index == 15) {
            std::this_thread::sleep_for(300ms);
            throw std::runtime_error("late failure in block 15");
        }
        return 0;
    });
    check_agreed(o);
    REQUIRE(o.index == 15);
    REQUIRE(o.message == "late failure in block 15");
    if (policy.schedule() == chunkwise::mpi_schedule::contiguous) REQUIRE(o.rank == world.size() - 1);
    still_usable(policy);
}

TEMPLATE_TEST_CASE("failures on several ranks: every rank reports the lowest block", "[mpi][errors]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(40, parts{40});
    const outcome o = run_and_catch(policy, blocks, [](const block& b) -> int {
        if (b.index % 10 == 9) throw std::runtime_error("bad " + std::to_string(b.index));
        return 0;
    });
    check_agreed(o);
    REQUIRE(o.index % 10 == 9);
    REQUIRE(o.message == "bad " + std::to_string(o.index));
    if (policy.schedule() == chunkwise::mpi_schedule::contiguous && policy.workers() == std::size_t(world.size())) {
        REQUIRE(o.index == 9);  // every rank runs its blocks in order: all failures are seen
    }
    still_usable(policy);
}

TEMPLATE_TEST_CASE("a rank whose blocks all succeed still throws", "[mpi][errors]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(static_cast<std::size_t>(world.size()) * 4, parts{1000});
    const outcome o = run_and_catch(policy, blocks, [&](const block& b) -> int {
        if (b.index == blocks.size() / 2) throw 7;  // not even a std::exception
        return 0;
    });
    check_agreed(o);
    REQUIRE(o.index == blocks.size() / 2);
    REQUIRE(o.message == "unknown exception (not derived from std::exception)");
    still_usable(policy);
}
