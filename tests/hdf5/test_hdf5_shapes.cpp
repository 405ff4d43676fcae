// chunkwise::h5 on data as scientists store it, in files h5py writes (tests/support/h5py_shapes.py):
// selected indices of one axis (h5::indices), ragged records (vlen; read_ragged, write_ragged,
// read back by h5py), and one dataset over many files (h5::dataset_series, h5::glob,
// h5::partition of a series). Serial and from threads; bad input is an h5::error naming file,
// dataset and the bad value.
#include "catch.hpp"
#include "test_util.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <hdf5.h>
#if __has_include(<xtensor/views/xview.hpp>)  // xtensor 0.26 moved its headers
#include <xtensor/views/xview.hpp>
#else
#include <xtensor/xview.hpp>
#endif

#include <sys/types.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using chunkwise::block;
using chunkwise::parts;
namespace h5 = chunkwise::h5;
namespace fs = std::filesystem;

namespace {

const std::string script = std::string(CHUNKWISE_TEST_SUPPORT_DIR) + "/h5py_shapes.py";

// Runs the h5py script; its exit status.
int python(const std::string& args) {
    const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + script + " " + args;
    return std::system(command.c_str());
}

// The folder of h5py-written files, made once per process.
const fs::path& files() {
    static const fs::path dir = [] {
        fs::path d = test::scratch("shapes");
        REQUIRE(python("write " + d.string()) == 0);
        return d;
    }();
    return dir;
}

// The formulas of h5py_shapes.py.
double position(std::size_t row, std::size_t atom, std::size_t c) {
    return static_cast<double>(row) * 10000 + static_cast<double>(atom) * 10 + static_cast<double>(c);
}
std::vector<unsigned char> u8_record(std::size_t i) {
    std::vector<unsigned char> r((i * 37) % 101);
    for (std::size_t j = 0; j < r.size(); ++j) r[j] = static_cast<unsigned char>((i * 7 + j) % 256);
    return r;
}
std::vector<float> f32_record(std::size_t i) {
    std::vector<float> r((i * 13) % 17);
    for (std::size_t j = 0; j < r.size(); ++j)
        r[j] = static_cast<float>(static_cast<double>(i) + 0.25 * static_cast<double>(j));
    return r;
}
std::vector<std::size_t> series_lengths(std::size_t files) {
    std::vector<std::size_t> n;
    for (std::size_t i = 0; i < files; ++i) n.push_back(5 + (i * 7) % 11);
    return n;
}

std::vector<fs::path> series_files(std::size_t count) {
    std::vector<fs::path> out;
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(files() / ("series" + std::to_string(count)) / ("part-" + std::to_string(i) + ".h5"));
    return out;
}

}  // namespace

TEST_CASE("indices on axis 1 and 2 read the listed values in their order, duplicates too", "[hdf5][indices]") {
    const fs::path file = files() / "select.h5";
    const std::vector<std::size_t> atoms{7, 3, 3, 99, 0, 50, 16, 15};
    const std::vector<std::size_t> coords{5, 0, 5, 2};
    for (const char* name : {"gzip", "chunked", "contiguous", "int16", "auto"}) {
        INFO(name);
        h5::dataset ds(file, name, chunkwise::read_options{.convert = true});  // int16 into float too
        const bool is_int = std::string(name) == "int16";
        const block rows{0, 2, 17};
        auto a = ds.read<double, 3>(rows, h5::indices{1, atoms});
        REQUIRE(a.shape()[0] == 15);
        REQUIRE(a.shape()[1] == atoms.size());
        REQUIRE(a.shape()[2] == 6);
        for (std::size_t f = 0; f < 15; ++f)
            for (std::size_t j = 0; j < atoms.size(); ++j)
                for (std::size_t c = 0; c < 6; ++c) {
                    double want = position(f + 2, atoms[j], c);
                    if (is_int) want = std::fmod(want, 30000.0);
                    REQUIRE(a(f, j, c) == want);
                }
        auto b = ds.read<float, 3>(rows, h5::indices{2, coords});
        REQUIRE(b.shape()[1] == 100);
        REQUIRE(b.shape()[2] == coords.size());
        for (std::size_t f = 0; f < 15; ++f)
            for (std::size_t at = 0; at < 100; ++at)
                for (std::size_t j = 0; j < coords.size(); ++j) {
                    double want = position(f + 2, at, coords[j]);
                    if (is_int) want = std::fmod(want, 30000.0);
                    REQUIRE(b(f, at, j) == static_cast<float>(want));
                }
        // read_into agrees with read; an empty selection reads nothing.
        std::vector<double> flat(15 * atoms.size() * 6);
        ds.read_into(rows, h5::indices{1, atoms}, std::span<double>(flat));
        REQUIRE(std::equal(flat.begin(), flat.end(), a.begin()));
        REQUIRE(ds.read<double, 3>(rows, h5::indices{1, {}}).size() == 0);
    }
}

TEST_CASE("indexed reads from threads equal the serial read", "[hdf5][indices][threads]") {
    h5::dataset ds(files() / "select.h5", "gzip");
    std::vector<std::size_t> atoms;
    for (std::size_t a = 0; a < 100; a += 3) atoms.push_back(99 - a);
    const auto blocks = h5::partition(ds, parts{7});
    auto read = [&](const block& b) { return ds.read<float, 3>(b, h5::indices{1, atoms}); };
    chunkwise::serial_policy serial;
    chunkwise::thread_policy pool(4);
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, read));
    for (int round = 0; round < 5; ++round) {
        const auto got = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, read));
        REQUIRE(got == expect);
    }
}

TEST_CASE("chunks holding none of the indices are not read", "[hdf5][indices]") {
    // A damaged chunk in the column of atoms 16-31: selections that avoid it read fine, a
    // selection that needs it (or whole rows) is an h5::error.
    const fs::path dir = test::scratch("shapes-damaged");
    const fs::path file = dir / "damaged.h5";
    xt::xtensor<float, 3> v = xt::xtensor<float, 3>::from_shape({8, 64, 3});
    for (std::size_t f = 0; f < 8; ++f)
        for (std::size_t a = 0; a < 64; ++a)
            for (std::size_t c = 0; c < 3; ++c) v(f, a, c) = static_cast<float>(position(f, a, c));
    h5::write(file, "pos", v, h5::write_options{{8, 16, 3}, 4, false});
    haddr_t address = 0;
    hsize_t bytes = 0;
    {
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        const hid_t d = H5Dopen2(f, "pos", H5P_DEFAULT);
        const hsize_t offset[3] = {0, 16, 0};
        unsigned mask = 0;
        REQUIRE(H5Dget_chunk_info_by_coord(d, offset, &mask, &address, &bytes) >= 0);
        H5Dclose(d);
        H5Fclose(f);
    }
    {
        std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
        out.seekp(static_cast<std::streamoff>(address));
        const std::vector<char> junk(static_cast<std::size_t>(bytes), '\x5a');
        out.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    h5::dataset ds(file, "pos");
    const auto a = ds.read<float, 3>(block{0, 0, 8}, h5::indices{1, {63, 0, 40, 15, 32}});
    for (std::size_t f = 0; f < 8; ++f) REQUIRE(a(f, 0, 1) == static_cast<float>(position(f, 63, 1)));
    REQUIRE_THROWS_AS((ds.read<float, 3>(block{0, 0, 8}, h5::indices{1, {3, 20}})), h5::error);
    REQUIRE_THROWS_AS((ds.read<float, 3>(block{0, 0, 8})), h5::error);
}

TEST_CASE("bad indices are h5::errors naming file, dataset and the value", "[hdf5][indices][errors]") {
    const fs::path file = files() / "select.h5";
    h5::dataset ds(file, "chunked");
    const std::string out_of_range = test::error_of<h5::error>([&] {
        (void)ds.read<float, 3>(block{0, 0, 2}, h5::indices{1, {3, 100}});
    });
    CHECK_THAT(out_of_range, Contains(file.string()) && Contains("/chunked") && Contains("index 100 (position 1") &&
                                 Contains("outside axis 1 of extent 100"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)ds.read<float, 3>(block{0, 0, 2}, h5::indices{3, {0}});
               }),
               Contains("indices on axis 3") && Contains("rank 3"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)ds.read<float, 3>(block{0, 0, 2}, h5::indices{0, {0}});
               }),
               Contains("indices on axis 0") && Contains("axis 0 holds the rows"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)ds.read<float, 3>(block{0, 0, 21}, h5::indices{1, {0}});
               }),
               Contains("rows [0, 21) are outside axis 0 of extent 20"));
    std::vector<float> small(5);
    CHECK_THAT(test::error_of<h5::error>([&] {
                   ds.read_into(block{0, 0, 2}, h5::indices{1, {0}}, std::span<float>(small));
               }),
               Contains("the buffer holds 5 values") && Contains("need 12"));
}

TEST_CASE("ragged records written by h5py read back as they were written", "[hdf5][ragged]") {
    h5::dataset images(files() / "vlen_u8.h5", "images");
    REQUIRE(images.is_ragged());
    REQUIRE_FALSE(images.is_numeric());
    REQUIRE(images.shape() == std::vector<std::size_t>{200});
    const auto all = images.read_ragged<unsigned char>(block{0, 0, 200});
    REQUIRE(all.size() == 200);
    REQUIRE(all.offsets().size() == 201);
    for (std::size_t i = 0; i < 200; ++i) {
        const auto want = u8_record(i);
        REQUIRE(std::equal(all[i].begin(), all[i].end(), want.begin(), want.end()));
    }
    // Any rows, any element type HDF5 converts to.
    const auto part = images.read_ragged<double>(block{0, 37, 53});
    REQUIRE(part.size() == 16);
    for (std::size_t i = 0; i < 16; ++i) {
        const auto want = u8_record(37 + i);
        REQUIRE(part[i].size() == want.size());
        for (std::size_t j = 0; j < want.size(); ++j) REQUIRE(part[i][j] == static_cast<double>(want[j]));
    }
    REQUIRE(images.read_ragged<unsigned char>(block{0, 5, 5}).empty());
    const auto labels = h5::dataset(files() / "vlen_u8.h5", "labels").read<short, 1>(block{0, 0, 200});
    for (std::size_t i = 0; i < 200; ++i) REQUIRE(labels(i) == static_cast<short>(static_cast<int>(i % 10) - 5));

    h5::dataset spectra(files() / "vlen_f32.h5", "spectra");
    const auto s = spectra.read_ragged<float>(block{0, 0, 50});
    for (std::size_t i = 0; i < 50; ++i) {
        const auto want = f32_record(i);
        REQUIRE(std::equal(s[i].begin(), s[i].end(), want.begin(), want.end()));
    }
}

TEST_CASE("ragged records read from threads equal the serial read", "[hdf5][ragged][threads]") {
    h5::dataset images(files() / "vlen_u8.h5", "images");
    const auto blocks = chunkwise::partition(200, parts{13});
    auto sums = [&](const block& b) {
        const auto r = images.read_ragged<unsigned char>(b);
        std::vector<std::uint64_t> out;
        for (std::size_t i = 0; i < r.size(); ++i)
            out.push_back(std::accumulate(r[i].begin(), r[i].end(), std::uint64_t{0}) * 1000 + r[i].size());
        return out;
    };
    chunkwise::thread_policy pool(4);
    const auto got = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, sums));
    std::vector<std::uint64_t> flat;
    for (const auto& v : got) flat.insert(flat.end(), v.begin(), v.end());
    REQUIRE(flat.size() == 200);
    for (std::size_t i = 0; i < 200; ++i) {
        const auto want = u8_record(i);
        REQUIRE(flat[i] == std::accumulate(want.begin(), want.end(), std::uint64_t{0}) * 1000 + want.size());
    }
}

TEST_CASE("write_ragged writes what h5py reads as arrays, and what read_ragged reads back", "[hdf5][ragged]") {
    const fs::path dir = test::scratch("shapes-write");
    h5::ragged<unsigned char> images;
    for (std::size_t i = 0; i < 300; ++i) {
        const auto r = u8_record(i);
        images.push_back(r);
    }
    h5::ragged<float> spectra;
    for (std::size_t i = 0; i < 50; ++i) spectra.push_back(f32_record(i));
    const fs::path file = dir / "written.h5";
    h5::write_ragged(file, "data/images", images);
    h5::write_ragged(file, "data/spectra", spectra, h5::write_options{{16}, 4, false});
    h5::write_ragged(file, "empty", h5::ragged<double>{});
    REQUIRE(h5::dataset(file, "data/images").read_ragged<unsigned char>(block{0, 0, 300}) == images);
    REQUIRE(h5::dataset(file, "data/spectra").read_ragged<float>(block{0, 0, 50}) == spectra);
    REQUIRE(h5::dataset(file, "empty").read_ragged<double>(block{0, 0, 0}).empty());
    REQUIRE(python("check " + file.string() + " data/images u8") == 0);
    REQUIRE(python("check " + file.string() + " data/spectra f32") == 0);
    // And an h5py file's records written again by chunkwise read the same.
    const auto theirs = h5::dataset(files() / "vlen_u8.h5", "images").read_ragged<unsigned char>(block{0, 0, 200});
    h5::write_ragged(file, "copy", theirs);
    REQUIRE(h5::dataset(file, "copy").read_ragged<unsigned char>(block{0, 0, 200}) == theirs);
    CHECK_THAT(test::error_of<h5::error>([&] { h5::write_ragged(file, "copy", theirs); }), Contains("already exists"));
}

TEST_CASE("write_ragged appends and updates records, from threads at once, and refuses other types",
          "[hdf5][ragged][modes]") {
    const fs::path file = test::scratch("shapes-ragged-modes") / "records.h5";
    const auto records = [](std::size_t from, std::size_t n, std::size_t salt) {
        h5::ragged<unsigned char> r;
        for (std::size_t i = from; i < from + n; ++i) r.push_back(u8_record(i * 7 + salt));
        return r;
    };
    h5::write_ragged(file, "images", records(0, 100, 0), {.chunk = {16}, .growable = true});
    h5::write_ragged(file, "images", records(100, 50, 0), {.mode = chunkwise::write_mode::append});
    h5::write_ragged(file, "images", records(10, 20, 1), {.mode = chunkwise::write_mode::update, .first_row = 10});
    h5::ragged<unsigned char> want = records(0, 10, 0);
    for (std::size_t i = 10; i < 150; ++i) want.push_back(i < 30 ? u8_record(i * 7 + 1) : u8_record(i * 7));
    REQUIRE(h5::dataset(file, "images").read_ragged<unsigned char>(block{0, 0, 150}) == want);

    // The room an append needs counts the records' bytes, not only their 16-byte references: 4 MiB of records
    // where the file may grow by 512 KiB is refused before anything is written (in a child process, before any
    // thread of this test starts).
    h5::ragged<unsigned char> big;
    for (int i = 0; i < 4; ++i) big.push_back(std::vector<unsigned char>(std::size_t{1} << 20, 7));
    const auto limit = static_cast<rlim_t>(fs::file_size(file) + (std::size_t{512} << 10));
    CHECK_THAT(
        test::in_child_with_file_limit(limit,
                                       [&] {
                                           h5::write_ragged(file, "images", big,
                                                            {.mode = chunkwise::write_mode::append});
                                           return std::string("written");
                                       }),
        Contains("threw: ") && Contains("/images") && Contains("file size limit") && Contains("nothing was written"));
    REQUIRE(h5::dataset(file, "images").shape()[0] == 150);
    REQUIRE(h5::dataset(file, "images").read_ragged<unsigned char>(block{0, 0, 150}) == want);

    // Every block of a run writes its own records into one dataset made with empty records first.
    const std::size_t n = 400;
    h5::write_ragged(file, "packed",
                     h5::ragged<unsigned char>(std::vector<unsigned char>{}, std::vector<std::size_t>(n + 1, 0)),
                     {.chunk = {16}});
    chunkwise::thread_policy pool(4);
    (void)chunkwise::gather(
        pool, chunkwise::map_blocks(pool, chunkwise::partition(n, chunkwise::parts{13}), [&](const block& b) {
            h5::write_ragged(file, "packed", records(b.begin, b.size(), 3),
                             {.mode = chunkwise::write_mode::update, .first_row = b.begin});
            return b.size();
        }));
    REQUIRE(h5::dataset(file, "packed").read_ragged<unsigned char>(block{0, 0, n}) == records(0, n, 3));

    // Other types, either way, and rows past the end: refused naming both types, nothing written.
    h5::write(file, "numbers", std::vector<float>(8, 1.0f));
    const auto update = h5::write_options{.mode = chunkwise::write_mode::update};
    CHECK_THAT(test::error_of<h5::error>([&] { h5::write_ragged(file, "numbers", records(0, 2, 0), update); }),
               Contains("/numbers") && Contains("the dataset holds float32, the values are variable-length "
                                                "sequences of uint8"));
    h5::ragged<float> spectra;
    spectra.push_back(f32_record(0));
    CHECK_THAT(test::error_of<h5::error>(
                   [&] { h5::write_ragged(file, "images", spectra, {.mode = chunkwise::write_mode::append}); }),
               Contains("append: the dataset holds variable-length sequences of uint8, the values are "
                        "variable-length sequences of float32"));
    CHECK_THAT(test::error_of<h5::error>([&] { h5::write(file, "images", std::vector<unsigned char>(3, 1), update); }),
               Contains("holds variable-length sequences of uint8, the values are uint8"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   h5::write_ragged(file, "images", records(0, 5, 9),
                                    {.mode = chunkwise::write_mode::update, .first_row = 148});
               }),
               Contains("rows [148, 153) lie past the dataset's end (150 rows)"));
    CHECK_THAT(test::error_of<h5::error>([&] { h5::write_ragged(file, "absent", records(0, 1, 0), update); }),
               Contains("/absent") && Contains("no dataset at this path"));
    REQUIRE(h5::dataset(file, "images").read_ragged<unsigned char>(block{0, 0, 150}) == want);
}

TEST_CASE("ragged misuse: non-ragged data, 2-D records, bad offsets", "[hdf5][ragged][errors]") {
    const fs::path file = files() / "select.h5";
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)h5::dataset(file, "gzip").read_ragged<float>(block{0, 0, 1});
               }),
               Contains(file.string()) && Contains("/gzip") && Contains("not variable-length sequences") &&
                   Contains("holds float32 values"));
    const fs::path vf = files() / "vlen_f32.h5";
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)h5::dataset(vf, "grid").read_ragged<float>(block{0, 0, 1});
               }),
               Contains("/grid") && Contains("reads 1-D datasets") && Contains("(3, 4)"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)h5::dataset(vf, "spectra").read<float, 1>(block{0, 0, 1});
               }),
               Contains("holds variable-length sequences of float32 values") && Contains("read_ragged"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)h5::dataset(vf, "spectra").read_ragged<float>(block{0, 40, 51});
               }),
               Contains("rows [40, 51) are outside axis 0 of extent 50"));
    REQUIRE_THROWS_AS(h5::ragged<int>({1, 2, 3}, {0, 2}), std::invalid_argument);
    REQUIRE_THROWS_AS(h5::ragged<int>({1, 2, 3}, {0, 2, 1, 3}), std::invalid_argument);
    REQUIRE_THROWS_AS(h5::ragged<int>({1, 2, 3}, {}), std::invalid_argument);
    const h5::ragged<int> ok({1, 2, 3}, {0, 2, 2, 3});
    REQUIRE(ok.size() == 3);
    REQUIRE(ok[1].empty());
    REQUIRE(ok.at(2)[0] == 3);
    REQUIRE_THROWS_AS(ok.at(3), std::out_of_range);
}

TEST_CASE("a series of 1, 3 and 20 files reads as one dataset across file boundaries", "[hdf5][series]") {
    for (std::size_t count : {1, 3, 20}) {
        INFO(count << " files");
        const auto lengths = series_lengths(count);
        const std::size_t total = std::accumulate(lengths.begin(), lengths.end(), std::size_t{0});
        h5::dataset_series series(series_files(count), "pos");
        REQUIRE(series.shape() == std::vector<std::size_t>{total, 50, 3});
        REQUIRE(series.files().size() == count);
        REQUIRE(series.file_offsets().back() == total);
        const auto all = series.read<float, 3>(block{0, 0, total});
        for (std::size_t r = 0; r < total; ++r)
            for (std::size_t a = 0; a < 50; ++a)
                for (std::size_t c = 0; c < 3; ++c) REQUIRE(all(r, a, c) == static_cast<float>(position(r, a, c)));
        // Every window of 1..9 rows, wherever it starts.
        for (std::size_t begin = 0; begin < total; begin += 3) {
            const std::size_t end = std::min(total, begin + 1 + begin % 9);
            const auto part = series.read<double, 3>(block{0, begin, end});
            for (std::size_t r = begin; r < end; ++r) REQUIRE(part(r - begin, 49, 2) == position(r, 49, 2));
            const auto some = series.read<float, 3>(block{0, begin, end}, h5::indices{1, {49, 0, 0, 7}});
            for (std::size_t r = begin; r < end; ++r) {
                REQUIRE(some(r - begin, 0, 1) == static_cast<float>(position(r, 49, 1)));
                REQUIRE(some(r - begin, 3, 2) == static_cast<float>(position(r, 7, 2)));
            }
        }
        const xt::xarray<float> any = series.read<float>(block{0, 0, total});
        REQUIRE(any == all);
    }
}

TEST_CASE("a series keeps at most max_open_files open and reads right from threads", "[hdf5][series][threads]") {
    const auto lengths = series_lengths(20);
    const std::size_t total = std::accumulate(lengths.begin(), lengths.end(), std::size_t{0});
    h5::dataset_series series(series_files(20), "pos", 3);
    REQUIRE(series.open_files() <= 3);
    const auto blocks = h5::partition(series, parts{11});
    auto sum = [&](const block& b) {
        const auto v = series.read<double, 3>(b);
        return std::accumulate(v.begin(), v.end(), 0.0);
    };
    chunkwise::thread_policy pool(4);
    chunkwise::serial_policy serial;
    for (int round = 0; round < 3; ++round) {
        const auto got = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, sum));
        REQUIRE(got == chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, sum)));
        REQUIRE(series.open_files() <= 3);
    }
    double want = 0;
    for (std::size_t r = 0; r < total; ++r)
        for (std::size_t a = 0; a < 50; ++a)
            for (std::size_t c = 0; c < 3; ++c) want += position(r, a, c);
    const auto got = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, sum));
    REQUIRE(std::accumulate(got.begin(), got.end(), 0.0) == Approx(want).epsilon(1e-12));
}

TEST_CASE("partition of a series never splits a chunk and prefers file boundaries", "[hdf5][series]") {
    // 3 files of 5, 12 and 8 rows: chunks of 4 rows, contiguous, chunks of 3 rows.
    h5::dataset_series three(series_files(3), "pos");
    REQUIRE(three.chunk_rows() == std::vector<std::size_t>{4, 1, 3});
    REQUIRE(h5::partition(three, parts{3}) == std::vector<block>{{0, 0, 8}, {1, 8, 17}, {2, 17, 25}});
    // 4 parts: the first boundary would fall at 6.25 (a row of the contiguous file); the file
    // boundary at 5 is within a quarter block, so the first block is the first file.
    REQUIRE(h5::partition(three, parts{4}) == std::vector<block>{{0, 0, 5}, {1, 5, 12}, {2, 12, 20}, {3, 20, 25}});
    for (std::size_t count : {1, 3, 20}) {
        h5::dataset_series series(series_files(count), "pos");
        const auto& offsets = series.file_offsets();
        for (std::size_t p : {1, 2, 3, 5, 8, 20, 64, 1000}) {
            INFO(count << " files, " << p << " parts");
            const auto blocks = h5::partition(series, parts{p});
            REQUIRE(!blocks.empty());
            REQUIRE(blocks.size() <= p);
            REQUIRE(blocks.front().begin == 0);
            REQUIRE(blocks.back().end == offsets.back());
            for (std::size_t i = 0; i < blocks.size(); ++i) {
                REQUIRE(blocks[i].index == i);
                REQUIRE(blocks[i].size() > 0);
                if (i > 0) REQUIRE(blocks[i].begin == blocks[i - 1].end);
                // Each boundary is a file boundary or a chunk boundary inside the file it lies in.
                const std::size_t cut = blocks[i].end;
                const std::size_t f = series.file_of(cut - 1);
                REQUIRE((cut == offsets[f + 1] || (cut - offsets[f]) % series.chunk_rows()[f] == 0));
            }
        }
    }
    REQUIRE_THROWS_AS(h5::partition(three, parts{0}), std::invalid_argument);
}

TEST_CASE("the RMSD over a trajectory in 20 files has the same bits as over one file", "[hdf5][series]") {
    h5::dataset_series series(series_files(20), "pos");
    const std::size_t frames = series.shape()[0];
    const fs::path one = test::scratch("shapes-one") / "one.h5";
    h5::write(one, "pos", series.read<float, 3>(block{0, 0, frames}), h5::write_options{{4, 50, 3}, 1, true});
    h5::dataset single(one, "pos");
    const std::vector<std::size_t> atoms{1, 5, 9, 13, 17, 21, 40};
    auto rmsd = [&](const auto& source) {
        return [&source, &atoms](const block& b) {
            const auto x = source.template read<float, 3>(b, h5::indices{1, atoms});
            std::vector<double> out;
            for (std::size_t f = 0; f < x.shape()[0]; ++f) {
                double s = 0;
                for (std::size_t a = 0; a < atoms.size(); ++a)
                    for (std::size_t c = 0; c < 3; ++c) {
                        const double d = double(x(f, a, c)) - double(x(0, a, c));
                        s += d * d;
                    }
                out.push_back(std::sqrt(s / static_cast<double>(atoms.size())));
            }
            return out;
        };
    };
    chunkwise::thread_policy pool(3);
    const auto a = chunkwise::gather(pool, chunkwise::map_blocks(pool, h5::partition(series, parts{20}), rmsd(series)));
    const auto b = chunkwise::gather(pool, chunkwise::map_blocks(pool, h5::partition(series, parts{20}), rmsd(single)));
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        REQUIRE(std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(double)) == 0);
}

TEST_CASE("glob lists files in natural order", "[hdf5][series]") {
    const auto found = h5::glob((files() / "series20" / "part-*.h5").string());
    REQUIRE(found == series_files(20));
    CHECK_THAT(test::error_of<h5::error>([&] { (void)h5::glob((files() / "nothing-*.h5").string()); }),
               Contains("no file matches"));
}

TEST_CASE("a series with a file that disagrees is an h5::error naming that file", "[hdf5][series][errors]") {
    const fs::path bad = files() / "series_bad";
    CHECK_THAT(test::error_of<h5::error>([&] {
                   h5::dataset_series({bad / "part-0.h5", bad / "part-1.h5", bad / "part-2.h5"}, "pos");
               }),
               Contains((bad / "part-2.h5").string()) && Contains("(4, 49, 3)") && Contains("(4, 50, 3)") &&
                   Contains("every axis but the first"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   h5::dataset_series({bad / "part-0.h5", bad / "text.h5"}, "pos");
               }),
               Contains((bad / "text.h5").string()) && Contains("do not convert to a number"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   h5::dataset_series({bad / "part-0.h5", bad / "missing.h5"}, "pos");
               }),
               Contains((bad / "missing.h5").string()) && Contains("no such file"));
    CHECK_THAT(test::error_of<h5::error>([&] { h5::dataset_series({bad / "part-0.h5"}, "nope"); }),
               Contains("no dataset '/nope'"));
    CHECK_THAT(test::error_of<h5::error>([&] { h5::dataset_series({}, "pos"); }), Contains("no files given"));
    h5::dataset_series ok({bad / "part-0.h5", bad / "part-1.h5"}, "pos");
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)ok.read<float, 3>(block{0, 0, 9});
               }),
               Contains("(+ 1 files)") && Contains("rows [0, 9) are outside axis 0 of extent 8"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)ok.read<float, 3>(block{0, 0, 2}, h5::indices{1, {50}});
               }),
               Contains("index 50 (position 0") && Contains("extent 50"));
    CHECK_THAT(test::error_of<h5::error>([&] {
                   (void)ok.read<float, 2>(block{0, 0, 2});
               }),
               Contains("the series has rank 3"));
    REQUIRE_THROWS_AS(h5::dataset_series({bad / "part-0.h5"}, "pos", 0), std::invalid_argument);
}

TEST_CASE("a chunk larger than the array is refused by name, not by HDF5's link error", "[hdf5][errors]") {
    const fs::path file = test::scratch("shapes-chunk") / "small.h5";
    xt::xtensor<float, 2> v = xt::zeros<float>({1, 4});
    CHECK_THAT(test::error_of<h5::error>([&] {
                   h5::write(file, "x", v, h5::write_options{{2, 4}, 0, false});
               }),
               Contains("the chunk shape (2, 4) is larger than the array (1, 4) on axis 0"));
    REQUIRE_FALSE(fs::exists(file));
    h5::write(file, "x", v, h5::write_options{{1, 4}, 0, false});
    REQUIRE(h5::dataset(file, "x").chunk_shape() == std::vector<std::size_t>{1, 4});
}

TEST_CASE("variance::add_rows reads a view's own elements: rows 5..9, strided rows, column-major", "[acc][xtensor]") {
    namespace acc = chunkwise::acc;
    xt::xtensor<double, 3> a = xt::xtensor<double, 3>::from_shape({12, 4, 3});
    for (std::size_t i = 0; i < a.size(); ++i)
        a.data()[i] = std::sin(static_cast<double>(i)) * 100 + static_cast<double>(i);
    // Each view against add() of the same rows, one by one (add_rows merges its own way: values
    // within rounding).
    auto check = [&](const auto& rows, const std::vector<std::size_t>& which) {
        acc::variance<xt::xtensor<double, 2>> by_rows, by_add;
        by_rows.add_rows(rows);
        for (std::size_t r : which) by_add.add(xt::xtensor<double, 2>(xt::view(a, r, xt::all(), xt::all())));
        REQUIRE(by_rows.count() == which.size());
        const auto m1 = by_rows.mean(), m2 = by_add.mean(), v1 = by_rows.var(), v2 = by_add.var();
        for (std::size_t i = 0; i < m1.size(); ++i) {
            REQUIRE(m1.data()[i] == Approx(m2.data()[i]).epsilon(1e-12));
            REQUIRE(v1.data()[i] == Approx(v2.data()[i]).epsilon(1e-9));
        }
    };
    check(xt::view(a, xt::range(5, 10), xt::all(), xt::all()), {5, 6, 7, 8, 9});   // contiguous, offset
    check(xt::view(a, xt::range(1, 12, 3), xt::all(), xt::all()), {1, 4, 7, 10});  // strided rows
    check(xt::view(a, xt::keep(11, 0, 6), xt::all(), xt::all()), {11, 0, 6});      // picked rows
    xt::xtensor<double, 3, xt::layout_type::column_major> f = a;                   // another layout
    check(f, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}
