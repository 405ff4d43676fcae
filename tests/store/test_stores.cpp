// HDF5 and Zarr as peers: both arrays model chunkwise::chunked_array; the same mistakes get the
// same checks in the same order and the same words (after each store's prefix); the same rules for
// conversions and bool; the same write_options (one designated initializer compiles for both),
// defaults, codec names and option errors; the same write modes; read_buffer in both.
#include "catch.hpp"
#include "test_util.hpp"
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr.hpp>

#include <hdf5.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using chunkwise::block;
namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;

static_assert(chunkwise::chunked_array<h5::dataset>);
static_assert(chunkwise::chunked_array<h5::dataset, float>);
static_assert(chunkwise::chunked_array<h5::dataset, std::int64_t>);
static_assert(chunkwise::chunked_array<zarr::array>);
static_assert(chunkwise::chunked_array<zarr::array, float>);
static_assert(chunkwise::chunked_array<zarr::array, std::uint8_t>);
static_assert(!chunkwise::chunked_array<std::vector<double>>);
static_assert(std::is_same_v<h5::indices, zarr::indices>);
static_assert(std::is_same_v<h5::block_bytes, zarr::bytes>);
static_assert(std::is_same_v<h5::read_buffer<float>, zarr::read_buffer<float>>);

namespace {

// One set of values, written to both stores the same way.
struct pair_of_stores {
    fs::path file, store;
    std::string dataset = "/values";
    xt::xtensor<float, 2> values;

    explicit pair_of_stores(const std::string& name) {
        const fs::path dir = test::scratch("stores-" + name);
        file = dir / "v.h5";
        store = dir / "v.zarr";
        values = xt::xtensor<float, 2>::from_shape({20, 6});
        for (std::size_t i = 0; i < values.size(); ++i) values.data()[i] = static_cast<float>(i) * 0.75f - 20.5f;
        h5::write(file, dataset, values, h5::write_options{.chunk = {5, 6}, .shuffle = true, .codec = "zstd"});
        zarr::write(store, values, zarr::write_options{.chunk = {5, 6}, .shuffle = false, .codec = "zstd"});
    }
};

// The message of a store's error after its prefix ("[chunkwise.h5] FILE:PATH: ", "[chunkwise.zarr] STORE: ").
template <class F>
std::string words_of(F&& f) {
    try {
        f();
    } catch (const chunkwise::error& e) {
        const std::string w = e.what();
        // the prefix ends at the first ": " after the store's own name
        const auto at = w.find(".h5:/values: ");
        if (at != std::string::npos) return w.substr(at + std::string(".h5:/values: ").size());
        const auto z = w.find(".zarr: ");
        if (z != std::string::npos) return w.substr(z + std::string(".zarr: ").size());
        return "unexpected: " + w;
    }
    return "no error";
}

}  // namespace

TEST_CASE("stores: the same mistakes, the same checks in the same order, the same words", "[store]") {
    const pair_of_stores s("mistakes");
    const h5::dataset d(s.file, s.dataset);
    const zarr::array z(s.store);
    const auto both = [&](const std::string& expected, const std::function<void(const h5::dataset&)>& on_h5,
                          const std::function<void(const zarr::array&)>& on_zarr) {
        const std::string a = words_of([&] { on_h5(d); });
        const std::string b = words_of([&] { on_zarr(z); });
        INFO("hdf5: " << a << "\nzarr: " << b);
        CHECK(a == b);
        CHECK_THAT(a, Catch::Matchers::Contains(expected));
    };
    both("read<T, 3>: the array has rank 2 (shape (20, 6))", [](const auto& a) { (void)a.template read<float, 3>(block{0, 0, 1}); },
         [](const auto& a) { (void)a.template read<float, 3>(block{0, 0, 1}); });
    both("rows [4, 21) are outside axis 0 of extent 20", [](const auto& a) { (void)a.template read<float, 2>(block{0, 4, 21}); },
         [](const auto& a) { (void)a.template read<float, 2>(block{0, 4, 21}); });
    // rank is checked before rows, rows before the type
    both("the array has rank 2", [](const auto& a) { (void)a.template read<int, 3>(block{0, 4, 21}); },
         [](const auto& a) { (void)a.template read<int, 3>(block{0, 4, 21}); });
    both("rows [4, 21)", [](const auto& a) { (void)a.template read<int, 2>(block{0, 4, 21}); },
         [](const auto& a) { (void)a.template read<int, 2>(block{0, 4, 21}); });
    both("indices on axis 0: the array has rank 2 (shape (20, 6)); indices select on axes 1 to 1 (axis 0 holds the rows)",
         [](const auto& a) { (void)a.template read<float, 2>(block{0, 0, 2}, chunkwise::indices{0, {1}}); },
         [](const auto& a) { (void)a.template read<float, 2>(block{0, 0, 2}, chunkwise::indices{0, {1}}); });
    both("index 6 (position 1 of the indices) is outside axis 1 of extent 6",
         [](const auto& a) { (void)a.template read<float, 2>(block{0, 0, 2}, chunkwise::indices{1, {0, 6}}); },
         [](const auto& a) { (void)a.template read<float, 2>(block{0, 0, 2}, chunkwise::indices{1, {0, 6}}); });
    both("stored as float32, which int32 does not hold exactly",
         [](const auto& a) { (void)a.template read<int, 2>(block{0, 0, 2}); },
         [](const auto& a) { (void)a.template read<int, 2>(block{0, 0, 2}); });
    both("stored as float32, not as bool", [](const auto& a) { (void)a.template read<bool, 2>(block{0, 0, 2}); },
         [](const auto& a) { (void)a.template read<bool, 2>(block{0, 0, 2}); });
    std::vector<float> small(5);
    both("read_into: the buffer holds 5 values, rows [0, 2) need 12",
         [&](const auto& a) { a.read_into(block{0, 0, 2}, std::span<float>(small)); },
         [&](const auto& a) { a.read_into(block{0, 0, 2}, std::span<float>(small)); });
    // The type is checked before the buffer's size.
    std::vector<int> small_ints(5);
    both("which int32 does not hold exactly", [&](const auto& a) { a.read_into(block{0, 0, 2}, std::span<int>(small_ints)); },
         [&](const auto& a) { a.read_into(block{0, 0, 2}, std::span<int>(small_ints)); });
}

TEST_CASE("stores: the same conversion rule; read_options{.convert = true} converts in both", "[store]") {
    const pair_of_stores s("convert");
    const h5::dataset d(s.file, s.dataset, chunkwise::read_options{.convert = true});
    const zarr::array z(s.store, chunkwise::read_options{.convert = true});
    CHECK(d.options().convert);
    CHECK_FALSE(d.with({}).options().convert);
    const auto hi = d.read<int, 2>(block{0, 0, 20});
    const auto zi = z.read<int, 2>(block{0, 0, 20});
    for (std::size_t i = 0; i < s.values.size(); ++i) {
        CHECK(hi.data()[i] == static_cast<int>(s.values.data()[i]));  // toward zero: -20.5 is -20
        CHECK(zi.data()[i] == hi.data()[i]);
    }
    const auto hu = d.read<std::uint8_t, 2>(block{0, 0, 20});
    const auto zu = z.read<std::uint8_t, 2>(block{0, 0, 20});
    CHECK(std::equal(hu.begin(), hu.end(), zu.begin()));  // negative values clipped to 0 in both
    CHECK(zu(0, 0) == 0);
    // Exact reads need no option: float32 into double, in both.
    CHECK(h5::dataset(s.file, s.dataset).read<double, 2>(block{0, 0, 20})(3, 1) == zarr::array(s.store).read<double, 2>(block{0, 0, 20})(3, 1));
}

TEST_CASE("stores: bool is read from bool arrays in both, and from nothing else", "[store]") {
    const fs::path dir = test::scratch("stores-bool");
    // h5py's bool: an enum of int8 {FALSE: 0, TRUE: 1}.
    {
        const hid_t f = H5Fcreate((dir / "b.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
        signed char no = 0, yes = 1;
        H5Tenum_insert(t, "FALSE", &no);
        H5Tenum_insert(t, "TRUE", &yes);
        const hsize_t dims[1] = {7};
        const hid_t sp = H5Screate_simple(1, dims, nullptr);
        const hid_t ds = H5Dcreate2(f, "flags", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const signed char v[7] = {1, 0, 0, 1, 1, 0, 1};
        H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        H5Dclose(ds);
        H5Sclose(sp);
        H5Tclose(t);
        H5Fclose(f);
    }
    fs::create_directories(dir / "b.zarr");
    std::ofstream(dir / "b.zarr" / ".zarray")
        << R"({"zarr_format": 2, "shape": [7], "chunks": [7], "dtype": "|b1", "compressor": null, "fill_value": false, "filters": null, "order": "C"})";
    const unsigned char raw[7] = {1, 0, 0, 1, 1, 0, 1};
    std::ofstream(dir / "b.zarr" / "0", std::ios::binary).write(reinterpret_cast<const char*>(raw), 7);
    const h5::dataset d(dir / "b.h5", "flags");
    const zarr::array z(dir / "b.zarr");
    CHECK(d.dtype() == "bool");
    CHECK(z.dtype() == "bool");
    const auto hb = d.read<bool, 1>(block{0, 0, 7});
    const auto zb = z.read<bool, 1>(block{0, 0, 7});
    const std::vector<bool> want{true, false, false, true, true, false, true};
    for (std::size_t i = 0; i < 7; ++i) {
        CHECK(hb(i) == want[i]);
        CHECK(zb(i) == want[i]);
    }
    CHECK(d.read<int, 1>(block{0, 0, 7})(3) == 1);
    CHECK(z.read<int, 1>(block{0, 0, 7})(3) == 1);
}

TEST_CASE("stores: one designated initializer for both write_options; the same defaults, names and errors", "[store]") {
    const fs::path dir = test::scratch("stores-options");
    xt::xtensor<double, 2> a = xt::xtensor<double, 2>::from_shape({12, 4});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = std::sin(static_cast<double>(i));
    // The same initializer, field for field, for both.
    h5::write(dir / "o.h5", "a", a, {.chunk = {4, 4}, .deflate = 0, .shuffle = true, .codec = "bz2", .level = 0});
    zarr::write(dir / "o.zarr", a, {.chunk = {4, 4}, .deflate = 0, .shuffle = true, .codec = "bz2", .level = 0});
    CHECK(h5::dataset(dir / "o.h5", "a").codecs() == std::vector<std::string>{"shuffle", "bzip2"});
    CHECK(zarr::array(dir / "o.zarr").codecs() == std::vector<std::string>{"shuffle", "bz2"});
    const bool same = h5::dataset(dir / "o.h5", "a").read<double, 2>(block{0, 0, 12}) ==
                      zarr::array(dir / "o.zarr").read<double, 2>(block{0, 0, 12});
    CHECK(same);
    // The codec's own default level in both: Zstandard 3.
    h5::write(dir / "z.h5", "a", a, {.chunk = {4, 4}, .codec = "zstd"});
    zarr::write(dir / "z.zarr", a, {.chunk = {4, 4}, .codec = "zstd"});
    const auto meta = nlohmann::json::parse(std::ifstream(dir / "z.zarr" / ".zarray"));
    CHECK(meta["compressor"]["level"] == 3);
    {
        const hid_t f = H5Fopen((dir / "z.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        const hid_t ds = H5Dopen2(f, "a", H5P_DEFAULT);
        const hid_t p = H5Dget_create_plist(ds);
        unsigned flags = 0, cd[8] = {};
        std::size_t n = 8;
        char name[64];
        REQUIRE(H5Pget_filter_by_id2(p, 32015, &flags, &n, cd, sizeof name, name, nullptr) >= 0);
        CHECK(n >= 1);
        CHECK(cd[0] == 3);
        H5Pclose(p);
        H5Dclose(ds);
        H5Fclose(f);
    }
    // The same errors for the same option mistakes.
    const auto h5_problem = [](h5::write_options o) { return h5::codec_problem(o); };
    const auto zarr_problem = [](zarr::write_options o) { return zarr::options_problem(o); };
    CHECK(h5_problem({.codec = "zstd", .level = 30}) == "codec 'zstd' level must be 0-22, got 30");
    CHECK(zarr_problem({.codec = "zstd", .level = 30}) == "codec 'zstd' level must be 0-22, got 30");
    CHECK(h5_problem({.deflate = 4, .codec = "zstd"}) == zarr_problem({.deflate = 4, .codec = "zstd"}));
    CHECK(h5_problem({.deflate = 12}) == zarr_problem({.deflate = 12}));
    CHECK(h5_problem({.codec = "blosc:snappy"}) == zarr_problem({.codec = "blosc:snappy"}));
    CHECK_THAT(h5_problem({.codec = "lzma"}), Catch::Matchers::Contains("codec 'lzma' is not one of"));
    CHECK_THAT(zarr_problem({.codec = "lzma"}), Catch::Matchers::Contains("codec 'lzma' is not one of"));
    // deflate in both: HDF5's filter, numcodecs' zlib (v2), gzip (v3).
    zarr::write(dir / "d2.zarr", a, {.chunk = {4, 4}, .deflate = 5});
    zarr::write(dir / "d3.zarr", a, {.chunk = {4, 4}, .deflate = 5, .format = 3});
    CHECK(zarr::array(dir / "d2.zarr").codecs() == std::vector<std::string>{"zlib"});
    CHECK(zarr::array(dir / "d3.zarr").codecs() == std::vector<std::string>{"gzip"});
    h5::write(dir / "d.h5", "a", a, {.chunk = {4, 4}, .codec = "gzip", .level = 5});
    CHECK(h5::dataset(dir / "d.h5", "a").codecs() == std::vector<std::string>{"deflate"});
}

TEST_CASE("stores: write_mode create refuses what exists in both, replace replaces in both", "[store]") {
    const pair_of_stores s("modes");
    const xt::xtensor<float, 2> twice = s.values * 2.0f;
    const std::string same = "not overwritten (write_mode::create; ask for write_mode::replace to replace it)";
    CHECK_THROWS_WITH(h5::write(s.file, s.dataset, twice),
                      Catch::Matchers::Contains("already exists") && Catch::Matchers::EndsWith(same));
    CHECK_THROWS_WITH(zarr::write(s.store, twice), Catch::Matchers::EndsWith(same));
    CHECK(h5::dataset(s.file, s.dataset).read<float, 2>(block{0, 0, 20})(1, 1) == s.values(1, 1));
    CHECK(zarr::array(s.store).read<float, 2>(block{0, 0, 20})(1, 1) == s.values(1, 1));
    h5::write(s.file, s.dataset, twice, {.mode = chunkwise::write_mode::replace});
    zarr::write(s.store, twice, {.mode = chunkwise::write_mode::replace});
    CHECK(h5::dataset(s.file, s.dataset).read<float, 2>(block{0, 0, 20})(1, 1) == twice(1, 1));
    CHECK(zarr::array(s.store).read<float, 2>(block{0, 0, 20})(1, 1) == twice(1, 1));
}

TEST_CASE("stores: read_buffer and the generic partitions over any chunked array", "[store]") {
    const pair_of_stores s("buffer");
    const h5::dataset d(s.file, s.dataset);
    const zarr::array z(s.store);
    chunkwise::read_buffer<float> buf;
    const auto hv = d.read<float, 2>(block{0, 5, 10}, buf);
    CHECK(hv(2, 3) == s.values(7, 3));
    const auto zv = z.read<float, 2>(block{0, 5, 10}, buf);
    CHECK(zv(2, 3) == s.values(7, 3));
    CHECK(buf.capacity() == 30);
    // The generic partitions (store.hpp) give what each store's own gives.
    CHECK(chunkwise::partition(d, chunkwise::parts{3}) == h5::partition(d, chunkwise::parts{3}));
    CHECK(chunkwise::partition(z, chunkwise::parts{3}) == zarr::partition(z, chunkwise::parts{3}));
    CHECK(chunkwise::partition(z, chunkwise::block_bytes{250}) == zarr::partition(z, chunkwise::block_bytes{250}));
    CHECK(chunkwise::partition(d, chunkwise::block_bytes{250}) == h5::partition(d, chunkwise::block_bytes{250}));
    for (const auto& b : chunkwise::partition(d, chunkwise::parts{3})) CHECK(b.begin % 5 == 0);
    // A pass over either through the neutral face gives the same sum.
    chunkwise::thread_policy pool(2);
    const auto pass = [&](const auto& array) {
        auto parts = chunkwise::map_blocks(pool, chunkwise::partition(array, chunkwise::parts{4}), [&](const block& b) {
            std::vector<double> v(b.size() * 6);
            array.read_into(b, std::span<double>(v));
            double sum = 0;
            for (double x : v) sum += x;
            return sum;
        });
        return chunkwise::reduce(pool, std::move(parts), std::plus<>());
    };
    CHECK(pass(d) == pass(z));
}

TEST_CASE("stores: a read larger than memory is the store's error in both", "[store]") {
    const fs::path dir = test::scratch("stores-huge");
    // Zarr: metadata only; HDF5: a chunked dataset with no chunk written.
    fs::create_directories(dir / "huge.zarr");
    std::ofstream(dir / "huge.zarr" / ".zarray")
        << R"({"zarr_format": 2, "shape": [1099511627776, 1024], "chunks": [1024, 1024], "dtype": "<f8", "compressor": null, "fill_value": 0, "filters": null, "order": "C"})";
    {
        const hid_t f = H5Fcreate((dir / "huge.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[2] = {hsize_t{1} << 40, 1024}, chunk[2] = {1024, 1024};
        const hid_t sp = H5Screate_simple(2, dims, nullptr);
        const hid_t p = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(p, 2, chunk);
        H5Dclose(H5Dcreate2(f, "values", H5T_IEEE_F64LE, sp, H5P_DEFAULT, p, H5P_DEFAULT));
        H5Pclose(p);
        H5Sclose(sp);
        H5Fclose(f);
    }
    const block all{0, 0, std::size_t{1} << 40};
    const std::string a = words_of([&] { (void)h5::dataset(dir / "huge.h5", "values").read<double, 2>(all); });
    const std::string b = words_of([&] { (void)zarr::array(dir / "huge.zarr").read<double, 2>(all); });
    CHECK_THAT(a, Catch::Matchers::Contains("more than this machine's memory"));
    CHECK(a == b);
}
