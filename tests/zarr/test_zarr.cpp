// The Zarr layer against zarr-python: every store it writes (v2 with zarr-python 2; v3 and
// sharding too where zarr-python 3 is installed) read to the bit, whole, in blocks on threads and
// by index; every store chunkwise writes read to the bit by zarr-python; write_blocks from threads
// with blocks that share chunks; and bad input, each a zarr::error naming store and chunk.
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
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using chunkwise::block;
namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

zarr::write_options opts(std::vector<std::size_t> chunk, std::string codec = "", int format = 2,
                         std::vector<std::size_t> shard = {}, int level = 0, bool shuffle = false) {
    zarr::write_options o;
    o.chunk = std::move(chunk);
    o.codec = std::move(codec);
    o.format = format;
    o.shard = std::move(shard);
    o.level = level;
    o.shuffle = shuffle;
    return o;
}

const std::string script = std::string(CHUNKWISE_TEST_SUPPORT_DIR) + "/zarr_fixtures.py";

int python(const std::string& args) {
    const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + script + " " + args;
    return std::system(command.c_str());
}

int zarr_python_major() {
    static const int major = [] {
        const fs::path out = test::scratch("zarr-version") / "v";
        REQUIRE(python("version > " + out.string()) == 0);
        std::ifstream in(out);
        int m = 0;
        in >> m;
        return m;
    }();
    return major;
}

// The folder of zarr-python-written stores, made once per process.
const fs::path& fixtures() {
    static const fs::path dir = [] {
        fs::path d = test::scratch("zarr-fixtures");
        REQUIRE(python("write " + d.string()) == 0);
        return d;
    }();
    return dir;
}

std::vector<unsigned char> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

template <class T>
std::vector<unsigned char> as_bytes(const T* p, std::size_t n) {
    std::vector<unsigned char> out(n * sizeof(T));
    std::memcpy(out.data(), p, out.size());
    return out;
}

// Reads the store whole, in 3 blocks on 3 threads, and by indices on axis 1 (reversed, with a
// duplicate), as the stored type; checks each against the raw values.
template <class T>
void check_store(const fs::path& store, const json& m) {
    INFO("store " << store.string());
    const zarr::array a(store);
    const std::vector<std::size_t> shape = m["shape"].get<std::vector<std::size_t>>();
    REQUIRE(a.shape() == shape);
    REQUIRE(a.format() == m["format"].get<int>());
    const std::vector<unsigned char> want = file_bytes(fs::path(store.string() + ".raw"));
    const auto whole = a.read<T>(block{0, 0, shape[0]});
    CHECK(as_bytes(whole.data(), whole.size()) == want);
    chunkwise::thread_policy threads(3);
    const auto blocks = zarr::partition(a, chunkwise::parts{3});
    auto parts = chunkwise::gather(threads, chunkwise::map_blocks(threads, blocks, [&](const block& b) {
        std::vector<T> v(b.size() * (whole.size() / std::max<std::size_t>(shape[0], 1)));
        a.read_into(b, std::span<T>(v));
        return v;
    }));
    std::vector<unsigned char> joined;
    for (const auto& v : parts) {
        const auto bytes = as_bytes(v.data(), v.size());
        joined.insert(joined.end(), bytes.begin(), bytes.end());
    }
    CHECK(joined == want);
    if (shape.size() >= 2) {
        std::vector<std::size_t> idx;
        for (std::size_t i = shape[1]; i-- > 0;) idx.push_back(i);
        idx.push_back(0);
        const auto sel = a.read<T>(block{0, 1, shape[0]}, zarr::indices{1, idx});
        std::size_t inner = 1;
        for (std::size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
        bool same = true;
        for (std::size_t r = 1; r < shape[0]; ++r)
            for (std::size_t k = 0; k < idx.size(); ++k)
                for (std::size_t i = 0; i < inner; ++i)
                    same = same && std::memcmp(&sel.data()[((r - 1) * idx.size() + k) * inner + i],
                                               &whole.data()[(r * shape[1] + idx[k]) * inner + i], sizeof(T)) == 0;
        CHECK(same);
    }
}

void check_any(const fs::path& store, const json& m) {
    const std::string t = m["dtype"];
    if (t == "i1") check_store<std::int8_t>(store, m);
    else if (t == "i2") check_store<std::int16_t>(store, m);
    else if (t == "i4") check_store<std::int32_t>(store, m);
    else if (t == "i8") check_store<std::int64_t>(store, m);
    else if (t == "u1" || t == "b1") check_store<std::uint8_t>(store, m);
    else if (t == "u2") check_store<std::uint16_t>(store, m);
    else if (t == "u4") check_store<std::uint32_t>(store, m);
    else if (t == "u8") check_store<std::uint64_t>(store, m);
    else if (t == "f4") check_store<float>(store, m);
    else check_store<double>(store, m);
}

template <class T>
xt::xarray<T> sample(std::vector<std::size_t> shape, unsigned seed) {
    auto a = xt::xarray<T>::from_shape(shape);
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < a.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>) {
            a.data()[i] = static_cast<T>(std::ldexp(static_cast<double>(rng() >> 11), -40)) - T(2000);
        } else {
            a.data()[i] = static_cast<T>(rng());
        }
    }
    return a;
}

template <class T>
void write_case(const fs::path& dir, json& manifest, const std::string& name, const zarr::write_options& o,
                std::vector<std::size_t> shape, unsigned seed) {
    const auto a = sample<T>(shape, seed);
    zarr::write(dir / name, a, o);
    std::ofstream(dir / (name + ".raw"), std::ios::binary).write(reinterpret_cast<const char*>(a.data()),
                                                                   static_cast<std::streamsize>(a.size() * sizeof(T)));
    const std::string k = std::is_floating_point_v<T> ? "f" : std::is_signed_v<T> ? "i" : "u";
    manifest.push_back({{"name", name}, {"format", o.format}, {"dtype", k + std::to_string(sizeof(T))}, {"shape", shape}});
    // chunkwise reads back what it wrote, too.
    const zarr::array back(dir / name);
    const auto got = back.read<T>(block{0, 0, shape[0]});
    CHECK(as_bytes(got.data(), got.size()) == as_bytes(a.data(), a.size()));
}

}  // namespace

TEST_CASE("zarr-python's stores read to the bit: every type, byte order, codec, order, separator, fill value",
          "[zarr]") {
    const json manifest = json::parse(std::ifstream(fixtures() / "manifest.json"));
    std::size_t v3 = 0;
    for (const json& m : manifest) {
        check_any(fixtures() / m["name"].get<std::string>(), m);
        v3 += m["format"] == 3 ? 1 : 0;
    }
    CHECK(manifest.size() >= 50);
    if (zarr_python_major() >= 3) CHECK(v3 >= 40);
}

TEST_CASE("zarr: fill values of chunks with no file, attributes, codecs listed", "[zarr]") {
    const zarr::array nan(fixtures() / "v2_fill_nan");
    const auto v = nan.read<double, 2>(block{0, 30, 31});
    CHECK(std::isnan(v(0, 0)));
    const zarr::array inf(fixtures() / "v2_fill_minus_inf");
    CHECK(inf.read<double, 2>(block{0, 36, 37})(0, 10) == -std::numeric_limits<double>::infinity());
    const zarr::array i(fixtures() / "v2_fill_int");
    CHECK(i.read<int, 2>(block{0, 20, 21})(0, 3) == -7);
    CHECK(i.big_endian());
    CHECK(i.dtype() == "int16");
    CHECK(zarr::array(fixtures() / "v2_shuffle_zlib").codecs() == std::vector<std::string>{"shuffle", "zlib"});
}

TEST_CASE("zarr: chunkwise's stores read to the bit by zarr-python, v2 (and v3 with shards where it has zarr-python 3)",
          "[zarr]") {
    const fs::path dir = test::scratch("zarr-written");
    json manifest = json::array();
    const std::vector<std::string> v2_codecs{"", "gzip", "zlib", "zstd", "lz4", "bz2", "blosc", "blosc:zstd", "blosc:lz4hc", "blosc:zlib", "blosc:blosclz"};
    unsigned seed = 1;
    for (const auto& c : v2_codecs) {
        for (bool shuffle : {false, true}) {
            zarr::write_options o{.chunk = {7, 5}, .shuffle = shuffle, .codec = c, .level = 0, .format = 2, .shard = {}};
            const std::string n = "w2_" + (c.empty() ? std::string("raw") : c.substr(0, c.find(':')) + (c.find(':') != std::string::npos ? "_" + c.substr(c.find(':') + 1) : "")) + (shuffle ? "_s" : "");
            write_case<double>(dir, manifest, n, o, {23, 9}, seed++);
        }
    }
    write_case<std::int8_t>(dir, manifest, "w2_i1", opts({4}, "zstd"), {50}, seed++);
    write_case<std::int16_t>(dir, manifest, "w2_i2", opts({4, 4, 4}, "gzip"), {9, 5, 6}, seed++);
    write_case<std::uint32_t>(dir, manifest, "w2_u4", opts({5, 3}), {11, 7}, seed++);
    write_case<std::int64_t>(dir, manifest, "w2_i8", opts({100, 1}, "blosc"), {20, 3}, seed++);
    write_case<float>(dir, manifest, "w2_f4", opts({}, "lz4"), {1000, 3}, seed++);
    write_case<std::uint64_t>(dir, manifest, "w2_u8", opts({3, 3}, "bz2", 2, {}, 9), {10, 10}, seed++);
    for (const std::string c : {"", "gzip", "zstd", "blosc", "blosc:zstd"}) {
        for (bool sharded : {false, true}) {
            zarr::write_options o{.chunk = {4, 3}, .shuffle = c.rfind("blosc", 0) == 0, .codec = c, .level = 0, .format = 3,
                                  .shard = sharded ? std::vector<std::size_t>{8, 6} : std::vector<std::size_t>{}};
            const std::string n = "w3_" + (c.empty() ? std::string("raw") : c.substr(0, c.find(':'))) + std::to_string(seed) + (sharded ? "_shard" : "");
            write_case<double>(dir, manifest, n, o, {19, 13}, seed++);
        }
    }
    write_case<std::int32_t>(dir, manifest, "w3_i4_shard_3d", opts({2, 2, 2}, "zstd", 3, {4, 4, 2}), {7, 5, 3}, seed++);
    if (zarr_python_major() < 3) {  // zarr-python 2 reads only format 2
        json v2 = json::array();
        for (const json& m : manifest)
            if (m["format"] == 2) v2.push_back(m);
        manifest = v2;
    }
    std::ofstream(dir / "manifest.json") << manifest.dump();
    CHECK(python("check " + dir.string()) == 0);
}

TEST_CASE("zarr::write_blocks from threads: blocks that share chunks give one untorn store, the same as write",
          "[zarr][threads]") {
    const fs::path dir = test::scratch("zarr-blocks");
    const auto whole = sample<double>({103, 6}, 7);
    for (int format : {2, 3}) {
        const zarr::write_options o = opts({10, 4}, "zstd", format, format == 3 ? std::vector<std::size_t>{20, 8} : std::vector<std::size_t>{});
        chunkwise::thread_policy threads(2);
        // 13 blocks of 8 rows: every chunk (and shard) row is shared by two or three blocks.
        const auto blocks = chunkwise::partition(103, chunkwise::block_size{8});
        auto results = chunkwise::map_blocks(threads, blocks, [&](const block& b) {
            return xt::xtensor<double, 2>(xt::view(whole, xt::range(b.begin, b.end), xt::all()));
        });
        zarr::write_blocks(threads, dir / ("blocks" + std::to_string(format)), std::move(results), o);
        const zarr::array a(dir / ("blocks" + std::to_string(format)));
        const auto got = a.read<double, 2>(block{0, 0, 103});
        const bool same = got == whole;
        CHECK(same);
        // Nothing left under a temporary name.
        for (const auto& e : fs::recursive_directory_iterator(dir / ("blocks" + std::to_string(format))))
            CHECK(e.path().string().find(".partial.") == std::string::npos);
        // Aligned blocks for the same options.
        const auto aligned = zarr::partition(103, o, chunkwise::parts{4});
        for (const auto& b : aligned) CHECK(b.begin % (format == 3 ? 20 : 10) == 0);
    }
}

TEST_CASE("zarr: bad input is a zarr::error naming the store and the chunk", "[zarr]") {
    const fs::path dir = test::scratch("zarr-bad");
    const auto a = sample<double>({20, 4}, 3);
    zarr::write(dir / "good", a, opts({5, 4}, "zstd"));
    const auto copy = [&](const std::string& name) {
        fs::copy(dir / "good", dir / name, fs::copy_options::recursive);
        return dir / name;
    };
    SECTION("no metadata") {
        fs::create_directories(dir / "empty");
        CHECK_THROWS_WITH((zarr::array(dir / "empty")), Contains("holds neither .zarray nor zarr.json"));
        CHECK_THROWS_AS(zarr::array(dir / "none"), zarr::error);
    }
    SECTION("malformed .zarray") {
        const auto s = copy("malformed");
        std::ofstream(s / ".zarray") << "{\"zarr_format\": 2, \"shape\": [20,";
        CHECK_THROWS_WITH((zarr::array(s)), Contains(".zarray is not valid JSON"));
        std::ofstream(s / ".zarray") << R"({"zarr_format": 2, "shape": [20, 4], "chunks": [5], "dtype": "<f8", "order": "C"})";
        CHECK_THROWS_WITH((zarr::array(s)), Contains("chunks of rank 1 for an array of rank 2"));
        std::ofstream(s / ".zarray") << R"({"zarr_format": 2, "shape": [20, 4], "chunks": [5, 4], "dtype": "<c16", "order": "C"})";
        CHECK_THROWS_WITH((zarr::array(s)), Contains("dtype '<c16'"));
        std::ofstream(s / ".zarray") << R"({"zarr_format": 2, "shape": [20, 4], "chunks": [100000000, 100000], "dtype": "<f8", "order": "C"})";
        CHECK_THROWS_WITH((zarr::array(s)), Contains("more than 16 GiB"));
    }
    SECTION("an unknown codec, named") {
        const auto s = copy("unknown");
        json z = json::parse(std::ifstream(s / ".zarray"));
        z["compressor"] = {{"id", "zfpy"}, {"mode", 4}};
        std::ofstream(s / ".zarray") << z.dump();
        const zarr::array x(s);
        CHECK_THROWS_WITH((x.read<double, 2>(block{0, 0, 5})), Contains("chunk 0.0") && Contains("codec 'zfpy' is not one chunkwise decodes"));
    }
    SECTION("a truncated chunk, named") {
        const auto s = copy("truncated");
        fs::resize_file(s / "1.0", fs::file_size(s / "1.0") / 2);
        const zarr::array x(s);
        CHECK_NOTHROW(x.read<double, 2>(block{0, 0, 5}));
        try {
            (void)x.read<double, 2>(block{0, 0, 10});
            FAIL("no error");
        } catch (const zarr::error& e) {
            CHECK(e.key() == "1.0");
            CHECK(e.store() == s.string());
        }
    }
    SECTION("an uncompressed chunk of the wrong size") {
        zarr::write(dir / "raw", a, opts({5, 4}));
        std::ofstream(dir / "raw" / "2.0", std::ios::binary | std::ios::app) << "xx";
        CHECK_THROWS_WITH((zarr::array(dir / "raw").read<double, 2>(block{0, 10, 15})), Contains("chunk 2.0") && Contains("162 bytes where the chunk holds 160"));
    }
    SECTION("a type that does not hold the stored values") {
        CHECK_THROWS_WITH((zarr::array(dir / "good").read<float, 2>(block{0, 0, 1})), Contains("stored as float64"));
        CHECK_THROWS_WITH((zarr::array(dir / "good").read<int, 2>(block{0, 0, 1})), Contains("stored as float64"));
        CHECK_THROWS_WITH((zarr::array(dir / "good").read<double, 3>(block{0, 0, 1})), Contains("the array has rank 2 (shape (20, 4))"));
        CHECK_THROWS_WITH((zarr::array(dir / "good").read<double, 2>(block{0, 0, 21})), Contains("rows [0, 21) are outside axis 0 of extent 20"));
    }
    SECTION("a store path that is a file") {
        std::ofstream(dir / "file") << "x";
        CHECK_THROWS_WITH((zarr::array(dir / "file")), Contains("is a file, not a directory store"));
        CHECK_THROWS_WITH((zarr::write(dir / "file", a)), Contains("is a file, not a directory store"));
        CHECK_THROWS_WITH((zarr::write(dir / "file" / "below", a)), Contains("cannot be created"));
    }
    SECTION("a store that is not writable") {
        CHECK_THROWS_AS(zarr::write(fs::path("/proc/chunkwise-store"), a), zarr::error);
        fs::create_directories(dir / "other");
        std::ofstream(dir / "other" / "notes.txt") << "mine";
        CHECK_THROWS_WITH((zarr::write(dir / "other", a)), Contains("not a Zarr array: not overwritten"));
        CHECK(fs::exists(dir / "other" / "notes.txt"));
    }
    SECTION("options that do not fit") {
        CHECK_THROWS_WITH((zarr::write(dir / "o", a, opts({}, "lz4", 3))), Contains("not a Zarr v3 codec"));
        CHECK_THROWS_WITH((zarr::write(dir / "o", a, opts({}, "snappy"))), Contains("codec 'snappy' is not one of"));
        CHECK_THROWS_WITH((zarr::write(dir / "o", a, opts({4, 4}, "", 3, {6, 4}))), Contains("not a multiple"));
        CHECK_THROWS_WITH((zarr::write(dir / "o", a, opts({}, "", 4))), Contains("format must be 2 or 3"));
    }
    SECTION("a full disk: nothing torn, the chunk named, a rerun succeeds") {
        // Files of at most 600 bytes: the metadata fits, the one chunk of 20 rows (640 bytes) does not.
        const std::string out = test::in_child_with_file_limit(600, [&] {
            zarr::write(dir / "full", a, opts({20, 4}));
            return std::string("written");
        });
        CHECK_THAT(out, Contains("threw: [chunkwise.zarr]") && Contains(": chunk 0.0: cannot be written") && Contains("File too large"));
        // Nothing is left that a reader could take for an array, or that would refuse the rerun.
        CHECK_FALSE(fs::exists(dir / "full"));
        zarr::write(dir / "full", a, opts({20, 4}));
        const bool same = zarr::array(dir / "full").read<double, 2>(block{0, 0, 20}) == a;
        CHECK(same);
    }
}

TEST_CASE("zarr: a shard index that points outside its shard, a bad index checksum", "[zarr]") {
    const fs::path dir = test::scratch("zarr-shard");
    const auto a = sample<float>({16, 8}, 5);
    zarr::write(dir / "s", a, opts({4, 4}, "gzip", 3, {8, 8}));
    const fs::path shard = dir / "s" / "c" / "0" / "0";
    auto bytes = file_bytes(shard);
    const std::size_t index = bytes.size() - (4 * 16 + 4);
    // inner chunk 1's offset far past the end, the checksum made right again
    for (int b = 0; b < 8; ++b) bytes[index + 16 + static_cast<std::size_t>(b)] = b == 4 ? 1 : 0;
    const std::uint32_t crc = chunkwise::detail::codecs::crc32c(bytes.data() + index, 64);
    for (int b = 0; b < 4; ++b) bytes[index + 64 + static_cast<std::size_t>(b)] = static_cast<unsigned char>(crc >> (8 * b));
    std::ofstream(shard, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const zarr::array s(dir / "s");
    CHECK_THROWS_WITH((s.read<float, 2>(block{0, 0, 8})), Contains("chunk c/0/0") && Contains("points outside the shard"));
    CHECK_NOTHROW(s.read<float, 2>(block{0, 8, 16}));
    bytes[index] ^= 1;  // the checksum no longer matches
    std::ofstream(shard, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    CHECK_THROWS_WITH((s.read<float, 2>(block{0, 0, 8})), Contains("its shard index") && Contains("crc32c"));
}

TEST_CASE("zarr fuzz: damaged metadata and shard indexes are a zarr::error or the right values, never a crash",
          "[zarr][fuzz]") {
    const fs::path dir = test::scratch("zarr-fuzz");
    const auto a = sample<std::int32_t>({12, 6}, 9);
    zarr::write(dir / "v2", a, opts({4, 3}, "blosc", 2, {}, 0, true));
    zarr::write(dir / "v3", a, opts({2, 3}, "zstd", 3, {4, 6}));
    const auto v2 = file_bytes(dir / "v2" / ".zarray");
    const auto v3 = file_bytes(dir / "v3" / "zarr.json");
    const fs::path shard = dir / "v3" / "c" / "1" / "0";
    const auto shard_bytes = file_bytes(shard);
    std::mt19937 rng(2024);
    const int rounds = std::getenv("CHUNKWISE_FUZZ_ROUNDS") != nullptr ? std::atoi(std::getenv("CHUNKWISE_FUZZ_ROUNDS")) : 300;
    std::size_t errors = 0, right = 0;
    const char* tokens[] = {"-1", "0", "1e300", "null", "[]", "{}", "\"x\"", "18446744073709551615", "\"<f8\"", "[1,2,3]"};
    for (int round = 0; round < rounds; ++round) {
        const int what = round % 3;
        std::vector<unsigned char> b = what == 0 ? v2 : what == 1 ? v3 : shard_bytes;
        const std::size_t edits = 1 + rng() % 3;
        for (std::size_t e = 0; e < edits; ++e) {
            const std::size_t at = what == 2 ? b.size() - 1 - rng() % 68 : rng() % b.size();
            if (what != 2 && rng() % 2 == 0) {  // a JSON token spliced in
                const std::string t = tokens[rng() % std::size(tokens)];
                b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), t.begin(), t.end());
            } else {
                b[at] = static_cast<unsigned char>(rng());
            }
        }
        if (what == 2 && rng() % 2 == 0) {  // and half of the damaged indexes with a right checksum
            const std::size_t index = b.size() - 68;
            const std::uint32_t crc = chunkwise::detail::codecs::crc32c(b.data() + index, 64);
            for (int k = 0; k < 4; ++k) b[index + 64 + static_cast<std::size_t>(k)] = static_cast<unsigned char>(crc >> (8 * k));
        }
        const fs::path target = what == 0 ? dir / "v2" / ".zarray" : what == 1 ? dir / "v3" / "zarr.json" : shard;
        std::ofstream(target, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        try {
            const zarr::array x(what == 0 ? dir / "v2" : dir / "v3");
            std::size_t cells = 1, chunks = 1;
            for (std::size_t d = 0; d < x.rank(); ++d) {
                cells *= std::min<std::size_t>(x.shape()[d], 100000);
                chunks *= std::min<std::size_t>(x.shape()[d] / std::max<std::size_t>(x.chunks()[d], 1) + 1, 100000);
            }
            if (x.rank() == 2 && cells <= 100000 && chunks <= 10000) {
                const auto got = x.read<double>(block{0, 0, x.shape()[0]});
                const bool same = x.shape() == std::vector<std::size_t>{12, 6} && got == xt::xarray<double>(xt::cast<double>(a));
                if (same) ++right;
            }
        } catch (const zarr::error& e) {
            ++errors;
            CHECK_THAT(e.what(), Contains("[chunkwise.zarr] " + (what == 0 ? dir / "v2" : dir / "v3").string()));
        }
        std::ofstream(target, std::ios::binary | std::ios::trunc)
                .write(reinterpret_cast<const char*>((what == 0 ? v2 : what == 1 ? v3 : shard_bytes).data()),
                       static_cast<std::streamsize>((what == 0 ? v2 : what == 1 ? v3 : shard_bytes).size()));
    }
    CHECK(errors > static_cast<std::size_t>(rounds) / 3);
    INFO(errors << " errors, " << right << " right values of " << rounds);
    CHECK(right > 0);
}
