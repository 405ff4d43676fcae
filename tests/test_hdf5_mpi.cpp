// HDF5 under MPI: every rank opens the file itself, read-only, and reads its own blocks; the
// gathered result equals a serial read to the bit, for every MPI policy.
#include "catch.hpp"
#include "h5_files.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/mpi.hpp>

#if __has_include(<xtensor/reducers/xreducer.hpp>)
#include <xtensor/reducers/xreducer.hpp>
#else
#include <xtensor/xreducer.hpp>
#endif

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <functional>
#include <string>

namespace h5 = chunkwise::h5;

namespace {
// More blocks than ranks, and uneven.
chunkwise::parts parts_for(const boost::mpi::communicator& world) {
    return chunkwise::parts{static_cast<std::size_t>(world.size()) * 3 + 1};
}
}  // namespace

TEMPLATE_TEST_CASE("each rank reads its blocks of a shared file", "[mpi][hdf5]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    // One file for all ranks, written by rank 0.
    const auto dir = test::shared_scratch("hdf5-read");
    const auto file = dir / "data.h5";
    if (world.rank() == 0) {
        test::write_dataset(file, "/traj/xyz", {97, 11, 3}, test::type("f32le"), test::layout("deflate+shuffle"),
                            {4, 11, 3});
        test::write_dataset(file, "/traj/box", {97, 3}, test::type("f64be"), test::layout("contiguous"), {});
    }
    world.barrier();
    for (const char* name : {"/traj/xyz", "/traj/box"}) {
        h5::dataset ds(file, name);  // every rank opens it itself
        const auto blocks = h5::partition(ds, parts_for(world));
        auto read = [&](const chunkwise::block& b) { return ds.read<double>(b); };
        chunkwise::serial_policy serial;
        const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, read));
        const auto got = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, read));
        REQUIRE(got.size() == expect.size());
        for (std::size_t i = 0; i < got.size(); ++i) REQUIRE((got[i] == expect[i]));
        const double sum = chunkwise::all_reduce(
            policy,
            chunkwise::map_blocks(policy, blocks,
                                  [&](const chunkwise::block& b) { return xt::sum(ds.read<double>(b))(); }),
            std::plus<>{});
        const double serial_sum = chunkwise::reduce(
            serial,
            chunkwise::map_blocks(serial, blocks,
                                  [&](const chunkwise::block& b) { return xt::sum(ds.read<double>(b))(); }),
            std::plus<>{});
        REQUIRE(sum == serial_sum);
    }
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}

TEMPLATE_TEST_CASE("write_blocks: every rank's blocks land in one dataset", "[mpi][hdf5][write]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-write");
    const auto file = dir / "data.h5";
    const auto blocks = chunkwise::partition(61, chunkwise::parts{9});
    auto rows = [](const chunkwise::block& b) {
        xt::xtensor<float, 3> t = xt::xtensor<float, 3>::from_shape({b.size(), 2, 3});
        for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<float>(b.begin * 6 + i);
        return t;
    };
    h5::write_options opt;
    opt.chunk = {5, 2, 3};
    opt.deflate = 2;
    h5::write_blocks(policy, file, "/frames", chunkwise::map_blocks(policy, blocks, rows), opt);
    h5::write_blocks(policy, file, "/plain", chunkwise::map_blocks(policy, blocks, rows));
    // Every rank returns after the data is in the file.
    for (const char* name : {"/frames", "/plain"}) {
        h5::dataset ds(file, name);
        REQUIRE(ds.shape() == std::vector<std::size_t>{61, 2, 3});
        const auto a = ds.read<float, 3>(chunkwise::block{0, 0, 61});
        for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(a.data()[i] == static_cast<float>(i));
    }
    REQUIRE(h5::dataset(file, "/frames").chunk_shape() == std::vector<std::size_t>{5, 2, 3});
    REQUIRE_THROWS_AS(h5::write_blocks(policy, file, "/frames", chunkwise::map_blocks(policy, blocks, rows)),
                      h5::error);
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}

TEMPLATE_TEST_CASE("write_blocks: one rank's results of another shape is every rank's h5::error", "[mpi][hdf5][write]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-shape");
    const auto file = dir / "data.h5";
    const auto blocks = chunkwise::partition(40, chunkwise::parts{8});
    // The last block has 4 columns where the others have 3 (an analysis bug on one rank's data).
    auto rows = [](const chunkwise::block& b) {
        return xt::xtensor<double, 2>::from_shape({b.size(), std::size_t{b.index == 7 ? 4u : 3u}});
    };
    REQUIRE_THROWS_WITH(h5::write_blocks(policy, file, "/bad", chunkwise::map_blocks(policy, blocks, rows)),
                        Catch::Matchers::Contains("disagree in shape beyond axis 0"));
    // Every rank returned (no one waits in a collective): the same communicator still works.
    auto good = [](const chunkwise::block& b) {
        return xt::xtensor<double, 2>::from_shape({b.size(), std::size_t{3}});
    };
    h5::write_blocks(policy, file, "/good", chunkwise::map_blocks(policy, blocks, good));
    REQUIRE(h5::dataset(file, "/good").shape() == std::vector<std::size_t>{40, 3});
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}
