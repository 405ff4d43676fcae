// The Zarr reader at the edges of the spec: every v3 codec order the spec allows (generated from
// the spec by tests/support/zarr_sweeps.py and checked there against zarr-python 3 where it is
// installed), every numcodecs filter and compressor pair zarr-python 2 writes, every codec's
// truncations; metadata that cannot crash (deep JSON, fields of the wrong JSON type, huge
// geometry), and the smaller edges: bounded messages, a metadata file that is a folder, trailing
// bytes, an array known only from .zmetadata opened with a trailing slash.
#include "catch.hpp"
#include "test_util.hpp"
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/zarr.hpp>

#include <nlohmann/json.hpp>
#if __has_include(<xtensor/views/xview.hpp>)
#include <xtensor/views/xview.hpp>
#else
#include <xtensor/xview.hpp>
#endif

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using chunkwise::block;
namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

int sweep(const std::string& what, const fs::path& dir) {
    const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + CHUNKWISE_TEST_SUPPORT_DIR +
                                "/zarr_sweeps.py " + what + " " + dir.string();
    return std::system(command.c_str());
}

std::vector<unsigned char> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const fs::path& p, const std::vector<unsigned char>& b) {
    std::ofstream(p, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

template <class T>
std::vector<unsigned char> bytes_of(const T* p, std::size_t n) {
    std::vector<unsigned char> out(n * sizeof(T));
    std::memcpy(out.data(), p, out.size());
    return out;
}

// A store of one .zarray (or zarr.json) text and nothing else.
fs::path metadata_store(const fs::path& dir, const std::string& name, const std::string& file,
                        const std::string& text) {
    const fs::path s = dir / name;
    fs::create_directories(s);
    std::ofstream(s / file) << text;
    return s;
}

}  // namespace

TEST_CASE("zarr: every v3 codec order the spec allows reads as written", "[zarr][sweep]") {
    const fs::path dir = test::scratch("zarr-orders");
    REQUIRE(sweep("v3orders", dir) == 0);
    const json manifest = json::parse(std::ifstream(dir / "manifest.json"));
    std::size_t read = 0;
    for (const json& m : manifest) {
        const std::string name = m["name"];
        INFO(name << " " << m["codecs"].dump());
        const zarr::array a(dir / name);
        const auto whole = a.read<double, 2>(block{0, 0, 37});
        CHECK(bytes_of(whole.data(), whole.size()) == file_bytes(dir / (name + ".raw")));
        // rows that cut through shards and inner chunks, and selected indices
        const auto part = a.read<double, 2>(block{0, 5, 29}, zarr::indices{1, {10, 0, 3, 3}});
        bool same = true;
        for (std::size_t r = 0; r < 24; ++r) {
            const std::size_t cols[] = {10, 0, 3, 3};
            for (std::size_t k = 0; k < 4; ++k) same = same && part(r, k) == whole(r + 5, cols[k]);
        }
        CHECK(same);
        ++read;
    }
    CHECK(read >= 60);
}

TEST_CASE("zarr: every numcodecs filter and compressor pair reads as zarr-python reads it, or names the filter",
          "[zarr][sweep]") {
    const fs::path dir = test::scratch("zarr-filters");
    REQUIRE(sweep("filters", dir) == 0);
    const json manifest = json::parse(std::ifstream(dir / "manifest.json"));
    std::size_t read = 0, refused = 0;
    for (const json& m : manifest) {
        const std::string name = m["name"], filter = m["filter"], dtype = m["dtype"];
        INFO(name);
        const zarr::array a(dir / name);
        const auto want = file_bytes(dir / (name + ".raw"));
        try {
            std::vector<unsigned char> got;
            if (dtype == "f4") {
                const auto v = a.read<float, 2>(block{0, 0, 37});
                got = bytes_of(v.data(), v.size());
            } else if (dtype == "f8") {
                const auto v = a.read<double, 2>(block{0, 0, 37});
                got = bytes_of(v.data(), v.size());
            } else if (dtype == "i4") {
                const auto v = a.read<std::int32_t, 2>(block{0, 0, 37});
                got = bytes_of(v.data(), v.size());
            } else if (dtype == "i8") {
                const auto v = a.read<std::int64_t, 2>(block{0, 0, 37});
                got = bytes_of(v.data(), v.size());
            } else {
                const auto v = a.read<bool, 2>(block{0, 0, 37});
                got = bytes_of(v.data(), v.size());
            }
            CHECK(got == want);
            ++read;
        } catch (const zarr::error& e) {
            CHECK_THAT(e.what(), Contains("'" + filter + "'") && Contains("not one chunkwise decodes"));
            ++refused;
        }
    }
    INFO(read << " read, " << refused << " refused");
    CHECK(read >= 70);  // every filter but packbits (bool bits) is read
}

TEST_CASE("zarr: every codec's chunks cut short say truncated", "[zarr][sweep]") {
    const fs::path dir = test::scratch("zarr-truncated");
    xt::xtensor<double, 2> a = xt::xtensor<double, 2>::from_shape({40, 10});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<double>(i % 97) * 0.5;
    struct option {
        const char* codec;
        int format;
        bool shuffle;
    };
    const option options[] = {{"", 2, false},     {"zlib", 2, false},     {"gzip", 2, false}, {"zstd", 2, false},
                              {"blosc", 2, true}, {"lz4", 2, false},      {"bz2", 2, false},  {"gzip", 3, false},
                              {"zstd", 3, false}, {"blosc:zstd", 3, true}};
    std::size_t cuts = 0;
    for (const option& o : options) {
        const std::string name = std::string("t_") + (o.codec[0] ? o.codec : "raw") + std::to_string(o.format);
        const fs::path store = dir / name;
        zarr::write(store, a, {.chunk = {20, 10}, .shuffle = o.shuffle, .codec = o.codec, .format = o.format});
        const fs::path chunk = store / (o.format == 3 ? fs::path("c") / "0" / "0" : fs::path("0.0"));
        const auto whole = file_bytes(chunk);
        for (std::size_t cut : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}, whole.size() / 2}) {
            INFO(name << " cut by " << cut << " of " << whole.size() << " bytes");
            write_bytes(chunk,
                        std::vector<unsigned char>(whole.begin(), whole.end() - static_cast<std::ptrdiff_t>(cut)));
            const std::string what = test::error_of<zarr::error>([&] {
                (void)zarr::array(store).read<double, 2>(block{0, 0, 20});
            });
            CHECK_THAT(what,
                       Contains("truncated") && Contains("chunk " + std::string(o.format == 3 ? "c/0/0" : "0.0")));
            ++cuts;
        }
    }
    CHECK(cuts == 50);
}

TEST_CASE("zarr: metadata nested deep, of the wrong JSON type, or of huge geometry is a zarr::error naming it",
          "[zarr]") {
    const fs::path dir = test::scratch("zarr-metadata");
    // 100,000 levels of nesting, in each metadata file.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const std::string v2 = R"({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<f8", "compressor": null,
                               "fill_value": 0, "filters": null, "order": "C"})";
    CHECK_THAT(test::error_of<zarr::error>([&] {
                   zarr::array(metadata_store(dir, "deep1", ".zarray", R"({"zarr_format": 2, "x": )" + deep + "}"));
               }),
               Contains("deep1: .zarray nests JSON values deeper than 64 levels"));
    CHECK_THAT(test::error_of<zarr::error>([&] { zarr::array(metadata_store(dir, "deep2", "zarr.json", deep)); }),
               Contains("zarr.json nests"));
    const fs::path attrs = metadata_store(dir, "deep3", ".zarray", v2);
    std::ofstream(attrs / ".zattrs") << deep;
    CHECK_THAT(test::error_of<zarr::error>([&] { zarr::array x(attrs); }), Contains(".zattrs nests"));
    fs::create_directories(dir / "deep4" / "a");
    std::ofstream(dir / "deep4" / ".zmetadata") << R"({"metadata": )" << deep << "}";
    CHECK_THAT(test::error_of<zarr::error>([&] { zarr::array x(dir / "deep4" / "a"); }), Contains(".zmetadata nests"));
    // zarr.json fields of the wrong JSON type: each named.
    const json good = {{"zarr_format", 3},
                       {"node_type", "array"},
                       {"shape", {4, 2}},
                       {"data_type", "float64"},
                       {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {2, 2}}}}}},
                       {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
                       {"fill_value", 0},
                       {"codecs", json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}})},
                       {"attributes", json::object()}};
    CHECK_NOTHROW(zarr::array(metadata_store(dir, "good3", "zarr.json", good.dump())));
    const std::vector<std::pair<json::json_pointer, json>> wrong{
        {json::json_pointer("/node_type"), 5},
        {json::json_pointer("/chunk_key_encoding"), "default"},
        {json::json_pointer("/chunk_key_encoding/name"), 7},
        {json::json_pointer("/chunk_key_encoding/configuration"), "x"},
        {json::json_pointer("/chunk_key_encoding/configuration/separator"), 1},
        {json::json_pointer("/chunk_grid"), "regular"},
        {json::json_pointer("/chunk_grid/name"), 3},
        {json::json_pointer("/chunk_grid/configuration"), json::array()},
        {json::json_pointer("/codecs/0/configuration"), "little"},
        {json::json_pointer("/codecs/0/configuration/endian"), 1},
        {json::json_pointer("/codecs/0/name"), json::array()},
        {json::json_pointer("/storage_transformers"), 1},
    };
    int k = 0;
    for (const auto& [where, value] : wrong) {
        json z = good;
        z[where] = value;
        const std::string what = test::error_of<zarr::error>(
            [&] { zarr::array(metadata_store(dir, "wrong" + std::to_string(k++), "zarr.json", z.dump())); });
        INFO(where.to_string() << " = " << value.dump() << ": " << what);
        CHECK_THAT(what, Contains("[chunkwise.zarr]") && Contains("zarr.json"));
        CHECK_THAT(what, !Contains("type_error") && !Contains("json.exception"));
    }
    // Shards of 2^40 inner chunks, or whose count overflows: refused, never looped over or wrapped.
    json huge = good;
    huge["shape"] = {10};
    huge["chunk_grid"]["configuration"]["chunk_shape"] = {1ull << 40};
    huge["codecs"] = json::array({{{"name", "sharding_indexed"},
                                   {"configuration",
                                    {{"chunk_shape", {1}},
                                     {"codecs", json::array({{{"name", "bytes"}}})},
                                     {"index_codecs", json::array({{{"name", "bytes"}}})}}}}});
    CHECK_THAT(
        test::error_of<zarr::error>([&] {
            (void)zarr::array(metadata_store(dir, "huge1", "zarr.json", huge.dump())).read<double, 1>(block{0, 0, 10});
        }),
        Contains("inner chunks"));
    huge["shape"] = {10, 10};
    huge["chunk_grid"]["configuration"]["chunk_shape"] = {1ull << 32, 1ull << 32};
    huge["codecs"][0]["configuration"]["chunk_shape"] = {1, 1};
    CHECK_THAT(
        test::error_of<zarr::error>([&] {
            (void)zarr::array(metadata_store(dir, "huge2", "zarr.json", huge.dump())).read<double, 2>(block{0, 0, 10});
        }),
        Contains("inner chunks"));
    // A value quoted in a message is cut: a 100 MB field gives a short message.
    const std::string big = R"({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": ")" +
                            std::string(100u << 20, 'x') +
                            R"(", "compressor": null, "fill_value": 0, "filters": null, "order": "C"})";
    const std::string cut =
        test::error_of<zarr::error>([&] { zarr::array(metadata_store(dir, "big", ".zarray", big)); });
    CHECK(cut.size() < 1000);
    CHECK_THAT(cut, Contains("dtype"));
    // A .zarray that is a folder.
    fs::create_directories(dir / "folder" / ".zarray");
    CHECK_THAT(test::error_of<zarr::error>([&] { zarr::array(dir / "folder"); }),
               Contains(".zarray is a folder, not a metadata file"));
}

TEST_CASE("zarr: the smaller edges", "[zarr]") {
    const fs::path dir = test::scratch("zarr-small-edges");
    xt::xtensor<float, 2> a = xt::xtensor<float, 2>::from_shape({12, 6});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(i) - 30.5f;
    // An array known only from its group's .zmetadata, opened with a trailing slash.
    zarr::write(dir / "g" / "a", a, {.chunk = {4, 6}});
    const json z = json::parse(std::ifstream(dir / "g" / "a" / ".zarray"));
    std::ofstream(dir / "g" / ".zmetadata") << json{
        {"metadata", {{"a/.zarray", z}, {".zgroup", {{"zarr_format", 2}}}}},
        {"zarr_consolidated_format", 1}}.dump();
    std::ofstream(dir / "g" / ".zgroup") << R"({"zarr_format": 2})";
    fs::remove(dir / "g" / "a" / ".zarray");
    const bool same = zarr::array(dir.string() + "/g/a/").read<float, 2>(block{0, 0, 12}) == a;
    CHECK(same);
    // Shuffle with an element size of 0.
    zarr::write(dir / "s0", a, {.chunk = {4, 6}, .shuffle = true});
    json s0 = json::parse(std::ifstream(dir / "s0" / ".zarray"));
    s0["filters"][0]["elementsize"] = 0;
    std::ofstream(dir / "s0" / ".zarray") << s0.dump();
    CHECK_THAT(test::error_of<zarr::error>([&] {
                   (void)zarr::array(dir / "s0").read<float, 2>(block{0, 0, 4});
               }),
               Contains("codec 'shuffle'") && Contains("element size that is 0"));
    // Blosc chunks with bytes after the frame read as zarr-python reads them (c-blosc stops at the
    // frame's end); gzip followed by zeros too, by other bytes not (Python's gzip refuses them).
    zarr::write(dir / "bl", a, {.chunk = {4, 6}, .codec = "blosc"});
    auto chunk = file_bytes(dir / "bl" / "0.0");
    chunk.push_back(0x5a);
    write_bytes(dir / "bl" / "0.0", chunk);
    const bool blosc_same = zarr::array(dir / "bl").read<float, 2>(block{0, 0, 12}) == a;
    CHECK(blosc_same);
    zarr::write(dir / "gz", a, {.chunk = {4, 6}, .codec = "gzip"});
    chunk = file_bytes(dir / "gz" / "0.0");
    chunk.insert(chunk.end(), 5, 0);
    write_bytes(dir / "gz" / "0.0", chunk);
    const bool gzip_same = zarr::array(dir / "gz").read<float, 2>(block{0, 0, 12}) == a;
    CHECK(gzip_same);
    chunk.push_back(7);
    write_bytes(dir / "gz" / "0.0", chunk);
    CHECK_THAT(test::error_of<zarr::error>([&] {
                   (void)zarr::array(dir / "gz").read<float, 2>(block{0, 0, 4});
               }),
               Contains("neither zeros nor another gzip member"));
    // Shards as large as the chunks are still written as shards, as asked.
    chunkwise::thread_policy pool(2);
    auto parts = chunkwise::map_blocks(pool, chunkwise::partition(12, chunkwise::parts{3}), [&](const block& b) {
        return xt::xtensor<float, 2>(xt::view(a, xt::range(b.begin, b.end), xt::all()));
    });
    zarr::write_blocks(pool, dir / "sh", std::move(parts),
                       {.chunk = {4, 6}, .shuffle = true, .codec = "blosc", .format = 3, .shard = {4, 6}});
    const zarr::array sh(dir / "sh");
    CHECK(sh.sharded());
    CHECK(sh.codecs().front() == "sharding_indexed");
    const bool shard_same = sh.read<float, 2>(block{0, 0, 12}) == a;
    CHECK(shard_same);
}
