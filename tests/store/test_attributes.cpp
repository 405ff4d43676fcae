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

// What xarray sees of a store's dimensions (tests/support/dimensions_peer.py).
json xarray_view(const std::string& args, const fs::path& out) {
    const std::string cmd = std::string(CHUNKWISE_TEST_PYTHON) + " " + CHUNKWISE_TEST_SUPPORT_DIR +
                            "/dimensions_peer.py " + args + " " + out.string();
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(out);
    return json::parse(in);
}

xt::xtensor<double, 1> frames() {
    xt::xtensor<double, 1> t = xt::xtensor<double, 1>::from_shape({8});
    for (std::size_t i = 0; i < t.size(); ++i) t(i) = 0.5 * static_cast<double>(i);
    return t;
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

TEST_CASE("dimensions: named in both stores, read back the same, and opened by xarray with their names",
          "[store][dimensions]") {
    const fs::path dir = test::scratch("dimensions");
    const fs::path file = dir / "p.h5", group = dir / "p.zarr", v3 = dir / "p3.zarr";
    const std::vector<std::string> frame_atom{"frame", "atom"};
    const chunkwise::attributes nm{{"units", std::string("nm")}};
    chunkwise::thread_policy threads(2);
    const auto rows = [&] {
        return chunkwise::map_blocks(
            threads, chunkwise::partition(8, chunkwise::block_size{3}), [](const chunkwise::block& b) {
                return xt::xtensor<float, 2>(xt::view(some_values(), xt::range(b.begin, b.end), xt::all()));
            });
    };

    // HDF5: a coordinate variable, then arrays on its dimension, by write and by write_blocks.
    h5::write(file, "/prod/frame", frames(), {.attributes = {{"units", std::string("ps")}}, .dimensions = {"frame"}});
    h5::write(file, "/prod/rmsd", some_values(), {.chunk = {4, 3}, .attributes = nm, .dimensions = frame_atom});
    h5::write_blocks(threads, file, "/prod/blocks", rows(), {.chunk = {4, 3}, .dimensions = frame_atom});
    h5::write(file, "/misc/plain", some_values());  // (xarray needs names for every axis in a group it opens)
    CHECK(h5::dataset(file, "/prod/rmsd").dimensions() == frame_atom);
    CHECK(h5::dataset(file, "/prod/blocks").dimensions() == frame_atom);
    CHECK(h5::dataset(file, "/prod/frame").dimensions() == std::vector<std::string>{"frame"});
    CHECK(h5::dataset(file, "/prod/atom").dimensions() == std::vector<std::string>{"atom"});
    CHECK(h5::dataset(file, "/misc/plain").dimensions().empty());
    CHECK(h5::dataset(file, "/prod/rmsd").attrs() == nm);  // the convention's own attributes are not listed
    CHECK(h5::attributes_of(file, "/prod/frame") == chunkwise::attributes{{"units", std::string("ps")}});

    // Zarr: format 2 in a group (the _ARRAY_DIMENSIONS attribute), format 3 (dimension_names).
    zarr::create_group(group);
    zarr::write(group / "frame", frames(), {.attributes = {{"units", std::string("ps")}}, .dimensions = {"frame"}});
    zarr::write(group / "rmsd", some_values(), {.chunk = {4, 3}, .attributes = nm, .dimensions = frame_atom});
    zarr::write_blocks(threads, group / "blocks", rows(), {.chunk = {4, 3}, .dimensions = frame_atom});
    zarr::write(v3, some_values(), {.chunk = {4, 3}, .format = 3, .attributes = nm, .dimensions = frame_atom});
    CHECK(zarr::array(group / "rmsd").dimensions() == frame_atom);
    CHECK(zarr::array(group / "blocks").dimensions() == frame_atom);
    CHECK(zarr::array(v3).dimensions() == frame_atom);
    CHECK(zarr::array(group / "rmsd").attrs() == nm);
    CHECK(zarr::array(v3).attrs() == nm);
    {
        std::ifstream in(v3 / "zarr.json");
        CHECK(json::parse(in)["dimension_names"] == json(frame_atom));
        std::ifstream zattrs(group / "rmsd" / ".zattrs");
        CHECK(json::parse(zattrs)["_ARRAY_DIMENSIONS"] == json(frame_atom));
    }

    // xarray opens both with the same dimensions, attributes and values.
    for (const auto& [args, out] : {std::pair{"h5 " + file.string() + " prod", dir / "h5.json"},
                                    std::pair{"zarr " + group.string(), dir / "zarr.json"}}) {
        INFO(args);
        const json x = xarray_view(args, out);
        CHECK(x["dims"] == json({{"frame", 8}, {"atom", 3}}));
        CHECK(x["vars"]["rmsd"]["dims"] == json(frame_atom));
        CHECK(x["vars"]["blocks"]["dims"] == json(frame_atom));
        CHECK(x["vars"]["rmsd"]["attrs"]["units"] == "nm");
        CHECK(x["vars"]["frame"]["attrs"]["units"] == "ps");
        CHECK(x["vars"]["rmsd"]["sum"] == 276.0);  // 0 + 1 + ... + 23
        CHECK(x["vars"]["blocks"]["sum"] == 276.0);
        CHECK(x["vars"]["frame"]["sum"] == 14.0);  // 0.5 * (0 + ... + 7)
    }

    // A replace remakes a dimension only the replaced dataset used, at the new length.
    xt::xtensor<float, 2> longer = xt::zeros<float>({10, 3});
    h5::write(file, "/other/x", some_values(), {.dimensions = {"row", "col"}});
    h5::write(file, "/other/x", longer, {.mode = chunkwise::write_mode::replace, .dimensions = {"row", "col"}});
    CHECK(h5::dataset(file, "/other/row").shape() == std::vector<std::size_t>{10});
    CHECK(h5::dataset(file, "/other/x").dimensions() == std::vector<std::string>{"row", "col"});
}

TEST_CASE("dimensions: bad names are refused naming what is wrong, and nothing changes", "[store][dimensions]") {
    const fs::path dir = test::scratch("dimensions-bad");
    const fs::path file = dir / "b.h5", store = dir / "b.zarr";
    for (const auto& bad :  // (no structured binding: clang 14 cannot capture one in the lambdas below)
         {std::pair{std::vector<std::string>{"frame"}, "1 dimension name for an array of 2 axes: give one per axis"},
          std::pair{std::vector<std::string>{"a", "b", "c"}, "3 dimension names for an array of 2 axes"},
          std::pair{std::vector<std::string>{"a", ""}, "dimension name 1 is empty"},
          std::pair{std::vector<std::string>{"a/b", "c"}, "dimension name 0 'a/b' holds a '/'"}}) {
        const std::vector<std::string>& names = bad.first;
        const std::string why = bad.second;
        CHECK_THAT(test::error_of([&] { h5::write(file, "/x", some_values(), {.dimensions = names}); }),
                   Catch::Matchers::Contains(std::string("b.h5:/x: write: ") + why));
        CHECK_FALSE(fs::exists(file));
        for (int format : {2, 3}) {
            CHECK_THAT(
                test::error_of([&] { zarr::write(store, some_values(), {.format = format, .dimensions = names}); }),
                Catch::Matchers::Contains(std::string("b.zarr: ") + why));
            CHECK_FALSE(fs::exists(store));
        }
    }
    CHECK_THAT(test::error_of([&] {
                   zarr::write(store, some_values(),
                               {.attributes = {{"_ARRAY_DIMENSIONS", std::vector<std::string>{"a", "b"}}},
                                .dimensions = {"a", "c"}});
               }),
               Catch::Matchers::Contains("attribute _ARRAY_DIMENSIONS [\"a\", \"b\"] differs from "
                                         "write_options::dimensions [\"a\", \"c\"]: give the names once"));
    CHECK_FALSE(fs::exists(store));

    // HDF5: a name taken by a dataset that is no dimension scale; a scale of another length; the array's own name.
    h5::write(file, "/g/frame", some_values());
    h5::write(file, "/g/x", some_values(), {.dimensions = {"time", "atom"}});
    CHECK_THAT(test::error_of([&] {
                   h5::write(file, "/g/y", some_values(), {.dimensions = {"frame", "atom"}});
               }),
               Catch::Matchers::EndsWith("b.h5:/g/y: write: dimension names: dimension 'frame': /g/frame exists and "
                                         "is not a dimension scale"));
    xt::xtensor<float, 2> longer = xt::zeros<float>({10, 3});
    CHECK_THAT(test::error_of([&] {
                   h5::write(file, "/g/y", longer, {.dimensions = {"time", "atom"}});
               }),
               Catch::Matchers::EndsWith("b.h5:/g/y: write: dimension names: dimension 'time' has 8 values in the "
                                         "file (/g/time), axis 0 of the dataset 10"));
    CHECK_THAT(test::error_of([&] {
                   h5::write(file, "/g/y", some_values(), {.dimensions = {"y", "atom"}});
               }),
               Catch::Matchers::Contains("axis 0 is named 'y', the dataset's own name"));
    // A replace refused for its dimensions keeps the dataset it would have replaced.
    h5::write(file, "/g/z", some_values(), {.dimensions = {"time", "atom"}});
    CHECK_THAT(
        test::error_of([&] {
            h5::write(file, "/g/z", longer, {.mode = chunkwise::write_mode::replace, .dimensions = {"time", "atom"}});
        }),
        Catch::Matchers::Contains("dimension 'time' has 8 values in the file (/g/time)"));
    const bool kept = h5::dataset(file, "/g/z").read<float, 2>({0, 0, 8}) == some_values();
    CHECK(kept);
    CHECK(h5::dataset(file, "/g/z").dimensions() == std::vector<std::string>{"time", "atom"});
    CHECK_THAT(test::error_of([&] { (void)h5::dataset(file, "/g/y"); }),
               Catch::Matchers::Contains("no dataset '/g/y': 'y' is not in group '/g'"));

    // Zarr: names of another count than the axes, as another writer left them, are named when read.
    zarr::write(store, some_values(), {.format = 3});
    {
        std::ifstream in(store / "zarr.json");
        json z = json::parse(in);
        z["dimension_names"] = {"only"};
        std::ofstream(store / "zarr.json") << z.dump();
    }
    CHECK_THAT(test::error_of([&] { (void)zarr::array(store); }),
               Catch::Matchers::Contains("dimension_names [\"only\"] is not a list of 2 names (strings or null)"));
}
