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

TEST_CASE("a parallel HDF5 switches on collective writes by itself", "[mpi][hdf5]") {
    // The headers read H5_HAVE_PARALLEL from hdf5.h; no build-system macro is needed.
#if defined(H5_HAVE_PARALLEL)
    REQUIRE(CHUNKWISE_HDF5_PARALLEL == 1);
#elif defined(CHUNKWISE_HDF5_PARALLEL)
    FAIL("CHUNKWISE_HDF5_PARALLEL is defined though hdf5.h is a serial build");
#else
    SUCCEED("serial HDF5: write_blocks streams through the root, which writes");
#endif
}

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
    // (with attributes: written by the rank that creates the dataset, or collectively with parallel HDF5)
    const chunkwise::attributes about{{"units", std::string("nm")},
                                      {"ranks", std::int64_t{world.size()}},
                                      {"axes", std::vector<std::string>{"frame", "atom", "xyz"}}};
    h5::write_blocks(policy, file, "/plain", chunkwise::map_blocks(policy, blocks, rows), {.attributes = about});
    REQUIRE(h5::dataset(file, "/plain").attrs() == about);
    REQUIRE(h5::dataset(file, "/frames").attrs().empty());
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

TEMPLATE_TEST_CASE("write_blocks: arguments that differ on one rank are refused by every rank, naming them",
                   "[mpi][hdf5][write]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-args");
    const auto blocks = chunkwise::partition(20, chunkwise::parts{5});
    auto rows = [](const chunkwise::block& b) { return std::vector<double>(b.size(), double(b.index)); };
    const bool odd = world.rank() == world.size() - 1 && world.size() > 1;
    auto refused = [&](auto&& write, const std::string& what, const std::string& mine, const std::string& theirs) {
        if (world.size() == 1) return;
        try {
            write();
            FAIL("write_blocks did not refuse arguments that differ between ranks");
        } catch (const std::invalid_argument& e) {
            const std::string w = e.what();
            INFO(w);
            REQUIRE(w.find("ranks pass different " + what) != std::string::npos);
            REQUIRE(w.find("rank 0 '" + theirs) != std::string::npos);
            REQUIRE(w.find("rank " + std::to_string(world.size() - 1) + " '" + mine) != std::string::npos);
        }
    };
    const std::string good = (dir / "out.h5").string();
    const std::string other = (dir / "other.h5").string();
    refused([&] { h5::write_blocks(policy, odd ? other : good, "/r", chunkwise::map_blocks(policy, blocks, rows)); },
            "files", other, good);
    refused([&] { h5::write_blocks(policy, good, odd ? "/s" : "/r", chunkwise::map_blocks(policy, blocks, rows)); },
            "datasets", "/s", "/r");
    h5::write_options opt;
    if (odd) opt.deflate = 3;
    refused([&] { h5::write_blocks(policy, good, "/r", chunkwise::map_blocks(policy, blocks, rows), opt); },
            "write_options", "chunk automatic, deflate 3", "chunk automatic, deflate 0");
    // Nothing was created, and the same call with agreeing arguments works.
    REQUIRE_FALSE(std::filesystem::exists(other));
    h5::write_blocks(policy, good, "/r", chunkwise::map_blocks(policy, blocks, rows));
    REQUIRE(h5::dataset(good, "/r").shape() == std::vector<std::size_t>{20});
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}

TEMPLATE_TEST_CASE("write_blocks after every block failed: an empty dataset, with serial and parallel HDF5 alike",
                   "[mpi][hdf5][write]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-empty");
    const auto file = dir / "out.h5";
    const auto blocks = chunkwise::partition(20, chunkwise::parts{5});
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    auto fails = [](const chunkwise::block&) -> std::vector<double> { throw std::runtime_error("no data"); };
    auto two_d = [](const chunkwise::block&) -> xt::xtensor<float, 2> { throw std::runtime_error("no data"); };
    h5::write_blocks(policy, file, "/vector", chunkwise::map_blocks(policy, blocks, fails, opt));
    h5::write_blocks(policy, file, "/tensor", chunkwise::map_blocks(policy, blocks, two_d, opt));
    for (const char* name : {"/vector", "/tensor"}) {
        h5::dataset ds(file, name);
        REQUIRE(ds.shape() == std::vector<std::size_t>{0});
        REQUIRE(ds.read<double>(chunkwise::block{0, 0, 0}).size() == 0);
    }
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}

TEMPLATE_TEST_CASE("ragged records, selected indices and a file series: each rank reads its rows",
                   "[mpi][hdf5][shapes]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-shapes");
    const std::vector<std::size_t> lengths{7, 1, 12, 9};
    std::vector<std::filesystem::path> parts;
    for (std::size_t f = 0; f < lengths.size(); ++f) parts.push_back(dir / ("part-" + std::to_string(f) + ".h5"));
    auto value = [](std::size_t row, std::size_t atom, std::size_t c) { return float(row * 1000 + atom * 3 + c); };
    if (world.rank() == 0) {
        h5::ragged<unsigned short> records;
        for (std::size_t i = 0; i < 101; ++i) {
            std::vector<unsigned short> r((i * 5) % 23);
            for (std::size_t j = 0; j < r.size(); ++j) r[j] = static_cast<unsigned short>(i * 100 + j);
            records.push_back(r);
        }
        h5::write_ragged(dir / "ragged.h5", "records", records, h5::write_options{{8}, 0, false});
        std::size_t row = 0;
        for (std::size_t f = 0; f < lengths.size(); ++f) {
            xt::xtensor<float, 3> v = xt::xtensor<float, 3>::from_shape({lengths[f], 40, 3});
            for (std::size_t r = 0; r < lengths[f]; ++r)
                for (std::size_t a = 0; a < 40; ++a)
                    for (std::size_t c = 0; c < 3; ++c) v(r, a, c) = value(row + r, a, c);
            h5::write(parts[f], "pos", v,
                      h5::write_options{{std::min<std::size_t>(2, lengths[f]), 8, 3}, f % 2 == 0 ? 1 : 0, false});
            row += lengths[f];
        }
    }
    world.barrier();
    chunkwise::serial_policy serial;

    h5::dataset ds(dir / "ragged.h5", "records");
    auto sums = [&](const chunkwise::block& b) {
        const auto r = ds.read_ragged<double>(b);
        std::vector<double> out;
        for (std::size_t i = 0; i < r.size(); ++i) {
            double s = 0;
            for (double x : r[i]) s += x;
            out.push_back(s * 100 + static_cast<double>(r[i].size()));
        }
        return out;
    };
    const auto blocks = chunkwise::partition(101, parts_for(world));
    REQUIRE(chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, sums)) ==
            chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, sums)));

    h5::dataset_series series(parts, "pos", 2);
    REQUIRE(series.shape() == std::vector<std::size_t>{29, 40, 3});
    const std::vector<std::size_t> atoms{39, 0, 8, 8, 17};
    auto pick = [&](const chunkwise::block& b) { return series.read<float, 3>(b, h5::indices{1, atoms}); };
    const auto series_blocks = h5::partition(series, parts_for(world));
    const auto got = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, series_blocks, pick));
    REQUIRE(got.size() == series_blocks.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        for (std::size_t r = series_blocks[i].begin; r < series_blocks[i].end; ++r)
            for (std::size_t j = 0; j < atoms.size(); ++j)
                REQUIRE(got[i](r - series_blocks[i].begin, j, 2) == value(r, atoms[j], 2));
    }
}

namespace {
// Spill files left beside `file` (none after a write, whether it succeeded or failed).
std::size_t spill_files(const std::filesystem::path& file) {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(file.parent_path()))
        if (e.path().filename().string().find(".chunkwise-spill-") != std::string::npos) ++n;
    return n;
}
}  // namespace

TEMPLATE_TEST_CASE("stream_writer under MPI: every rank encodes its rows, chunks shared by ranks written once, whole",
                   "[mpi][hdf5][write][stream]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-stream");
    const auto file = dir / "out.h5";
    // Blocks of 7 rows, chunks of 4: most chunks hold rows of two blocks, often of two ranks.
    const auto blocks = chunkwise::partition(103, chunkwise::parts{15});
    const auto value = [](std::size_t i) { return static_cast<float>(i % 1000) * 0.5f + static_cast<float>(i / 1000); };
    auto rows = [&](const chunkwise::block& b) {
        std::vector<float> v(b.size() * 6);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(b.begin * 6 + i);
        return v;
    };
    for (const char* codec : {"lz4", "", "zstd"}) {
        INFO(codec);
        const std::string name = std::string("/s/") + (codec[0] == 0 ? "plain" : codec);
        h5::write_options opt{.chunk = {4, 6}, .shuffle = true, .codec = codec};
        if (codec[0] == 0) opt = {};  // contiguous: the rows themselves travel
        h5::stream_writer<float> w(policy, file, name, {103, 6}, opt);
        (void)chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
            w.write(b.begin, rows(b));
            return 0;
        });
        w.close();
        REQUIRE(spill_files(file) == 0);
        h5::dataset ds(file, name);
        REQUIRE(ds.shape() == std::vector<std::size_t>{103, 6});
        const auto got = ds.read<float, 2>(chunkwise::block{0, 0, 103});
        for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got.data()[i] == value(i));
        world.barrier();  // every rank has read before the next write opens the file
    }
    // Rows from another run into the dataset there: append on every rank, then an update of a region.
    {
        // (deflate: HDF5's own filter, which rewrites the chunks an append shares, in every HDF5 build)
        h5::stream_writer<float> w(policy, file, "/grow", {10, 6}, {.chunk = {4, 6}, .deflate = 1, .growable = true});
        (void)chunkwise::map_blocks(policy, chunkwise::partition(10, chunkwise::parts{3}),
                                    [&](const chunkwise::block& b) {
                                        w.write(b.begin, rows(b));
                                        return 0;
                                    });
        w.close();
        world.barrier();
        h5::stream_writer<float> more(policy, file, "/grow", {93, 6},
                                      {.deflate = 1, .mode = chunkwise::write_mode::append});
        (void)chunkwise::map_blocks(policy, chunkwise::partition(93, chunkwise::parts{11}),
                                    [&](const chunkwise::block& b) {
                                        more.write(b.begin, rows(chunkwise::block{b.index, b.begin + 10, b.end + 10}));
                                        return 0;
                                    });
        more.close();
        REQUIRE(spill_files(file) == 0);
        h5::dataset ds(file, "/grow");
        REQUIRE(ds.shape() == std::vector<std::size_t>{103, 6});
        const auto got = ds.read<float, 2>(chunkwise::block{0, 0, 103});
        for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got.data()[i] == value(i));
        world.barrier();
    }
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}

TEMPLATE_TEST_CASE("stream_writer under MPI: rows one rank never gave are every rank's error, nothing kept",
                   "[mpi][hdf5][write][stream]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-stream-gap");
    const auto file = dir / "out.h5";
    const auto blocks = chunkwise::partition(40, chunkwise::parts{8});
    h5::stream_writer<double> w(policy, file, "/gap", {40}, {.chunk = {3}, .codec = "zstd"});
    (void)chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        if (b.index != 5) w.write(b.begin, std::vector<double>(b.size(), 1.0));
        return 0;
    });
    REQUIRE_THROWS_WITH(w.close(), Catch::Matchers::Contains("closed with rows [25, 30) never written, nothing kept"));
    REQUIRE(spill_files(file) == 0);
    if (world.rank() == 0 && std::filesystem::exists(file)) REQUIRE_THROWS_AS(h5::dataset(file, "/gap"), h5::error);
    world.barrier();
    // A writer given bad rows refuses them on its rank; the same communicator still works.
    h5::stream_writer<double> again(policy, file, "/gap", {40}, {.chunk = {3}, .codec = "zstd"});
    if (world.rank() == 0)
        REQUIRE_THROWS_WITH(again.write(38, std::vector<double>(4, 0.0)), Catch::Matchers::Contains("pass the end"));
    (void)chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        again.write(b.begin, std::vector<double>(b.size(), double(b.index)));
        return 0;
    });
    again.close();
    const auto got = h5::dataset(file, "/gap").read<double>(chunkwise::block{0, 0, 40});
    for (std::size_t i = 0; i < 40; ++i) REQUIRE(got[i] == double(i / 5));
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}

TEMPLATE_TEST_CASE("write_blocks under MPI with a codec and into a dataset there: no rank gathers",
                   "[mpi][hdf5][write]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = test::shared_scratch("hdf5-codec");
    const auto file = dir / "out.h5";
    const auto blocks = chunkwise::partition(50, chunkwise::parts{7});
    auto rows = [](const chunkwise::block& b) {
        xt::xtensor<std::int32_t, 2> t = xt::xtensor<std::int32_t, 2>::from_shape({b.size(), 3});
        for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<std::int32_t>(b.begin * 3 + i);
        return t;
    };
    h5::write_blocks(policy, file, "/y", chunkwise::map_blocks(policy, blocks, rows),
                     {.chunk = {4, 3}, .shuffle = true, .codec = "zstd", .level = 3});
    REQUIRE(spill_files(file) == 0);
    const auto zstd = h5::dataset(file, "/y").read<std::int32_t, 2>(chunkwise::block{0, 0, 50});
    for (std::size_t i = 0; i < zstd.size(); ++i) REQUIRE(zstd.data()[i] == static_cast<std::int32_t>(i));
    world.barrier();
    // An update rewrites the chunks it shares with rows there through HDF5's own filters (deflate: in every build).
    h5::write_blocks(policy, file, "/z", chunkwise::map_blocks(policy, blocks, rows),
                     {.chunk = {4, 3}, .deflate = 3, .shuffle = true});
    REQUIRE(spill_files(file) == 0);
    // Rows 20-49 again, times -1, at rows 0-29 (update), in the same codec.
    const auto twenty = chunkwise::partition(30, chunkwise::parts{4});
    auto negated = [&](const chunkwise::block& b) {
        auto t = rows(chunkwise::block{b.index, b.begin + 20, b.end + 20});
        for (auto& x : t) x = -x;
        return t;
    };
    h5::write_blocks(policy, file, "/z", chunkwise::map_blocks(policy, twenty, negated),
                     {.deflate = 3, .shuffle = true, .mode = chunkwise::write_mode::update});
    const auto got = h5::dataset(file, "/z").read<std::int32_t, 2>(chunkwise::block{0, 0, 50});
    for (std::size_t i = 0; i < got.size(); ++i)
        REQUIRE(got.data()[i] == (i < 90 ? -static_cast<std::int32_t>(i + 60) : static_cast<std::int32_t>(i)));
    REQUIRE(h5::dataset(file, "/z").filters().size() >= 2);
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(dir);
}
