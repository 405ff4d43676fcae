// chunkwise::h5: every block of every layout, filter, byte order and type equals H5Dread to the
// bit; concurrent reads; chunk-aligned partitions; errors for every kind of bad input.
#include "catch.hpp"
#include "h5_files.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

using chunkwise::block;
using chunkwise::parts;
namespace h5 = chunkwise::h5;
// The namespace under the name of its folder and component too.
static_assert(std::is_same_v<chunkwise::hdf5::dataset, chunkwise::h5::dataset>);

namespace {

template <class T>
bool same_bits(const T* a, const std::vector<T>& b) {
    return b.empty() || std::memcmp(a, b.data(), b.size() * sizeof(T)) == 0;
}

// Reads the HDF5 linked refuses itself (HDF5 1.14's scale-offset check: integers that need every
// bit of their type), where chunkwise must throw an h5::error naming HDF5's reason.
std::size_t refused_by_hdf5 = 0;

template <class T>
void require_refused(const h5::dataset& ds, const block& b) {
    ++refused_by_hdf5;
    std::string what;
    try {
        (void)ds.read<T>(b);
    } catch (const h5::error& e) {
        what = e.what();
    }
    INFO(what);
    REQUIRE(what.find(ds.path()) != std::string::npos);  // an h5::error naming the dataset
}

template <class T>
void check_all_blocks(const std::filesystem::path& file, const std::string& name, hid_t mem) {
    h5::dataset ds(file, name, chunkwise::read_options{.convert = true});  // H5Dread's conversions, compared
    for (std::size_t p : {1u, 3u, 7u}) {
        for (const block& b : h5::partition(ds, parts{p})) {
            INFO(name << " as " << typeid(T).name() << " rows [" << b.begin << ", " << b.end << ")");
            const auto expect = test::try_h5dread<T>(file, name, mem, b.begin, b.end);
            if (!expect) {  // the HDF5 linked refuses these chunks itself: an h5::error, never values
                require_refused<T>(ds, b);
                continue;
            }
            const xt::xarray<T> got = ds.read<T>(b);
            REQUIRE(got.size() == expect->size());
            REQUIRE(same_bits(got.data(), *expect));
        }
    }
    // Blocks that cut through chunks too.
    for (const block& b : chunkwise::partition(ds.shape()[0], parts{5})) {
        const auto expect = test::try_h5dread<T>(file, name, mem, b.begin, b.end);
        std::vector<T> got(expect ? expect->size() : 0);
        if (!expect) {
            require_refused<T>(ds, b);
            continue;
        }
        ds.read_into(b, std::span<T>(got));
        REQUIRE(got == *expect);
    }
}

}  // namespace

TEST_CASE("every layout, filter, type and rank reads as H5Dread does, to the bit", "[hdf5]") {
    const auto dir = test::scratch("layouts");
    const auto file = dir / "all.h5";
    const std::vector<std::vector<hsize_t>> shapes{{37}, {23, 5}, {19, 6, 3}};
    const std::vector<std::vector<hsize_t>> chunks{{8}, {4, 3}, {5, 4, 2}};  // partial edge chunks
    for (const auto& layout : test::layouts()) {
        for (const auto& type : test::types()) {
            for (std::size_t r = 0; r < shapes.size(); ++r) {
                const std::string name = "/" + layout.name + "/" + type.name + "/rank" + std::to_string(r + 1);
                test::write_dataset(file, name, shapes[r], type, layout, chunks[r]);
            }
        }
    }
    for (const auto& layout : test::layouts()) {
        for (const auto& type : test::types()) {
            for (std::size_t r = 0; r < shapes.size(); ++r) {
                const std::string name = "/" + layout.name + "/" + type.name + "/rank" + std::to_string(r + 1);
                check_all_blocks<double>(file, name, H5T_NATIVE_DOUBLE);
                check_all_blocks<float>(file, name, H5T_NATIVE_FLOAT);  // narrowing for some: H5Dread's rules
                check_all_blocks<std::int64_t>(file, name, H5T_NATIVE_INT64);
                check_all_blocks<std::int16_t>(file, name, H5T_NATIVE_INT16);
            }
        }
    }
#if !H5_VERSION_GE(1, 14, 0)
    REQUIRE(refused_by_hdf5 == 0);  // HDF5 before 1.14 reads every one of these files
#endif
    std::filesystem::remove_all(dir);
}

TEST_CASE("metadata: shape, chunks, type, filters, and which reads decode in the worker", "[hdf5]") {
    const auto dir = test::scratch("meta");
    const auto file = dir / "m.h5";
    test::write_dataset(file, "/a/b", {10, 4, 3}, test::type("f32be"), test::layout("deflate+shuffle"), {3, 4, 3});
    test::write_dataset(file, "/c", {12}, test::type("f32le"), test::layout("contiguous"), {});
    test::write_dataset(file, "/f", {12}, test::type("f32le"), test::layout("fletcher32"), {4});
    h5::dataset ds(file, "a/b");
    REQUIRE(ds.shape() == std::vector<std::size_t>{10, 4, 3});
    REQUIRE(ds.rank() == 3);
    REQUIRE(ds.chunk_shape() == std::vector<std::size_t>{3, 4, 3});
    REQUIRE(ds.type_name() == "32-bit float, big-endian");
    REQUIRE(ds.element_size() == 4);
    REQUIRE(ds.filters() == std::vector<std::string>{"shuffle", "deflate"});
    REQUIRE(ds.path() == "/a/b");
    // Chunk locations come from the file's own chunk index (CHUNKWISE_HDF5_INDEX=off: the tests
    // *.noindex), else the probe driver (CHUNKWISE_HDF5_PROBE=off: *.noprobe), else HDF5's chunk
    // listing where it has one; else H5Dread serves.
    const bool index = chunkwise::h5::detail::index_walk_unused_because().empty();
    const bool probe = chunkwise::h5::detail::probe_driver::unused_because().empty();
    const bool located = index || probe || chunkwise::h5::detail::has_chunk_iter;
    REQUIRE(ds.decodes_in_worker<float>() == located);
    REQUIRE(ds.decodes_in_worker<double>() == located);
    REQUIRE_FALSE(ds.decodes_in_worker<std::int32_t>());  // float to int: H5Dread's conversion
    h5::dataset c(file, "/c");
    REQUIRE_FALSE(c.chunk_shape().has_value());
    REQUIRE(c.decodes_in_worker<double>());  // contiguous: pread, with or without the probe driver
    h5::dataset f(file, "/f");
    REQUIRE(f.filters() == std::vector<std::string>{"fletcher32"});
    REQUIRE(f.decodes_in_worker<float>() == located);  // fletcher32: checked in the worker too
    h5::dataset copy = ds;                        // cheap copies share one open dataset
    REQUIRE((copy.read<float, 3>(block{0, 2, 5}) == ds.read<float, 3>(block{0, 2, 5})));
    std::filesystem::remove_all(dir);
}

TEST_CASE("partition is chunk-aligned and balanced in whole chunks", "[hdf5]") {
    const auto dir = test::scratch("partition");
    const auto file = dir / "p.h5";
    test::write_dataset(file, "/x", {103, 2}, test::type("f32le"), test::layout("chunked"), {10, 2});
    test::write_dataset(file, "/y", {103, 2}, test::type("f32le"), test::layout("contiguous"), {});
    h5::dataset x(file, "/x");
    const auto blocks = h5::partition(x, parts{4});
    REQUIRE(blocks == chunkwise::partition(103, parts{4}, chunkwise::align{10}));
    for (std::size_t i = 0; i + 1 < blocks.size(); ++i) REQUIRE(blocks[i].end % 10 == 0);
    REQUIRE(h5::partition(x, parts{50}).size() == 11);  // never more blocks than chunks
    REQUIRE(h5::partition(h5::dataset(file, "/y"), parts{4}) == chunkwise::partition(103, parts{4}));
    std::filesystem::remove_all(dir);
}

TEST_CASE("empty datasets read as empty arrays", "[hdf5]") {
    const auto dir = test::scratch("empty");
    const auto file = dir / "e.h5";
    test::write_dataset(file, "/e", {0, 3}, test::type("f32le"), test::layout("contiguous"), {});
    test::write_dataset(file, "/ec", {0, 3}, test::type("f32le"), test::layout("deflate+shuffle"), {4, 3});
    for (const char* name : {"/e", "/ec"}) {
        h5::dataset ds(file, name);
        REQUIRE(ds.shape() == std::vector<std::size_t>{0, 3});
        REQUIRE(h5::partition(ds, parts{4}).empty());
        const auto a = ds.read<float, 2>(block{0, 0, 0});
        REQUIRE(a.size() == 0);
        REQUIRE(a.shape()[1] == 3);
        REQUIRE(ds.read<double>(block{0, 0, 0}).size() == 0);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("four threads read at once and get what one thread gets", "[hdf5][threads]") {
    const auto dir = test::scratch("threads");
    const auto file = dir / "t.h5";
    test::write_dataset(file, "/z", {200, 16, 3}, test::type("f32le"), test::layout("deflate+shuffle"), {4, 8, 3});
    test::write_dataset(file, "/c", {200, 16, 3}, test::type("f64be"), test::layout("contiguous"), {});
    test::write_dataset(file, "/s", {200, 16, 3}, test::type("f32le"), test::layout("scaleoffset"),
                        {4, 8, 3});  // fallback
    for (const char* name : {"/z", "/c", "/s"}) {
        h5::dataset ds(file, name);
        const auto blocks = h5::partition(ds, parts{50});
        chunkwise::serial_policy serial;
        chunkwise::thread_policy pool(4);
        auto read = [&](const block& b) { return ds.read<double, 3>(b); };
        const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, read));
        for (int rep = 0; rep < 3; ++rep) {
            auto partial = chunkwise::map_blocks(pool, blocks, read);
            REQUIRE(partial.stats().total(&chunkwise::worker_stats::read) > 0);  // reads count as read time
            // ... and their bytes: each chunk once (blocks of whole chunk rows), the contiguous
            // data once, the library's reads (scale-offset) as the values stored.
            const double bytes = partial.stats().total(&chunkwise::worker_stats::read_bytes);
            const bool through_library = std::string(name) == "/s" || !ds.decodes_in_worker<double>();
            REQUIRE(bytes == (through_library ? 200.0 * 16 * 3 * static_cast<double>(ds.element_size())
                                              : static_cast<double>(ds.stored_bytes())));
            if (std::string(name) == "/c") REQUIRE(bytes == 200.0 * 16 * 3 * 8);
            REQUIRE(chunkwise::gather(pool, std::move(partial)) == expect);
        }
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("bad input gives h5::error naming file and dataset", "[hdf5][errors]") {
    const auto dir = test::scratch("errors");
    const auto file = dir / "bad.h5";
    test::write_dataset(file, "/group/data", {10, 3}, test::type("f32le"), test::layout("chunked"), {5, 3});
    test::write_dataset(file, "/group/other", {4}, test::type("i16le"), test::layout("contiguous"), {});
    {  // a string dataset and a compound dataset
        hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        hsize_t n = 2;
        hid_t sp = H5Screate_simple(1, &n, nullptr);
        hid_t st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, 8);
        hid_t d1 = H5Dcreate2(f, "/strings", st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t ct = H5Tcreate(H5T_COMPOUND, 16);
        H5Tinsert(ct, "a", 0, H5T_NATIVE_DOUBLE);
        H5Tinsert(ct, "b", 8, H5T_NATIVE_DOUBLE);
        hid_t d2 = H5Dcreate2(f, "/pairs", ct, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dclose(d1);
        H5Dclose(d2);
        H5Tclose(st);
        H5Tclose(ct);
        H5Sclose(sp);
        H5Fclose(f);
    }
    const std::string f = file.string();
    using Catch::Matchers::Contains;
    auto open = [&](const std::filesystem::path& p, const std::string& name) { return h5::dataset(p, name); };

    REQUIRE_THROWS_MATCHES(open(dir / "missing.h5", "/x"), h5::error,
                           Catch::Matchers::Predicate<h5::error>([&](const h5::error& e) {
                               return e.file() == (dir / "missing.h5").string() && e.dataset() == "/x" &&
                                      std::string(e.what()).find("no such file") != std::string::npos;
                           }));
    REQUIRE_THROWS_WITH(
        open(file, "/group/nope"),
        Contains(f + ":/group/nope") && Contains("'nope' is not in group '/group', which holds data, other"));
    REQUIRE_THROWS_WITH(open(file, "/nothing/here"), Contains("'nothing' is not in group '/'") && Contains("group"));
    REQUIRE_THROWS_WITH(open(file, "/group"), Contains("is a group, not a dataset; it holds data, other"));
    REQUIRE_THROWS_WITH(open(file, "/group/data/deeper"), Contains("'/group/data' is not a group"));
    REQUIRE_THROWS_WITH(open(dir, "/x"), Contains("is a directory"));
    {
        std::ofstream(dir / "text.h5") << "this is not an HDF5 file\n";
        REQUIRE_THROWS_WITH(open(dir / "text.h5", "/x"), Contains("cannot open as an HDF5 file"));
    }
    h5::dataset data(file, "/group/data");
    REQUIRE_THROWS_WITH((data.read<float, 3>(block{0, 0, 2})),
                        Contains(f + ":/group/data") && Contains("read<T, 3>: the array has rank 2 (shape (10, 3))"));
    REQUIRE_THROWS_WITH(data.read<float>(block{0, 5, 11}), Contains("rows [5, 11) are outside axis 0 of extent 10"));
    std::vector<float> small(5);
    REQUIRE_THROWS_WITH(data.read_into(block{0, 0, 2}, std::span<float>(small)),
                        Contains("the buffer holds 5 values, rows [0, 2) need 6"));
    h5::dataset strings(file, "/strings");
    REQUIRE_THROWS_WITH(strings.read<double>(block{0, 0, 1}), Contains("holds string values, which do not convert"));
    h5::dataset pairs(file, "/pairs");
    REQUIRE_THROWS_WITH(pairs.read<double>(block{0, 0, 1}), Contains("holds compound values"));
    REQUIRE_THROWS_AS(data.read<float>(block{0, 5, 11}), std::runtime_error);  // h5::error is a runtime_error
    std::filesystem::remove_all(dir);
}

TEST_CASE("truncated and corrupted files give h5::error or exactly what H5Dread gives", "[hdf5][errors]") {
    const auto dir = test::scratch("corrupt");
    const auto good = dir / "good.h5";
    test::write_dataset(good, "/frames", {64, 20, 3}, test::type("f32le"), test::layout("deflate+shuffle"), {4, 20, 3});
    test::write_dataset(good, "/plain", {64, 20}, test::type("f64be"), test::layout("contiguous"), {});
    const auto size = std::filesystem::file_size(good);
    std::vector<char> bytes(size);
    std::ifstream(good, std::ios::binary).read(bytes.data(), static_cast<std::streamsize>(size));

    // Everything a reader does: open both datasets, read every row; each read either throws
    // h5::error or equals H5Dread of the same (damaged) file.
    auto check = [&](const std::filesystem::path& p) -> int {
        int errors = 0;
        for (const char* name : {"/frames", "/plain"}) {
            try {
                h5::dataset ds(p, name);
                const auto got = ds.read<double>(block{0, 0, ds.shape()[0]});
                const auto expect = test::try_h5dread<double>(p, name, H5T_NATIVE_DOUBLE, 0, ds.shape()[0]);
                REQUIRE(expect.has_value());  // chunkwise read values: HDF5 must read the same
                REQUIRE(same_bits(got.data(), *expect));
            } catch (const h5::error&) {
                ++errors;
            }
        }
        return errors;
    };
    int errors = 0;
    for (int k = 1; k < 64; ++k) {
        const std::size_t at = size * static_cast<std::size_t>(k) / 64;
        INFO("byte " << at << " of " << size);
        const auto cut = dir / "cut.h5";
        std::ofstream(cut, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(at));
        REQUIRE_THROWS_AS(h5::dataset(cut, "/frames"), h5::error);  // every truncation is an error

        auto bad = bytes;
        for (std::size_t i = at; i < std::min(size, at + 24); ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
        const auto corrupt = dir / "corrupt.h5";
        std::ofstream(corrupt, std::ios::binary | std::ios::trunc)
            .write(bad.data(), static_cast<std::streamsize>(size));
        errors += check(corrupt);
    }
    REQUIRE(errors > 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("write: a gathered result lands in a dataset HDF5 readers read", "[hdf5][write]") {
    const auto dir = test::scratch("write");
    const auto file = dir / "out.h5";
    xt::xtensor<float, 3> frames = xt::xtensor<float, 3>::from_shape({10, 4, 3});
    for (std::size_t i = 0; i < frames.size(); ++i) frames.data()[i] = static_cast<float>(i) * 0.25f;
    h5::write_options chunked;
    chunked.chunk = {1, 4, 3};
    chunked.deflate = 6;
    chunked.shuffle = true;
    h5::write(file, "/results/frames", frames, chunked);
    h5::write(file, "/results/plain", std::vector<double>{1.5, 2.5, 3.5});
    h5::write_options deflate_only;
    deflate_only.deflate = 1;
    h5::write(file, "/results/auto", frames, deflate_only);
    {
        h5::dataset ds(file, "/results/frames");
        REQUIRE(ds.chunk_shape() == std::vector<std::size_t>{1, 4, 3});
        REQUIRE(ds.filters() == std::vector<std::string>{"shuffle", "deflate"});
        REQUIRE((ds.read<float, 3>(block{0, 0, 10}) == frames));
        REQUIRE(test::h5dread_rows<float>(file, "/results/frames", H5T_NATIVE_FLOAT, 3, 4)[5] == frames(3, 1, 2));
        REQUIRE((h5::dataset(file, "/results/plain").read<double, 1>(block{0, 0, 3}) ==
                 xt::xtensor<double, 1>{1.5, 2.5, 3.5}));
        REQUIRE((h5::dataset(file, "/results/auto").read<float, 3>(block{0, 0, 10}) == frames));
    }  // readers closed: HDF5 cannot open a file for writing that this process has open read-only
    REQUIRE_THROWS_WITH(h5::write(file, "/results/plain", std::vector<double>{1}),
                        Catch::Matchers::Contains("the dataset already exists"));
    h5::write_options wrong_rank;
    wrong_rank.chunk = {1, 2};
    REQUIRE_THROWS_WITH(h5::write(file, "/x", frames, wrong_rank), Catch::Matchers::Contains("2 axes, the array 3"));
    h5::write_options wrong_level;
    wrong_level.deflate = 11;
    REQUIRE_THROWS_WITH(h5::write(file, "/y", frames, wrong_level),
                        Catch::Matchers::Contains("deflate level must be 0-9"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("layout report: what row-by-row reads cost, and the chunk shape to fix it", "[hdf5][layout]") {
    const auto dir = test::scratch("layout");
    const auto file = dir / "l.h5";
    // h5py's automatic chunks for (1000, 500, 3) float32 would be of this kind: parts of many
    // frames in one chunk, a frame over many chunks.
    test::write_dataset(file, "/auto", {1000, 500, 3}, test::type("f32le"), test::layout("chunked"), {63, 63, 2});
    test::write_dataset(file, "/good", {1000, 500, 3}, test::type("f32le"), test::layout("chunked"), {1, 500, 3});
    test::write_dataset(file, "/flat", {1000, 500, 3}, test::type("f32le"), test::layout("contiguous"), {});
    const auto bad = h5::analyze_layout(h5::dataset(file, "/auto"));
    REQUIRE(bad.row_bytes == 500 * 3 * 4);
    REQUIRE(bad.chunks_per_row == 8 * 2);
    REQUIRE(bad.bytes_decoded_per_row == 16 * 63 * 63 * 2 * 4);
    REQUIRE(bad.amplification == Approx(16.0 * 63 * 63 * 2 * 4 / 6000.0));
    REQUIRE(bad.suggested_chunk == std::vector<std::size_t>{1, 500, 3});
    REQUIRE_THAT(bad.advice, Catch::Matchers::Contains("rechunk to (1, 500, 3)"));
    const auto good = h5::analyze_layout(h5::dataset(file, "/good"));
    REQUIRE(good.chunks_per_row == 1);
    REQUIRE(good.amplification == 1.0);
    REQUIRE(good.suggested_chunk.empty());
    const auto flat = h5::analyze_layout(h5::dataset(file, "/flat"));
    REQUIRE(flat.chunks_per_row == 0);
    REQUIRE(flat.bytes_decoded_per_row == 6000);
    std::filesystem::remove_all(dir);
}

TEST_CASE("write_blocks: block results concatenated into one dataset; failed blocks left out", "[hdf5][write]") {
    const auto dir = test::scratch("write_blocks");
    const auto file = dir / "blocks.h5";
    chunkwise::thread_policy pool(3);
    const auto blocks = chunkwise::partition(50, parts{7});
    auto rows = [](const block& b) {
        xt::xtensor<double, 2> t = xt::xtensor<double, 2>::from_shape({b.size(), 3});
        for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<double>(b.begin * 3 + i);
        return t;
    };
    h5::write_options opt;
    opt.chunk = {4, 3};
    opt.deflate = 1;
    h5::write_blocks(pool, file, "/all", chunkwise::map_blocks(pool, blocks, rows), opt);
    chunkwise::run_options collect;
    collect.errors = chunkwise::on_error::collect;
    h5::write_blocks(pool, file, "/some",
                     chunkwise::map_blocks(
                         pool, blocks,
                         [&](const block& b) {
                             if (b.index == 2) throw std::runtime_error("x");
                             return rows(b);
                         },
                         collect));
    h5::write_blocks(pool, file, "/vector", chunkwise::map_blocks(pool, blocks, [](const block& b) {
                         return std::vector<int>(b.size(), static_cast<int>(b.index));
                     }));
    {
        h5::dataset all(file, "/all");
        REQUIRE(all.shape() == std::vector<std::size_t>{50, 3});
        const auto a = all.read<double, 2>(block{0, 0, 50});
        for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(a.data()[i] == static_cast<double>(i));
        h5::dataset some(file, "/some");
        REQUIRE(some.shape()[0] == 50 - blocks[2].size());
        REQUIRE(some.read<double, 2>(block{0, blocks[2].begin, blocks[2].begin + 1})(0, 0) ==
                static_cast<double>(blocks[3].begin * 3));
        h5::dataset vec(file, "/vector");
        REQUIRE(vec.read<int, 1>(block{0, 49, 50})(0) == 6);
    }
    REQUIRE_THROWS_WITH(
        h5::write_blocks(pool, file, "/all", chunkwise::map_blocks(pool, blocks, rows)),
        Catch::Matchers::Contains(file.string() + ":/all") && Catch::Matchers::Contains("already exists"));
    std::filesystem::remove_all(dir);
}
