// Attributes in both stores, one type: written with a new array (write_options::attributes) and on
// what exists (set_attributes), read back as chunkwise::attributes (attrs(), attributes_of) from
// both; h5py and zarr-python read what chunkwise writes, and chunkwise reads what they write; what
// a store cannot hold, or chunkwise::attributes cannot, is refused naming it, before anything is
// written.
#include "catch.hpp"
#include "test_util.hpp"
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr.hpp>

#include <nlohmann/json.hpp>
#if __has_include(<xtensor/views/xview.hpp>)
#include <xtensor/views/xview.hpp>
#else
#include <xtensor/xview.hpp>
#endif

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const chunkwise::attributes every_kind{
    {"units", std::string("nm")},
    {"frames", std::int64_t{-90100}},
    {"timestep", 0.002},
    {"axes", std::vector<std::string>{"frame", "atom", "xyz"}},
    {"box", std::vector<double>{5.5, 6.25, 7.0}},
    {"selection", std::vector<std::int64_t>{3, 1, 4, 1, 5}},
    {"none", std::vector<double>{}},  // (an empty JSON list has no element type: Zarr reads it as floats)
    {"utf8", std::string("Å, µs")},
};

// The attributes as the peers' script writes them: {name: [kind, value]}.
json as_peer_json(const chunkwise::attributes& attrs) {
    json out = json::object();
    for (const auto& [name, v] : attrs) {
        std::visit(
            [&, n = name](const auto& x) {
                using V = std::decay_t<decltype(x)>;
                const char* kind = std::is_same_v<V, std::int64_t>                ? "int"
                                   : std::is_same_v<V, double>                    ? "float"
                                   : std::is_same_v<V, std::string>               ? "str"
                                   : std::is_same_v<V, std::vector<std::int64_t>> ? "list-int"
                                   : std::is_same_v<V, std::vector<double>>       ? "list-float"
                                                                                  : "list-str";
                out[n] = json::array({kind, x});
            },
            v);
    }
    return out;
}

int peer(const std::string& args) {
    const std::string command =
        std::string(CHUNKWISE_TEST_PYTHON) + " " + CHUNKWISE_TEST_SUPPORT_DIR + "/attributes_peer.py " + args;
    return std::system(command.c_str());
}

json peer_view(const std::string& args, const fs::path& out) {
    REQUIRE(peer(args + " " + out.string()) == 0);
    return json::parse(std::ifstream(out));
}

xt::xtensor<float, 2> some_values() {
    xt::xtensor<float, 2> v = xt::xtensor<float, 2>::from_shape({8, 3});
    for (std::size_t i = 0; i < v.size(); ++i) v.data()[i] = static_cast<float>(i);
    return v;
}

}  // namespace

TEST_CASE("attributes: written with a new array, read back the same from both stores and by h5py and zarr-python",
          "[store][attributes]") {
    const fs::path dir = test::scratch("attributes-new");
    const fs::path file = dir / "a.h5", v2 = dir / "a2.zarr", v3 = dir / "a3.zarr";
    h5::write(file, "/run/x", some_values(), {.chunk = {4, 3}, .attributes = every_kind});
    zarr::write(v2, some_values(), {.chunk = {4, 3}, .attributes = every_kind});
    zarr::write(v3, some_values(), {.chunk = {4, 3}, .format = 3, .attributes = every_kind});

    CHECK(h5::dataset(file, "/run/x").attrs() == every_kind);
    CHECK(h5::attributes_of(file, "/run/x") == every_kind);
    CHECK(zarr::array(v2).attrs() == every_kind);
    CHECK(zarr::array(v3).attrs() == every_kind);
    CHECK(zarr::attributes_of(v2) == every_kind);
    CHECK(zarr::attributes_of(v3) == every_kind);
    const bool h5_values = h5::dataset(file, "/run/x").read<float, 2>({0, 0, 8}) == some_values();
    const bool zarr_values = zarr::array(v3).read<float, 2>({0, 0, 8}) == some_values();
    CHECK(h5_values);
    CHECK(zarr_values);

    // What the peers see.
    const json want = as_peer_json(every_kind);
    CHECK(peer_view("read-h5 " + file.string() + " /run/x", dir / "h5py.json") == want);
    CHECK(peer_view("read-zarr " + v2.string(), dir / "zarr2.json") == want);

    // write_blocks and chunk_writer write them too, from a thread pool.
    chunkwise::thread_policy threads(2);
    const auto rows = [&] {
        return chunkwise::map_blocks(
            threads, chunkwise::partition(8, chunkwise::block_size{3}), [](const chunkwise::block& b) {
                return xt::xtensor<float, 2>(xt::view(some_values(), xt::range(b.begin, b.end), xt::all()));
            });
    };
    h5::write_blocks(threads, file, "/blocks", rows(), {.chunk = {4, 3}, .attributes = every_kind});
    zarr::write_blocks(threads, dir / "blocks.zarr", rows(), {.chunk = {4, 3}, .attributes = every_kind});
    CHECK(h5::attributes_of(file, "/blocks") == every_kind);
    CHECK(zarr::attributes_of(dir / "blocks.zarr") == every_kind);
    {
        h5::chunk_writer<float> w(file, "/rows", {8, 3}, {.chunk = {4, 3}, .attributes = every_kind});
        const auto v = some_values();
        w.write_rows(0, std::span<const float>(v.data(), v.size()));
        w.close();
    }
    CHECK(h5::attributes_of(file, "/rows") == every_kind);

    // A dataset written with no attributes has none.
    h5::write(file, "/plain", some_values());
    CHECK(h5::dataset(file, "/plain").attrs().empty());
}

TEST_CASE("attributes: set on what exists (dataset, group, file; array, group), replacing only those named",
          "[store][attributes]") {
    const fs::path dir = test::scratch("attributes-set");
    const fs::path file = dir / "s.h5", v2 = dir / "s2.zarr", v3 = dir / "s3.zarr";
    h5::write(file, "/group/x", some_values(), {.attributes = {{"units", std::string("nm")}, {"n", std::int64_t{1}}}});
    zarr::write(v2, some_values(), {.attributes = {{"units", std::string("nm")}, {"n", std::int64_t{1}}}});
    zarr::write(v3, some_values(), {.format = 3, .attributes = {{"units", std::string("nm")}, {"n", std::int64_t{1}}}});

    const chunkwise::attributes change{{"n", std::int64_t{2}}, {"added", std::vector<double>{0.5}}};
    const chunkwise::attributes after{
        {"units", std::string("nm")}, {"n", std::int64_t{2}}, {"added", std::vector<double>{0.5}}};
    h5::set_attributes(file, "/group/x", change);
    zarr::set_attributes(v2, change);
    zarr::set_attributes(v3, change);
    CHECK(h5::attributes_of(file, "/group/x") == after);
    CHECK(zarr::attributes_of(v2) == after);
    CHECK(zarr::attributes_of(v3) == after);
    const bool untouched = zarr::array(v3).read<float, 2>({0, 0, 8}) == some_values();
    CHECK(untouched);

    // A group and the file itself, in HDF5.
    h5::set_attributes(file, "/group", {{"title", std::string("run 1")}});
    h5::set_attributes(file, "/", {{"creator", std::string("chunkwise")}});
    CHECK(h5::attributes_of(file, "group") == chunkwise::attributes{{"title", std::string("run 1")}});
    CHECK(h5::attributes_of(file, "/") == chunkwise::attributes{{"creator", std::string("chunkwise")}});
    CHECK(peer_view("read-h5 " + file.string() + " /", dir / "root.json") ==
          json::parse(R"({"creator": ["str", "chunkwise"]})"));

    // A Zarr group zarr-python made, and its consolidated metadata kept current.
    REQUIRE(peer("write-zarr " + dir.string()) == 0);
    const fs::path group = dir / "group";
    CHECK(zarr::attributes_of(group) == chunkwise::attributes{{"title", std::string("trajectory")}});
    zarr::set_attributes(group, {{"version", std::int64_t{2}}});
    CHECK(zarr::attributes_of(group) ==
          chunkwise::attributes{{"title", std::string("trajectory")}, {"version", std::int64_t{2}}});
    {
        // .zmetadata as zarr-python's consolidate_metadata writes it, then an attribute set on a member
        json z = {{"zarr_consolidated_format", 1},
                  {"metadata",
                   {{".zgroup", {{"zarr_format", 2}}},
                    {"good/.zarray", json::parse(std::ifstream(group / "good" / ".zarray"))},
                    {"good/.zattrs", json::parse(std::ifstream(group / "good" / ".zattrs"))}}}};
        std::ofstream(group / ".zmetadata") << z.dump();
    }
    zarr::set_attributes(group / "good", {{"str", std::string("Å")}});
    const json consolidated = json::parse(std::ifstream(group / ".zmetadata"));
    CHECK(consolidated["metadata"]["good/.zattrs"]["str"] == "Å");
    CHECK(std::get<std::string>(zarr::attributes_of(group / "good").at("str")) == "Å");
}

TEST_CASE("attributes: what h5py and zarr-python write reads into chunkwise::attributes; what it cannot hold is named",
          "[store][attributes]") {
    const fs::path dir = test::scratch("attributes-peers");
    REQUIRE(peer("write-h5 " + (dir / "peer.h5").string()) == 0);
    REQUIRE(peer("write-zarr " + dir.string()) == 0);

    const chunkwise::attributes h = h5::dataset(dir / "peer.h5", "good").attrs();
    CHECK(h.at("int32") == chunkwise::attribute{std::int64_t{-7}});
    CHECK(h.at("uint8") == chunkwise::attribute{std::int64_t{200}});
    CHECK(h.at("float32") == chunkwise::attribute{0.25});
    CHECK(h.at("str") == chunkwise::attribute{std::string("nm")});
    CHECK(h.at("bytes") == chunkwise::attribute{std::string("raw")});
    CHECK(h.at("fixed") == chunkwise::attribute{std::string("fixed")});
    CHECK(h.at("ints") == chunkwise::attribute{std::vector<std::int64_t>{0, 1, 2}});
    CHECK(h.at("floats") == chunkwise::attribute{std::vector<double>{0.5, 1.5}});
    CHECK(h.at("strs") == chunkwise::attribute{std::vector<std::string>{"a", "bc"}});
    CHECK(h.size() == 9);
    CHECK_THAT(test::error_of([&] { (void)h5::attributes_of(dir / "peer.h5", "matrix"); }),
               Catch::Matchers::Contains("matrix: attribute 'm' has 2 axes"));
    CHECK_THAT(test::error_of([&] { (void)h5::attributes_of(dir / "peer.h5", "huge"); }),
               Catch::Matchers::Contains("huge: attribute 'u' holds 9223372036854775809, beyond a 64-bit signed"));

    const chunkwise::attributes z = zarr::array(dir / "group" / "good").attrs();
    CHECK(z.at("int") == chunkwise::attribute{std::int64_t{-7}});
    CHECK(z.at("big") == chunkwise::attribute{std::int64_t{1} << 40});
    CHECK(z.at("float") == chunkwise::attribute{0.25});
    CHECK(z.at("ints") == chunkwise::attribute{std::vector<std::int64_t>{1, 2, 3}});
    CHECK(z.at("floats") == chunkwise::attribute{std::vector<double>{0.5, 2.0}});
    CHECK(z.at("strs") == chunkwise::attribute{std::vector<std::string>{"a", "bc"}});
    CHECK(z.at("empty") == chunkwise::attribute{std::vector<double>{}});
    CHECK(z.size() == 8);
    CHECK_THAT(test::error_of([&] { (void)zarr::array(dir / "group" / "flag").attrs(); }),
               Catch::Matchers::Contains("attribute 'flag' in .zattrs is a boolean: chunkwise::attributes holds"));
    CHECK(zarr::array(dir / "group" / "flag").attributes() == R"({"flag":true})");  // the JSON text stays
}

TEST_CASE("attributes: bad input is refused naming what is wrong, and nothing is written", "[store][attributes]") {
    const fs::path dir = test::scratch("attributes-bad");
    const fs::path file = dir / "b.h5", store = dir / "b.zarr";
    const chunkwise::attributes unnamed{{"", 1.0}};

    // An empty name: neither the dataset nor the store is made.
    CHECK_THAT(test::error_of([&] { h5::write(file, "/x", some_values(), {.attributes = unnamed}); }),
               Catch::Matchers::EndsWith("b.h5:/x: write: an attribute with an empty name"));
    CHECK_FALSE(fs::exists(file));
    CHECK_THAT(test::error_of([&] { zarr::write(store, some_values(), {.attributes = unnamed}); }),
               Catch::Matchers::EndsWith("b.zarr: an attribute with an empty name"));
    CHECK_FALSE(fs::exists(store));

    // What each store cannot hold: NaN in JSON, a NUL inside an HDF5 string.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_THAT(test::error_of([&] {
                   zarr::write(store, some_values(), {.attributes = {{"v", std::vector<double>{1, nan}}}});
               }),
               Catch::Matchers::Contains("attribute 'v' holds nan, which JSON (Zarr's attributes) cannot hold"));
    CHECK_FALSE(fs::exists(store));
    CHECK_THAT(test::error_of([&] {
                   h5::write(file, "/x", some_values(), {.attributes = {{"s", std::string("a\0b", 3)}}});
               }),
               Catch::Matchers::Contains("attribute 's': a string holding a NUL character"));
    CHECK_FALSE(fs::exists(file));

    // On what exists: a bad attribute changes nothing, not even the good ones beside it.
    h5::write(file, "/x", some_values(), {.attributes = {{"keep", std::int64_t{1}}}});
    zarr::write(store, some_values(), {.attributes = {{"keep", std::int64_t{1}}}});
    CHECK_THAT(test::error_of([&] {
                   h5::set_attributes(file, "/x", {{"good", 1.0}, {"", 2.0}});
               }),
               Catch::Matchers::EndsWith("b.h5:/x: an attribute with an empty name"));
    CHECK_THAT(test::error_of([&] {
                   zarr::set_attributes(store, {{"good", 1.0}, {"inf", INFINITY}});
               }),
               Catch::Matchers::Contains("attribute 'inf' holds inf"));
    CHECK(h5::attributes_of(file, "/x") == chunkwise::attributes{{"keep", std::int64_t{1}}});
    CHECK(zarr::attributes_of(store) == chunkwise::attributes{{"keep", std::int64_t{1}}});

    // Nothing there.
    CHECK_THAT(test::error_of([&] {
                   h5::set_attributes(file, "/nothing", {{"a", 1.0}});
               }),
               Catch::Matchers::EndsWith("b.h5:/nothing: no such dataset or group"));
    CHECK_THAT(test::error_of([&] { (void)h5::attributes_of(dir / "none.h5", "/"); }),
               Catch::Matchers::EndsWith("none.h5:/: no such file"));
    CHECK_THAT(test::error_of([&] {
                   zarr::set_attributes(dir / "none.zarr", {{"a", 1.0}});
               }),
               Catch::Matchers::EndsWith("none.zarr: does not exist"));
    fs::create_directories(dir / "empty");
    CHECK_THAT(test::error_of([&] { (void)zarr::attributes_of(dir / "empty"); }),
               Catch::Matchers::EndsWith("empty: is not a Zarr array or group"));

    // A file open in this program cannot be written: the message says why.
    {
        const h5::dataset open(file, "/x");
        CHECK_THAT(test::error_of([&] {
                       h5::set_attributes(file, "/x", {{"a", 1.0}});
                   }),
                   Catch::Matchers::Contains("cannot be opened for writing (read-only, or open in this program"));
    }
    h5::set_attributes(file, "/x", {{"a", 1.0}});
    CHECK(h5::attributes_of(file, "/x").size() == 2);
}
