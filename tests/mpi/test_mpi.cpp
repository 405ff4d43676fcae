// mpi_policy and hybrid_policy under mpiexec at 1-4 ranks: every result bit-identical to
// serial_policy's, on the root (gather, reduce) and on every rank (all_gather, all_reduce).
#include "catch.hpp"
#include "test_util.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#if __has_include(<xtensor/containers/xtensor.hpp>)
#include <xtensor/containers/xarray.hpp>
#include <xtensor/containers/xtensor.hpp>
#define CHUNKWISE_TEST_XTENSOR 1
#elif __has_include(<xtensor/xtensor.hpp>)
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>
#define CHUNKWISE_TEST_XTENSOR 1
#endif

using chunkwise::block;
using chunkwise::parts;

namespace {

using test::wild_sum;
std::vector<double> ragged(const block& b) {  // 0 to 6 values per block, some blocks empty
    std::vector<double> v;
    for (std::size_t k = 0; k < b.index % 7; ++k) v.push_back(wild_sum(block{b.index, b.begin, b.end + k}));
    return v;
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

const std::vector<std::pair<std::size_t, std::size_t>> shapes{{0, 3}, {1, 1},   {2, 5},     {3, 3},
                                                              {5, 2}, {17, 17}, {1000, 64}, {4096, 1000}};

}  // namespace

TEMPLATE_TEST_CASE("gather: block order on the root, empty elsewhere, serial's bits", "[mpi]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    boost::mpi::communicator world;
    REQUIRE(policy.rank() == world.rank());
    REQUIRE(policy.is_root() == (world.rank() == 0));
    for (auto [n, p] : shapes) {
        const auto blocks = chunkwise::partition(n, parts{p});
        INFO(TestType::name() << " ranks=" << world.size() << " n=" << n << " p=" << p);
        const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, wild_sum));
        auto partial = chunkwise::map_blocks(policy, blocks, wild_sum);
        CHECK(partial.total_blocks() == blocks.size());
        CHECK(partial.stats().rank == world.rank());
        const auto got = chunkwise::gather(policy, std::move(partial));
        if (policy.is_root()) {
            REQUIRE(got.size() == expect.size());
            for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(same_bits(got[i], expect[i]));
        } else {
            REQUIRE(got.empty());
        }
        const auto everywhere = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, wild_sum));
        REQUIRE(everywhere.size() == expect.size());
        for (std::size_t i = 0; i < everywhere.size(); ++i) REQUIRE(same_bits(everywhere[i], expect[i]));
    }
}

TEMPLATE_TEST_CASE("reduce and all_reduce: serial's bits", "[mpi]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    for (auto [n, p] : shapes) {
        const auto blocks = chunkwise::partition(n, parts{p});
        INFO(TestType::name() << " n=" << n << " p=" << p);
        const double expect = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, wild_sum), std::plus<>{});
        const double got = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, wild_sum), std::plus<>{});
        if (policy.is_root()) REQUIRE(same_bits(got, expect));
        const double all =
            chunkwise::all_reduce(policy, chunkwise::map_blocks(policy, blocks, wild_sum), std::plus<>{});
        REQUIRE(same_bits(all, expect));
    }
}

TEMPLATE_TEST_CASE("reduce follows the serial tree for any type (Boost serialization)", "[mpi]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    auto text = [&](std::size_t n) {
        const auto blocks = chunkwise::partition(n, parts{n});
        return chunkwise::all_reduce(
            policy, chunkwise::map_blocks(policy, blocks, [](const block& b) { return std::to_string(b.index); }),
            [](const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; });
    };
    REQUIRE(text(1) == "0");
    REQUIRE(text(3) == "((0 1) 2)");
    REQUIRE(text(5) == "(((0 1) (2 3)) 4)");
    REQUIRE(text(11) == "((((0 1) (2 3)) ((4 5) (6 7))) ((8 9) 10))");
    const auto blocks = chunkwise::partition(9, parts{9});
    const auto names = chunkwise::all_gather(
        policy, chunkwise::map_blocks(policy, blocks, [](const block& b) { return "b" + std::to_string(b.index); }));
    REQUIRE(names == std::vector<std::string>{"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"});
}

TEMPLATE_TEST_CASE("vectors of numbers travel raw, ragged and empty ones included", "[mpi]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    const auto blocks = chunkwise::partition(300, parts{41});
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, ragged));
    const auto got = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, ragged));
    REQUIRE(got == expect);
    auto concat = [](std::vector<double> a, const std::vector<double>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    const auto flat = chunkwise::all_reduce(policy, chunkwise::map_blocks(policy, blocks, ragged), concat);
    REQUIRE(flat == chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, ragged), concat));
}

TEMPLATE_TEST_CASE("transfers larger than one MPI message go in pieces", "[mpi]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    const std::size_t saved = chunkwise::detail::max_message_bytes;
    chunkwise::detail::max_message_bytes = 40;  // 5 doubles: stands in for INT_MAX bytes
    const auto blocks = chunkwise::partition(500, parts{37});
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, ragged));
    const auto got = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, ragged));
    const auto all = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, ragged));
    chunkwise::detail::max_message_bytes = saved;
    if (policy.is_root()) REQUIRE(got == expect);
    REQUIRE(all == expect);
}

#ifdef CHUNKWISE_TEST_XTENSOR
TEMPLATE_TEST_CASE("xtensor arrays travel raw with their shapes", "[mpi][xtensor]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    const auto blocks = chunkwise::partition(50, parts{9});
    auto frames = [](const block& b) {
        xt::xtensor<float, 3> t = xt::xtensor<float, 3>::from_shape({b.size(), 4, 3});
        for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<float>(b.begin * 100 + i);
        return t;
    };
    chunkwise::serial_policy serial;
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, frames));
    const auto got = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, frames));
    REQUIRE(got.size() == expect.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        REQUIRE(got[i].shape() == expect[i].shape());
        REQUIRE(got[i] == expect[i]);
    }
    auto dynamic_rank = [](const block& b) {
        xt::xarray<int> a = xt::xarray<int>::from_shape(std::vector<std::size_t>(1 + b.index % 3, 2));
        a.fill(static_cast<int>(b.index));
        return a;
    };
    const auto arrays = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, dynamic_rank));
    REQUIRE(arrays.size() == blocks.size());
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        REQUIRE(arrays[i].dimension() == 1 + i % 3);
        REQUIRE(arrays[i](0) == static_cast<int>(i));
    }
}
#endif

TEMPLATE_TEST_CASE("more ranks than blocks: idle ranks still take part", "[mpi]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    const auto one = chunkwise::partition(7, parts{1});
    REQUIRE(chunkwise::all_reduce(policy, chunkwise::map_blocks(policy, one, [](const block& b) { return b.size(); }),
                                  std::plus<>{}) == 7);
    const auto none = chunkwise::partition(0, parts{1});
    REQUIRE(chunkwise::all_gather(policy, chunkwise::map_blocks(policy, none, [](const block& b) { return b.size(); }))
                .empty());
}

TEMPLATE_TEST_CASE("different block counts on different ranks are an error on every rank", "[mpi]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    if (world.size() == 1) return;
    const auto blocks = chunkwise::partition(100, parts{10 + static_cast<std::size_t>(world.rank())});
    REQUIRE_THROWS_AS(chunkwise::map_blocks(policy, blocks, [](const block& b) { return b.size(); }),
                      std::invalid_argument);
    world.barrier();  // the communicator still works
}

TEST_CASE("policies need MPI initialized, and hybrid needs threads", "[mpi]") {
    REQUIRE_THROWS_AS(chunkwise::hybrid_policy({}, 0), std::invalid_argument);
    chunkwise::mpi_policy p;
    boost::mpi::communicator world;
    REQUIRE(p.workers() == static_cast<std::size_t>(world.size()));
    chunkwise::hybrid_policy h({}, 3);
    REQUIRE(h.workers() == 3 * static_cast<std::size_t>(world.size()));
    REQUIRE(h.threads_per_rank() == 3);
}
