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
    REQUIRE_THROWS_AS(zarr::write_blocks(policy, dir / "file", chunkwise::map_blocks(policy, blocks, rows)),
                      zarr::error);
    // Options that differ on one rank: every rank refuses, naming them.
    zarr::write_options opt;
    opt.chunk = {boost::mpi::communicator().rank() == 1 ? std::size_t{3} : std::size_t{2}};
    if (boost::mpi::communicator().size() > 1) {
        REQUIRE_THROWS_WITH(zarr::write_blocks(policy, dir / "s", chunkwise::map_blocks(policy, blocks, rows), opt),
                            Catch::Matchers::Contains("write_options"));
    }
}

TEMPLATE_TEST_CASE(
    "zarr::stream_writer across ranks: every rank streams its blocks into one store, shared chunk "
    "rows completed once",
    "[mpi][zarr][stream]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("zarr-stream");
    for (int format : {2, 3}) {
        zarr::write_options opt{
            .chunk = {5, 2, 2}, .codec = "zstd", .format = format, .mode = chunkwise::write_mode::replace};
        if (format == 3) opt.shard = {10, 2, 4};
        const auto store = dir / ("s" + std::to_string(format));
        zarr::stream_writer<float> w(policy, store, {61, 2, 3}, opt);
        // 9 blocks of 6-7 rows: most chunk (shard) rows are shared by blocks of two ranks.
        (void)chunkwise::map_blocks(policy, chunkwise::partition(61, chunkwise::parts{9}),
                                    [&](const chunkwise::block& b) {
                                        xt::xtensor<float, 3> t = xt::xtensor<float, 3>::from_shape({b.size(), 2, 3});
                                        for (std::size_t i = 0; i < t.size(); ++i)
                                            t.data()[i] = static_cast<float>(b.begin * 6 + i);
                                        w.write(b, t);
                                        return 0;
                                    });
        w.close();
        const auto got = zarr::array(store).read<float, 3>(chunkwise::block{0, 0, 61});
        for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got.data()[i] == static_cast<float>(i));
    }
    world.barrier();
}

TEMPLATE_TEST_CASE(
    "zarr::stream_writer across ranks: rows missing or given twice are every rank's error, and "
    "nothing is kept",
    "[mpi][zarr][stream]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("zarr-stream-bad");
    const std::vector<double> two(2, 1.0);
    {
        zarr::stream_writer<double> w(policy, dir / "gap", {2 * static_cast<std::size_t>(world.size()) + 2},
                                      {.chunk = {3}});
        w.write(2 * static_cast<std::size_t>(world.rank()), two);  // rows past the ranks' never written
        REQUIRE_THROWS_WITH(
            w.close(),
            Catch::Matchers::EndsWith("stream_writer: closed with rows [" + std::to_string(2 * world.size()) + ", " +
                                      std::to_string(2 * world.size() + 2) + ") never written, nothing kept"));
    }
    world.barrier();
    REQUIRE_FALSE(std::filesystem::exists(dir / "gap"));
    if (world.size() > 1) {
        zarr::stream_writer<double> w(policy, dir / "twice", {4}, {.chunk = {3}});
        w.write(world.rank() < 2 ? std::size_t{1} : std::size_t{3}, std::vector<double>(world.rank() < 2 ? 2 : 1));
        if (world.rank() == 0) w.write(0, std::vector<double>(1));
        REQUIRE_THROWS_WITH(
            w.close(), Catch::Matchers::EndsWith("closed with rows [1, 3) given by rank 0 and rank 1, nothing kept"));
    }
    world.barrier();
    REQUIRE_FALSE(std::filesystem::exists(dir / "twice"));
    // Another shape on one rank: every rank refuses, naming it.
    if (world.size() > 1) {
        REQUIRE_THROWS_WITH(
            zarr::stream_writer<double>(policy, dir / "shape", {world.rank() == 1 ? std::size_t{5} : std::size_t{4}}),
            Catch::Matchers::Contains("shapes"));
    }
}

TEMPLATE_TEST_CASE("zarr::write_blocks and stream_writer: append and update across ranks, blocks sharing shards",
                   "[mpi][zarr][modes]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto store = test::shared_scratch("zarr-write-modes") / "m.zarr";
    const auto rows = [](float base) {
        return [base](const chunkwise::block& b) {
            xt::xtensor<float, 2> t = xt::xtensor<float, 2>::from_shape({b.size(), 3});
            for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = base + static_cast<float>(b.begin * 3 + i);
            return t;
        };
    };
    zarr::write_options opt;
    opt.chunk = {4, 3};
    opt.codec = "zstd";
    opt.format = 3;
    opt.shard = {8, 3};
    opt.mode = chunkwise::write_mode::replace;
    zarr::write_blocks(policy, store,
                       chunkwise::map_blocks(policy, chunkwise::partition(30, chunkwise::parts{4}), rows(0)), opt);
    // 7 blocks of 2-3 rows from row 5: every shard they touch is shared by blocks of several ranks
    const auto blocks = chunkwise::partition(17, chunkwise::parts{7});
    zarr::write_blocks(policy, store, chunkwise::map_blocks(policy, blocks, rows(1000)),
                       {.mode = chunkwise::write_mode::update, .first_row = 5});
    zarr::write_blocks(policy, store, chunkwise::map_blocks(policy, blocks, rows(5000)),
                       {.mode = chunkwise::write_mode::append});
    {  // the stream writer: the same rows again, each rank its blocks' as they are made
        zarr::stream_writer<float> update(policy, store, {17, 3},
                                          {.mode = chunkwise::write_mode::update, .first_row = 5});
        (void)chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
            update.write(b, rows(1000)(b));
            return 0;
        });
        update.close();
        zarr::stream_writer<float> append(policy, store, {17, 3}, {.mode = chunkwise::write_mode::append});
        (void)chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
            append.write(b, rows(8000)(b));
            return 0;
        });
        append.close();
    }
    const zarr::array a(store);
    REQUIRE(a.shape() == std::vector<std::size_t>{64, 3});
    const auto got = a.read<float, 2>(chunkwise::block{0, 0, 64});
    std::size_t wrong = 0;
    for (std::size_t r = 0; r < 64; ++r)
        for (std::size_t c = 0; c < 3; ++c) {
            const float want = r < 5 || (r >= 22 && r < 30) ? static_cast<float>(r * 3 + c)
                               : r < 22                     ? 1000.0f + static_cast<float>((r - 5) * 3 + c)
                               : r < 47                     ? 5000.0f + static_cast<float>((r - 30) * 3 + c)
                                                            : 8000.0f + static_cast<float>((r - 47) * 3 + c);
            wrong += got(r, c) != want;
        }
    CHECK(wrong == 0);
    world.barrier();
}

// Every rank updates interleaved single rows of one sharded v3 array (each chunk and shard holds rows of every rank)
// with zarr::write on its own, no collective between the writes, 50 rounds: every value written is read back.
TEST_CASE("zarr::write update: ranks writing rows of shared chunks and shards on their own lose nothing",
          "[mpi][zarr][modes]") {
    boost::mpi::communicator world;
    const std::size_t ranks = static_cast<std::size_t>(world.size()), me = static_cast<std::size_t>(world.rank());
    const std::size_t rows = 4 * ranks;
    const auto store = test::shared_scratch("zarr-write-races") / "r.zarr";
    zarr::write_options opt;
    opt.chunk = {ranks, 2};
    opt.codec = "zstd";
    opt.format = 3;
    opt.shard = {2 * ranks, 4};
    if (me == 0) zarr::write(store, xt::xtensor<float, 2>(xt::zeros<float>({rows, std::size_t{4}})), opt);
    world.barrier();
    std::size_t lost = 0;
    for (std::size_t round = 1; round <= 50; ++round) {
        for (std::size_t r = me; r < rows; r += ranks) {
            xt::xtensor<float, 2> one = xt::xtensor<float, 2>::from_shape({1, 4});
            for (std::size_t c = 0; c < 4; ++c) one(0, c) = static_cast<float>(1000 * round + 10 * r + c);
            zarr::write(store, one, {.mode = chunkwise::write_mode::update, .first_row = r});
        }
        world.barrier();
        if (me == 0) {
            const auto got = zarr::array(store).read<float, 2>(chunkwise::block{0, 0, rows});
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < 4; ++c) lost += got(r, c) != static_cast<float>(1000 * round + 10 * r + c);
        }
        world.barrier();
    }
    CHECK(lost == 0);
}
