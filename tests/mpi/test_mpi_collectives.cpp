// Collectives that never hang: what used to hang or crash a job at 2-4 ranks now throws the same
// exception on every rank (under a ctest timeout, so a regression fails rather than hangs):
// progress asked on the root only, on_error that differs between ranks, a reduce operation that
// throws on one rank, serialized results beyond the message size limit, collectives called in
// different orders or on results of different map_blocks calls.
#include "catch.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using chunkwise::block;
using chunkwise::parts;

namespace {

using test::still_usable;

}  // namespace

TEMPLATE_TEST_CASE("progress asked for on the root only: one progress line, no hang", "[mpi][collectives]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    chunkwise::run_options opt;
    opt.progress = policy.is_root();  // the natural way to ask for one line
    const auto blocks = chunkwise::partition(200, parts{40});
    auto all = chunkwise::gather(policy, chunkwise::map_blocks(
                                             policy, blocks, [](const block& b) { return b.begin; }, opt));
    if (policy.is_root()) {
        REQUIRE(all.size() == 40);
        REQUIRE(all[39] == blocks[39].begin);
    }
    opt.progress = !policy.is_root();  // asked for everywhere but the root: the root still draws it
    (void)chunkwise::gather(policy, chunkwise::map_blocks(
                                        policy, blocks, [](const block& b) { return b.begin; }, opt));
    still_usable(policy);
}

TEMPLATE_TEST_CASE("on_error that differs between ranks: every rank throws, naming it", "[mpi][collectives]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    chunkwise::run_options opt;
    opt.errors = policy.rank() == 0 ? chunkwise::on_error::collect : chunkwise::on_error::fail_fast;
    const auto blocks = chunkwise::partition(100, parts{20});
    auto run = [&] {
        return chunkwise::map_blocks(
            policy, blocks, [](const block& b) { return b.index; }, opt);
    };
    if (world.size() == 1) {
        REQUIRE(run().size() == 20);
    } else {
        REQUIRE_THROWS_MATCHES(run(), std::invalid_argument,
                               Catch::Matchers::Predicate<std::invalid_argument>([](const std::invalid_argument& e) {
                                   const std::string w = e.what();
                                   return w.find("ranks disagree on the collective call") != std::string::npos &&
                                          w.find("on_error::collect") != std::string::npos &&
                                          w.find("on_error::fail_fast") != std::string::npos;
                               }));
    }
    still_usable(policy);
}

TEMPLATE_TEST_CASE("a reduce operation that throws on one rank: every rank throws the same error", "[mpi][collectives]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(64, parts{32});
    auto values = [&] {
        return chunkwise::map_blocks(policy, blocks, [](const block& b) { return static_cast<double>(b.index); });
    };
    // Throws while this rank reduces its own subtrees (the rank that holds block 7 with block 6).
    auto local = [](double a, double b) {
        if (b == 7.0) throw std::runtime_error("shapes (3, 4) and (3, 5) do not match");
        return a < b ? a : b;
    };
    // Throws only where nodes of the two halves meet: on the root, while it combines them.
    auto at_root = [](double a, double b) {
        if (a < 16.0 && b >= 16.0) throw std::runtime_error("halves differ");
        return a < b ? a : b;
    };
    for (bool everywhere : {false, true}) {
        INFO(TestType::name() << (everywhere ? " all_reduce" : " reduce") << " at " << world.size() << " ranks");
        auto reduce = [&](auto op) {
            auto v = values();
            return everywhere ? chunkwise::all_reduce(policy, std::move(v), op)
                              : chunkwise::reduce(policy, std::move(v), op);
        };
        REQUIRE_THROWS_MATCHES(reduce(local), chunkwise::error,
                               Catch::Matchers::Predicate<chunkwise::error>([](const chunkwise::error& e) {
                                   const std::string w = e.what();
                                   return w.find("reduce: the operation threw") != std::string::npos &&
                                          w.find("shapes (3, 4) and (3, 5) do not match") != std::string::npos;
                               }));
        REQUIRE_THROWS_WITH(reduce(at_root), Contains("reduce: the operation threw") && Contains("halves differ"));
        still_usable(policy);
    }
}

TEMPLATE_TEST_CASE("serialized results beyond the message size limit travel in pieces", "[mpi][collectives]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    const std::size_t saved = chunkwise::detail::max_message_bytes;
    chunkwise::detail::max_message_bytes = 1000;  // as INT_MAX is to results beyond 2 GiB
    const auto blocks = chunkwise::partition(60, parts{60});
    auto text = [](const block& b) { return std::string(100 + 37 * b.index, static_cast<char>('a' + b.index % 26)); };
    auto all = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, text));
    if (policy.is_root()) {
        REQUIRE(all.size() == 60);
        for (const block& b : blocks) REQUIRE(all[b.index] == text(b));
    }
    auto everywhere = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, text));
    REQUIRE(everywhere.size() == 60);
    REQUIRE(everywhere[59] == text(blocks[59]));
    chunkwise::run_options collect;
    collect.errors = chunkwise::on_error::collect;
    auto failing = chunkwise::map_blocks(
        policy, blocks,
        [](const block& b) -> int { throw std::runtime_error(std::string(300, 'x') + std::to_string(b.index)); },
        collect);
    const auto failures = chunkwise::gather_failures(policy, failing);
    if (policy.is_root()) {
        REQUIRE(failures.size() == 60);
        REQUIRE(failures[42].message == std::string(300, 'x') + "42");
    }
    chunkwise::detail::max_message_bytes = saved;
}

TEMPLATE_TEST_CASE("collectives in different orders, or on results of different calls: every rank throws",
                   "[mpi][collectives]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(50, parts{10});
    auto first = chunkwise::map_blocks(policy, blocks, [](const block& b) { return static_cast<double>(b.index); });
    auto second = chunkwise::map_blocks(policy, blocks, [](const block& b) { return static_cast<double>(b.size()); });
    if (world.size() == 1) {
        REQUIRE(chunkwise::gather(policy, std::move(first)).size() == 10);
        return;
    }
    auto sum = [](double a, double b) { return a + b; };
    // Rank 0 gathers, the others reduce: they meet in the agreement, all throw there.
    auto wrong_order = [&] {
        if (policy.rank() == 0) {
            (void)chunkwise::gather(policy, std::move(first));
        } else {
            (void)chunkwise::reduce(policy, std::move(second), sum);
        }
    };
    REQUIRE_THROWS_WITH(wrong_order(), Contains("ranks disagree on the collective call") &&
                                           Contains("rank 0 called gather") && Contains("called reduce"));
    // The same collective on results of different map_blocks calls: would gather foreign values.
    auto third = chunkwise::map_blocks(policy, blocks, [](const block& b) { return static_cast<double>(b.index); });
    auto fourth = chunkwise::map_blocks(policy, blocks, [](const block& b) { return static_cast<double>(b.size()); });
    auto foreign = [&] { (void)chunkwise::gather(policy, policy.rank() == 0 ? std::move(third) : std::move(fourth)); };
    REQUIRE_THROWS_WITH(foreign(),
                        Contains("gather of the results of map_blocks call " + std::to_string(third.call_id())) &&
                            Contains("call " + std::to_string(fourth.call_id())));
    // A map_blocks on some ranks while the others gather.
    auto fifth = chunkwise::map_blocks(policy, blocks, [](const block& b) { return b.index; });
    auto mixed = [&] {
        if (policy.rank() == 0) {
            (void)chunkwise::map_blocks(policy, blocks, [](const block& b) { return b.index; });
        } else {
            (void)chunkwise::gather(policy, std::move(fifth));
        }
    };
    REQUIRE_THROWS_AS(mixed(), std::invalid_argument);
    still_usable(policy);
}

TEMPLATE_TEST_CASE("a run that cannot be set up on one rank fails on every rank", "[mpi][collectives]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("setup");
    if (world.rank() == 0) std::ofstream(dir / "a-file") << "x";
    world.barrier();
    chunkwise::run_options opt;
    // The last rank's log cannot be opened (its folder is a file); the others' can.
    opt.log = policy.rank() == world.size() - 1 ? dir / "a-file" / "run.log"
                                                : dir / ("run-" + std::to_string(policy.rank()) + ".log");
    const auto blocks = chunkwise::partition(20, parts{4});
    REQUIRE_THROWS_WITH(chunkwise::map_blocks(
                            policy, blocks, [](const block& b) { return b.index; }, opt),
                        Contains("cannot open") && Contains("a-file/run.log"));
    still_usable(policy);
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}
