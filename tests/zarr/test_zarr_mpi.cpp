// zarr::write_blocks across MPI ranks: rank 0 writes the metadata, every rank its own chunks
// (and the chunks its blocks share with other ranks' by one owner), for every MPI policy; a
// failure on one rank is every rank's zarr::error.
#include "catch.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>
#include <chunkwise/zarr.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace zarr = chunkwise::zarr;

TEMPLATE_TEST_CASE("zarr::write_blocks: every rank's blocks land in one store, shared chunks untorn", "[mpi][zarr]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("zarr-write");
    auto rows = [](const chunkwise::block& b) {
        xt::xtensor<float, 3> t = xt::xtensor<float, 3>::from_shape({b.size(), 2, 3});
        for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<float>(b.begin * 6 + i);
        return t;
    };
    for (int format : {2, 3}) {
        zarr::write_options opt;
        opt.chunk = {5, 2, 2};
        opt.codec = "zstd";
        opt.format = format;
        opt.mode = chunkwise::write_mode::replace;  // each policy of the test writes the same stores again
        if (format == 3) opt.shard = {10, 2, 4};
        // 9 blocks of 6-7 rows: most chunk rows are shared by blocks of two ranks.
        const auto blocks = chunkwise::partition(61, chunkwise::parts{9});
        const auto store = dir / ("s" + std::to_string(format));
        zarr::write_blocks(policy, store, chunkwise::map_blocks(policy, blocks, rows), opt);
        // Every rank returns once every chunk is written.
        const zarr::array a(store);
        REQUIRE(a.shape() == std::vector<std::size_t>{61, 2, 3});
        const auto got = a.read<float, 3>(chunkwise::block{0, 0, 61});
        for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got.data()[i] == static_cast<float>(i));
        // Blocks aligned to the chunk (shard) rows for the same options.
        const auto aligned = zarr::partition(61, opt, chunkwise::parts{4});
        zarr::write_blocks(policy, store, chunkwise::map_blocks(policy, aligned, rows), opt);
        const bool same = zarr::array(store).read<float, 3>(chunkwise::block{0, 0, 61}) == got;
        REQUIRE(same);
    }
    world.barrier();
}

TEMPLATE_TEST_CASE("zarr::write_blocks: a store no rank can write is every rank's zarr::error", "[mpi][zarr]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    const auto dir = test::shared_scratch("zarr-write-bad");
    if (boost::mpi::communicator().rank() == 0) std::ofstream(dir / "file") << "x";
    boost::mpi::communicator().barrier();
    const auto blocks = chunkwise::partition(10, chunkwise::parts{4});
    auto rows = [](const chunkwise::block& b) { return std::vector<double>(b.size(), 1.0); };
    REQUIRE_THROWS_AS(zarr::write_blocks(policy, dir / "file", chunkwise::map_blocks(policy, blocks, rows)), zarr::error);
    // Options that differ on one rank: every rank refuses, naming them.
    zarr::write_options opt;
    opt.chunk = {boost::mpi::communicator().rank() == 1 ? std::size_t{3} : std::size_t{2}};
    if (boost::mpi::communicator().size() > 1) {
        REQUIRE_THROWS_WITH(zarr::write_blocks(policy, dir / "s", chunkwise::map_blocks(policy, blocks, rows), opt),
                            Catch::Matchers::Contains("write_options"));
    }
}
