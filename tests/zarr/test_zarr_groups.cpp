// Zarr groups: create_group in format 2 (with consolidated metadata) and 3, arrays and groups
// written inside them as members, the consolidated metadata of every group above kept current
// (writers of one group's members at once included), zarr-python's open_consolidated and
// xarray.open_zarr opening what chunkwise wrote (tests/support/groups_peer.py), and what is
// refused: a node inside an array, a group over an array, a group of the other format.
#include "catch.hpp"
#include "test_util.hpp"
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/zarr.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;
using json = nlohmann::json;
using Catch::Matchers::EndsWith;

namespace {

json consolidated(const fs::path& group) { return json::parse(std::ifstream(group / ".zmetadata"))["metadata"]; }

// The group groups_peer.py checks.
void write_product(const fs::path& g) {
    zarr::create_group(g, {{"title", std::string("run 1")}});
    std::vector<double> rmsd(10);
    for (std::size_t i = 0; i < rmsd.size(); ++i) rmsd[i] = static_cast<double>(i) / 2;
    zarr::write(
        g / "rmsd", rmsd,
        {.attributes = {{"units", std::string("nm")}, {"_ARRAY_DIMENSIONS", std::vector<std::string>{"frame"}}}});
    xt::xtensor<float, 2> positions = xt::xtensor<float, 2>::from_shape({10, 3});
    for (std::size_t i = 0; i < positions.size(); ++i) positions.data()[i] = static_cast<float>(i);
    zarr::write(g / "positions", positions,
                {.chunk = {4, 3}, .attributes = {{"_ARRAY_DIMENSIONS", std::vector<std::string>{"frame", "xyz"}}}});
    zarr::create_group(g / "sub");
    zarr::write(g / "sub" / "count", std::vector<std::int32_t>{0, 1, 2, 3});
}

}  // namespace

TEST_CASE("zarr groups: members written in a group are in its consolidated metadata; zarr-python and xarray open it",
          "[zarr][groups]") {
    const fs::path dir = test::scratch("zarr-groups");
    const fs::path g = dir / "product.zarr";
    write_product(g);

    const json m = consolidated(g);
    CHECK(m[".zgroup"] == json{{"zarr_format", 2}});
    CHECK(m[".zattrs"] == json{{"title", "run 1"}});
    CHECK(m["rmsd/.zarray"] == json::parse(std::ifstream(g / "rmsd" / ".zarray")));
    CHECK(m["rmsd/.zattrs"]["units"] == "nm");
    CHECK(m["positions/.zarray"]["chunks"] == json{4, 3});
    CHECK(m["sub/.zgroup"] == json{{"zarr_format", 2}});
    CHECK(m["sub/count/.zarray"]["shape"] == json{4});
    CHECK(consolidated(g / "sub")["count/.zarray"]["shape"] == json{4});
    CHECK(zarr::attributes_of(g) == chunkwise::attributes{{"title", std::string("run 1")}});
    const auto count = zarr::array(g / "sub" / "count").read<std::int32_t, 1>({0, 0, 4});
    CHECK(std::vector<std::int32_t>(count.begin(), count.end()) == std::vector<std::int32_t>{0, 1, 2, 3});

    const std::string check = std::string(CHUNKWISE_TEST_PYTHON) + " -W ignore " + CHUNKWISE_TEST_SUPPORT_DIR +
                              "/groups_peer.py check " + g.string();
    CHECK(std::system(check.c_str()) == 0);

    // An attribute set later, and an array replaced, are current in the consolidated metadata too.
    zarr::set_attributes(g / "rmsd", {{"method", std::string("no fit")}});
    CHECK(consolidated(g)["rmsd/.zattrs"]["method"] == "no fit");
    zarr::write(g / "rmsd", std::vector<double>(12, 1.0), {.mode = chunkwise::write_mode::replace});
    CHECK(consolidated(g)["rmsd/.zarray"]["shape"] == json{12});
    CHECK(consolidated(g)["rmsd/.zattrs"] == json::object());

    // Creating the group again keeps it and its members, setting the attributes given.
    zarr::create_group(g, {{"version", std::int64_t{2}}});
    CHECK(consolidated(g).contains("positions/.zarray"));
    CHECK(zarr::attributes_of(g).size() == 2);
}

TEST_CASE("zarr groups: members written from many threads at once are all in the consolidated metadata",
          "[zarr][groups][threads]") {
    const fs::path g = test::scratch("zarr-groups-threads") / "many.zarr";
    zarr::create_group(g);
    std::vector<std::thread> writers;
    for (int t = 0; t < 4; ++t) {
        writers.emplace_back([&, t] {
            for (int i = 0; i < 6; ++i) {
                const std::string name = "a" + std::to_string(t) + "_" + std::to_string(i);
                zarr::write(g / name, std::vector<float>(5, static_cast<float>(t)));
                zarr::set_attributes(g / name, {{"writer", std::int64_t{t}}});
            }
        });
    }
    for (auto& w : writers) w.join();
    const json m = consolidated(g);
    std::size_t arrays = 0, attributes = 0;
    for (const auto& [key, value] : m.items()) {
        if (key.ends_with("/.zarray")) ++arrays;
        if (key.ends_with("/.zattrs") && value.contains("writer")) ++attributes;
    }
    CHECK(arrays == 24);
    CHECK(attributes == 24);
}

TEST_CASE("zarr groups: format 3", "[zarr][groups]") {
    const fs::path g = test::scratch("zarr-groups-v3") / "g3.zarr";
    zarr::create_group(g, {{"title", std::string("v3")}}, 3);
    const json z = json::parse(std::ifstream(g / "zarr.json"));
    CHECK(z == json{{"zarr_format", 3}, {"node_type", "group"}, {"attributes", {{"title", "v3"}}}});
    zarr::write(g / "x", std::vector<double>{1, 2, 3}, {.format = 3});
    CHECK(zarr::array(g / "x").format() == 3);
    CHECK(zarr::attributes_of(g) == chunkwise::attributes{{"title", std::string("v3")}});
    zarr::set_attributes(g, {{"more", 1.5}});
    CHECK(zarr::attributes_of(g).size() == 2);
    CHECK_FALSE(fs::exists(g / ".zmetadata"));
}

TEST_CASE("zarr groups: a node inside an array, a group over an array or of the other format are refused",
          "[zarr][groups]") {
    const fs::path dir = test::scratch("zarr-groups-bad");
    zarr::write(dir / "arr.zarr", std::vector<double>{1, 2});
    CHECK_THAT(test::error_of([&] { zarr::write(dir / "arr.zarr" / "inner", std::vector<double>{1}); }),
               EndsWith("arr.zarr/inner: lies inside the Zarr array " + (dir / "arr.zarr").string() +
                        ": no array or group is made there"));
    CHECK_FALSE(fs::exists(dir / "arr.zarr" / "inner"));
    CHECK_THAT(
        test::error_of([&] { zarr::create_group(dir / "arr.zarr" / "a" / "b"); }),
        EndsWith("lies inside the Zarr array " + (dir / "arr.zarr").string() + ": no array or group is made there"));
    CHECK_THAT(test::error_of([&] { zarr::create_group(dir / "arr.zarr"); }),
               EndsWith("arr.zarr: holds a Zarr array: not overwritten (write_mode::create; ask for "
                        "write_mode::replace to replace it)"));
    CHECK(zarr::array(dir / "arr.zarr").shape() == std::vector<std::size_t>{2});
    zarr::create_group(dir / "g2.zarr");
    CHECK_THAT(test::error_of([&] { zarr::create_group(dir / "g2.zarr", {}, 3); }),
               EndsWith("g2.zarr: holds a Zarr format-2 group, not format 3"));
    CHECK_THAT(test::error_of([&] { zarr::create_group(dir / "g4.zarr", {}, 4); }),
               EndsWith("g4.zarr: Zarr format 4: groups are written in format 2 or 3"));
    CHECK_FALSE(fs::exists(dir / "g4.zarr"));
    fs::create_directories(dir / "other");
    std::ofstream(dir / "other" / "notes.txt") << "not zarr";
    CHECK_THAT(test::error_of([&] { zarr::create_group(dir / "other"); }),
               EndsWith("other: exists and holds files that are not a Zarr array or group: no group made there"));
    CHECK_THAT(test::error_of([&] {
                   zarr::create_group(dir / "g5.zarr", {{"", 1.0}});
               }),
               EndsWith("g5.zarr: an attribute with an empty name"));
    CHECK_FALSE(fs::exists(dir / "g5.zarr"));
}

TEST_CASE("zarr groups: a group whose consolidated metadata cannot be updated keeps the array just written",
          "[zarr][groups]") {
    const fs::path dir = test::scratch("zarr-groups-broken-index");
    const fs::path g = dir / "g.zarr";
    zarr::create_group(g);
    std::ofstream(g / ".zmetadata") << "{ not json";  // damaged by someone else
    using Catch::Matchers::Contains;
    CHECK_THAT(test::error_of([&] {
                   zarr::write(g / "a", std::vector<double>{1, 2, 3});
               }),
               Contains("a: the array is written, but the consolidated metadata (.zmetadata) of a group above it "
                        "was not updated: "));
    const auto a = zarr::array(g / "a").read<double, 1>(chunkwise::block{0, 0, 3});
    CHECK(std::vector<double>(a.begin(), a.end()) == std::vector<double>{1, 2, 3});
    chunkwise::serial_policy serial;
    const auto blocks = chunkwise::partition(4, chunkwise::parts{2});
    auto results = chunkwise::map_blocks(serial, blocks, [](const chunkwise::block& b) {
        return std::vector<float>(b.size(), static_cast<float>(b.index + 1));
    });
    CHECK_THAT(test::error_of([&] { zarr::write_blocks(serial, g / "b", std::move(results)); }),
               Contains("the array is written, but the consolidated metadata"));
    const auto b = zarr::array(g / "b").read<float, 1>(chunkwise::block{0, 0, 4});
    CHECK(std::vector<float>(b.begin(), b.end()) == std::vector<float>{1, 1, 2, 2});
}
