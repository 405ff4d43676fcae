// Streaming writes in both stores (h5::stream_writer, zarr::stream_writer, and h5::write_blocks, which streams on
// one process): rows given in any order, from many threads, in ranges that split chunks, land whole and once; what
// waits in the buffer is at most a row of chunks per open boundary (nothing for ranges aligned to the chunk rows);
// a process streaming 256 MiB keeps its peak resident memory within 64 MiB of where it started; bad input (rows
// twice, past the end, not whole rows, the wrong shape, a block's rows) is refused naming it before anything is
// written; a stream closed with rows missing, dropped without close, or failing on a full disk leaves nothing; a
// writer that dies leaves its dataset or store marked unfinished: readers refuse it, a rerun replaces it.
#include "catch.hpp"
#include "test_util.hpp"
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using chunkwise::block;

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

// Row r, column c holds r * cols + c (exact in float up to 2^24).
std::vector<float> rows_of(std::size_t first, std::size_t n, std::size_t cols) {
    std::vector<float> v(n * cols);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(first * cols + i);
    return v;
}

bool holds_rows(const std::vector<float>& all, std::size_t rows, std::size_t cols) {
    if (all.size() != rows * cols) return false;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i] != static_cast<float>(i)) return false;
    return true;
}

std::vector<float> read_h5(const fs::path& file, const std::string& path, std::size_t rows) {
    const auto a = h5::dataset(file, path).read<float, 2>(chunkwise::items(0, rows));
    return {a.begin(), a.end()};
}

std::vector<float> read_zarr(const fs::path& store, std::size_t rows) {
    const auto a = zarr::array(store).read<float, 2>(chunkwise::items(0, rows));
    return {a.begin(), a.end()};
}

// Blocks of uneven sizes that split chunks, in a shuffled order.
std::vector<block> uneven_blocks(std::size_t rows, unsigned seed) {
    std::vector<block> b;
    std::mt19937 rng(seed);
    for (std::size_t at = 0, k = 0; at < rows; ++k) {
        const std::size_t n = std::min<std::size_t>(rows - at, 1 + rng() % 23);
        b.push_back({k, at, at + n});
        at += n;
    }
    std::shuffle(b.begin(), b.end(), rng);
    return b;
}

// The VmHWM or VmRSS line of /proc/self/status, in bytes.
std::size_t status_bytes(const std::string& key) {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key + ":", 0) == 0) return std::stoull(line.substr(key.size() + 1)) * 1024;
    return 0;
}

}  // namespace

TEST_CASE("stream writers: ranges in any order from many threads land whole and once, in both stores",
          "[store][stream]") {
    const fs::path dir = test::scratch("stream-values");
    constexpr std::size_t rows = 397, cols = 5;
    chunkwise::thread_policy threads{2};
    const auto give = [&](auto& w, unsigned seed) {
        const auto blocks = uneven_blocks(rows, seed);
        (void)chunkwise::map_blocks(threads, chunkwise::partition(blocks.size(), chunkwise::parts{8}),
                                    [&](const block& part) {
                                        for (std::size_t k = part.begin; k < part.end; ++k) {
                                            const block& b = blocks[k];
                                            const auto v = rows_of(b.begin, b.size(), cols);
                                            w.write(b.begin, std::span<const float>(v));
                                        }
                                        return 0;
                                    });
    };
    for (const std::string codec : {"", "lz4", "zstd", "blosc"}) {
        INFO("codec " << codec);
        if (!h5::codec_problem({.codec = codec}).empty()) continue;  // built without that codec's library
        const fs::path file = dir / ("s-" + codec + ".h5");
        {
            h5::stream_writer<float> w(file, "/x", {rows, cols}, {.chunk = {16, 3}, .codec = codec});
            give(w, 1);
            CHECK(w.buffered_bytes() == 0);
            CHECK(w.peak_buffered_bytes() > 0);
            w.close();
        }
        CHECK(holds_rows(read_h5(file, "/x", rows), rows, cols));
        CHECK(h5::dataset(file, "/x").chunks() == std::vector<std::size_t>{16, 3});
    }
    {  // deflate + shuffle, and contiguous (no chunks, no compression)
        const fs::path file = dir / "s-deflate.h5";
        h5::stream_writer<float> w(file, "/d", {rows, cols}, {.chunk = {10, 5}, .deflate = 4, .shuffle = true});
        give(w, 2);
        w.close();
        h5::stream_writer<float> c(file, "/c", {rows, cols});
        give(c, 3);
        CHECK(c.peak_buffered_bytes() == 0);  // contiguous rows go as they come
        c.close();
        CHECK(holds_rows(read_h5(file, "/d", rows), rows, cols));
        CHECK(holds_rows(read_h5(file, "/c", rows), rows, cols));
    }
    for (int format : {2, 3}) {
        const fs::path store = dir / ("z" + std::to_string(format) + ".zarr");
        zarr::write_options o{.chunk = {16, 3}, .codec = "zstd", .format = format};
        if (format == 3) o.shard = {32, 6};
        if (!zarr::options_problem(o).empty()) o.codec = "";  // built without Zstandard
        zarr::stream_writer<float> w(store, {rows, cols}, o);
        CHECK(fs::exists(store / ".chunkwise-unfinished"));
        give(w, 4);
        CHECK(w.buffered_bytes() == 0);
        w.close();
        CHECK_FALSE(fs::exists(store / ".chunkwise-unfinished"));
        CHECK(holds_rows(read_zarr(store, rows), rows, cols));
    }
}

TEST_CASE("stream writers: ranges aligned to the chunk rows wait for nothing; others hold a chunk row per boundary",
          "[store][stream]") {
    const fs::path dir = test::scratch("stream-buffer");
    constexpr std::size_t rows = 100, cols = 4;
    h5::stream_writer<float> h(dir / "b.h5", "/x", {rows, cols}, {.chunk = {10, 4}, .codec = "lz4"});
    zarr::stream_writer<float> z(dir / "b.zarr", {rows, cols}, {.chunk = {10, 4}});
    const auto both = [&](std::size_t first, std::size_t n) {
        const auto v = rows_of(first, n, cols);
        h.write(first, std::span<const float>(v));
        z.write(first, std::span<const float>(v));
    };
    both(20, 30);  // rows [20, 50): whole chunk rows
    CHECK(h.peak_buffered_bytes() == 0);
    CHECK(z.peak_buffered_bytes() == 0);
    both(55, 20);  // [55, 75): rows 55..59 and 70..74 wait for their chunk rows' others
    CHECK(h.buffered_bytes() == 2 * 10 * cols * sizeof(float));
    CHECK(z.buffered_bytes() == 2 * 10 * cols * sizeof(float));
    both(50, 5);  // completes chunk row 50
    CHECK(h.buffered_bytes() == 10 * cols * sizeof(float));
    both(75, 25);
    both(0, 20);
    CHECK(h.buffered_bytes() == 0);
    CHECK(z.buffered_bytes() == 0);
    CHECK(h.peak_buffered_bytes() == 2 * 10 * cols * sizeof(float));
    h.close();
    z.close();
    CHECK(holds_rows(read_h5(dir / "b.h5", "/x", rows), rows, cols));
    CHECK(holds_rows(read_zarr(dir / "b.zarr", rows), rows, cols));
}

TEST_CASE("stream writers: 256 MiB streamed from two threads keep the process within 64 MiB of its start",
          "[store][stream][memory]") {
    const fs::path dir = test::scratch("stream-memory");
    constexpr std::size_t cols = 4096, rows = 256 * 1024 * 1024 / (cols * sizeof(float));  // 16384 rows
    constexpr std::size_t block_rows = 512;                                                // 8 MiB blocks
    const auto stream = [&](auto& w) {
        chunkwise::thread_policy threads{2};
        (void)chunkwise::map_blocks(threads, chunkwise::partition(rows, chunkwise::block_size{block_rows}),
                                    [&](const block& b) {
                                        std::vector<float> v(b.size() * cols);
                                        for (std::size_t i = 0; i < v.size(); ++i)
                                            v[i] = static_cast<float>((b.begin * cols + i) % 1000);
                                        w.write(b.begin, std::span<const float>(v));
                                        return 0;
                                    });
        w.close();
    };
    const std::string got = test::in_child_with_file_limit(RLIM_INFINITY, [&]() -> std::string {
        std::ofstream("/proc/self/clear_refs") << "5";  // the peak (VmHWM) starts again from here
        const std::size_t start = status_bytes("VmRSS");
        {
            h5::stream_writer<float> w(dir / "m.h5", "/x", {rows, cols}, {.chunk = {64, cols}, .codec = "lz4"});
            stream(w);
        }
        {
            zarr::stream_writer<float> w(
                dir / "m.zarr", {rows, cols},
                {.chunk = {64, cols}, .codec = "zstd", .level = 1, .format = 3, .shard = {256, cols}});
            stream(w);
        }
        const std::size_t peak = status_bytes("VmHWM");
        return std::to_string(peak > start ? (peak - start) >> 20 : 0);
    });
    INFO("peak growth " << got << " MiB");
    REQUIRE(got.find("threw") == std::string::npos);
    if (!sanitized) CHECK(std::stoul(got) < 64);  // (a sanitizer's shadow memory and quarantine are not the writer's)
    const auto h = h5::dataset(dir / "m.h5", "/x").read<float, 2>(chunkwise::items(rows - 1, rows));
    CHECK(h(0, cols - 1) == static_cast<float>(((rows - 1) * cols + cols - 1) % 1000));
    const auto z = zarr::array(dir / "m.zarr").read<float, 2>(chunkwise::items(rows - 1, rows));
    CHECK(z(0, 5) == static_cast<float>(((rows - 1) * cols + 5) % 1000));
}

TEST_CASE("stream writers: bad input is refused naming it, before anything is written", "[store][stream]") {
    const fs::path dir = test::scratch("stream-bad");
    h5::stream_writer<float> h(dir / "bad.h5", "/x", {20, 3}, {.chunk = {4, 3}, .codec = "zstd"});
    zarr::stream_writer<float> z(dir / "bad.zarr", {20, 3}, {.chunk = {4, 3}});
    const auto v = rows_of(0, 6, 3);
    h.write(2, std::span<const float>(v));
    z.write(2, std::span<const float>(v));
    const std::string h5_prefix = "bad.h5:/x: stream_writer: ";
    const std::string z_prefix = "bad.zarr: stream_writer: ";
    const auto both = [&](auto&& call, const std::string& words) {
        CHECK_THAT(test::error_of<h5::error>([&] { call(h); }), EndsWith(h5_prefix + words));
        CHECK_THAT(test::error_of<zarr::error>([&] { call(z); }), EndsWith(z_prefix + words));
    };
    both([&](auto& w) { w.write(6, std::span<const float>(v.data(), 6)); },
         "rows [6, 8): overlap rows [2, 8) given before");
    both([&](auto& w) { w.write(0, std::span<const float>(v.data(), 9)); },
         "rows [0, 3): overlap rows [2, 8) given before");
    both([&](auto& w) { w.write(18, std::span<const float>(v.data(), 9)); },
         "rows [18, 21): pass the end of the 20 rows");
    both([&](auto& w) { w.write(10, std::span<const float>(v.data(), 4)); },
         "4 values at row 10 are not whole rows of 3");
    const xt::xtensor<float, 1> flat = xt::xtensor<float, 1>::from_shape({6});
    both([&](auto& w) { w.write(10, flat); },
         "rows [10, 16): values of shape (6) are not rows of the array of shape (20, 3)");
    xt::xtensor<float, 2> two = xt::xtensor<float, 2>::from_shape({2, 3});
    std::fill(two.begin(), two.end(), 1.0f);
    both(
        [&](auto& w) {
            w.write(block{7, 10, 13}, two);
        },
        "block 7 (rows [10, 13)): its result has 2 rows, the block 3");
    // what was refused wrote nothing: the rows are still free
    CHECK_NOTHROW(h.write(block{7, 10, 12}, two));
    CHECK_NOTHROW(z.write(block{7, 10, 12}, two));
    CHECK(h.buffered_bytes() > 0);
    CHECK_THAT(test::error_of<h5::error>([&] { h.close(); }),
               EndsWith("bad.h5:/x: write: stream_writer: closed with rows [0, 2) never written, nothing kept"));
    CHECK_THAT(test::error_of<zarr::error>([&] { z.close(); }),
               EndsWith("bad.zarr: stream_writer: closed with rows [0, 2) never written, nothing kept"));
    CHECK_FALSE(fs::exists(dir / "bad.h5"));
    CHECK_FALSE(fs::exists(dir / "bad.zarr"));
    CHECK_THAT(test::error_of<h5::error>([&] { h5::stream_writer<float>(dir / "e.h5", "/x", {}); }),
               EndsWith("stream_writer: a 0-d shape: datasets of 1 or more axes are written"));
}

TEST_CASE("stream writers: dropped without close, nothing is left; a second stream over the first is refused",
          "[store][stream]") {
    const fs::path dir = test::scratch("stream-dropped");
    {
        h5::stream_writer<float> h(dir / "d.h5", "/x", {8, 2}, {.chunk = {4, 2}});
        zarr::stream_writer<float> z(dir / "d.zarr", {8, 2});
        const auto v = rows_of(0, 8, 2);
        h.write(0, std::span<const float>(v));
        z.write(0, std::span<const float>(v));
    }
    CHECK_FALSE(fs::exists(dir / "d.h5"));
    CHECK_FALSE(fs::exists(dir / "d.zarr"));
    h5::write(dir / "d.h5", "/x", std::vector<float>{1, 2});
    CHECK_THAT(test::error_of<h5::error>([&] { h5::stream_writer<float>(dir / "d.h5", "/x", {4}); }),
               Contains("not overwritten (write_mode::create; ask for write_mode::replace to replace it)"));
    zarr::write(dir / "d.zarr", std::vector<float>{1, 2});
    CHECK_THAT(test::error_of<zarr::error>([&] { zarr::stream_writer<float>(dir / "d.zarr", {4}); }),
               Contains("not overwritten (write_mode::create; ask for write_mode::replace to replace it)"));
    CHECK(h5::dataset(dir / "d.h5", "/x").shape() == std::vector<std::size_t>{2});
    CHECK(zarr::array(dir / "d.zarr").shape() == std::vector<std::size_t>{2});
}

TEST_CASE(
    "stream writers: a full disk fails the write naming the chunk, later writes and close say so, and "
    "nothing is left",
    "[store][stream]") {
    const fs::path dir = test::scratch("stream-full");
    const std::string got = test::in_child_with_file_limit(64 * 1024, [&]() -> std::string {
        std::string out;
        const auto v = rows_of(0, 4096, 16);                                              // 256 KiB, past the limit
        zarr::stream_writer<float> z(dir / "f.zarr", {4096, 16}, {.chunk = {2048, 16}});  // 128 KiB chunk files
        try {
            z.write(0, std::span<const float>(v));
        } catch (const zarr::error& e) {
            out += std::string("first: ") + e.what() + "\n";
        }
        try {
            z.write(4095, std::span<const float>(v.data(), 16));
        } catch (const zarr::error& e) {
            out += std::string("later: ") + e.what() + "\n";
        }
        try {
            z.close();
        } catch (const zarr::error& e) {
            out += std::string("close: ") + e.what() + "\n";
        }
        out += fs::exists(dir / "f.zarr") ? "left\n" : "gone\n";
        h5::stream_writer<float> h(dir / "f.h5", "/x", {4096, 16}, {.chunk = {256, 16}});
        try {
            h.write(0, std::span<const float>(v));
        } catch (const h5::error& e) {
            out += std::string("h5 first: ") + e.what() + "\n";
        }
        try {
            h.close();
        } catch (const h5::error& e) {
            out += std::string("h5 close: ") + e.what() + "\n";
        }
        out += fs::exists(dir / "f.h5") ? "h5 left\n" : "h5 gone\n";
        return out;
    });
    INFO(got);
    CHECK_THAT(got, Contains("first: [chunkwise.zarr] " + (dir / "f.zarr").string() + ": "));
    CHECK_THAT(got, Contains("later: [chunkwise.zarr]"));
    CHECK_THAT(got, Contains("close: [chunkwise.zarr]"));
    CHECK_THAT(got, Contains("\ngone\n"));
    CHECK_THAT(got, Contains("h5 first: [chunkwise.h5] " + (dir / "f.h5").string() + ":/x: "));
    CHECK_THAT(got, Contains("h5 close: [chunkwise.h5] " + (dir / "f.h5").string() +
                             ":/x: write: stream_writer: a write failed, nothing kept"));
    CHECK_THAT(got, Contains("h5 gone"));
}

TEST_CASE("h5::write_blocks on threads streams each result from the worker that holds it", "[store][stream]") {
    const fs::path dir = test::scratch("stream-write-blocks");
    chunkwise::thread_policy threads{2};
    constexpr std::size_t rows = 333, cols = 7;
    const auto blocks = chunkwise::partition(rows, chunkwise::parts{9});
    for (const std::string codec : {"", "lz4", "deflate"}) {
        if (!h5::codec_problem({.codec = codec}).empty()) continue;
        auto results = chunkwise::map_blocks(threads, blocks, [&](const block& b) {
            xt::xtensor<float, 2> r = xt::xtensor<float, 2>::from_shape({b.size(), cols});
            const auto v = rows_of(b.begin, b.size(), cols);
            std::copy(v.begin(), v.end(), r.begin());
            return r;
        });
        const std::string path = "/r" + codec;
        h5::write_blocks(threads, dir / "w.h5", path, std::move(results), {.chunk = {32, cols}, .codec = codec});
        CHECK(holds_rows(read_h5(dir / "w.h5", path, rows), rows, cols));
    }
}

TEST_CASE("chunk encoders: one chunk encoded as each store writes it, decoded back by the store's own pipeline",
          "[store][stream]") {
    const fs::path dir = test::scratch("chunk-encoders");
    const auto v = rows_of(0, 16, 8);
    const std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(v.data()), v.size() * 4);
    for (const std::string codec : {"", "deflate", "lz4", "zstd", "blosc"}) {
        INFO("codec " << codec);
        const h5::write_options ho{.chunk = {16, 8}, .shuffle = true, .codec = codec};
        if (!h5::codec_problem(ho).empty()) continue;
        h5::write(dir / "enc.h5", "/" + (codec.empty() ? std::string("none") : codec),
                  xt::xtensor<float, 2>::from_shape({16, 8}), ho);
        const h5::dataset ds(dir / "enc.h5", "/" + (codec.empty() ? std::string("none") : codec));
        h5::chunk_encoder he(ho, sizeof(float));
        const auto stored = he.encode(bytes);
        if (!codec.empty()) CHECK(stored.size() < bytes.size());
        std::vector<unsigned char> back(bytes.size());
        CHECK(h5::decode_chunk(ds, stored, 0, back) == bytes.size());
        CHECK(std::equal(back.begin(), back.end(), bytes.begin()));
    }
    for (const std::string codec : {"", "zstd", "blosc"}) {
        INFO("zarr codec " << codec);
        const zarr::write_options zo{.chunk = {16, 8}, .codec = codec};
        if (!zarr::options_problem(zo).empty()) continue;
        const fs::path store = dir / ("enc-" + codec + ".zarr");
        zarr::write(store, xt::xtensor<float, 2>::from_shape({16, 8}), zo);
        zarr::chunk_encoder ze(zo, sizeof(float), bytes.size());
        const auto stored = ze.encode(bytes);
        const auto back = zarr::array(store).decode_chunk(stored);
        CHECK(std::equal(back.begin(), back.end(), bytes.begin(), bytes.end()));
    }
    CHECK_THROWS_WITH(h5::chunk_encoder({.codec = "snappy"}, 4), Contains("h5::chunk_encoder: "));
    CHECK_THROWS_WITH(zarr::chunk_encoder({.format = 5}, 4, 64),
                      Contains("zarr::chunk_encoder: format must be 2 or 3, got 5"));
}

TEST_CASE(
    "stream writers: a writer that dies leaves a store or dataset marked unfinished, which readers refuse and "
    "the next write replaces",
    "[store][stream]") {
    const fs::path dir = test::scratch("stream-killed");
    const std::string got = test::in_child_with_file_limit(RLIM_INFINITY, [&]() -> std::string {
        h5::stream_writer<float> h(dir / "k.h5", "/x", {40, 4}, {.chunk = {8, 4}, .codec = "lz4"});
        zarr::stream_writer<float> z(dir / "k.zarr", {40, 4}, {.chunk = {8, 4}});
        const auto v = rows_of(0, 16, 4);
        h.write(0, std::span<const float>(v));
        z.write(0, std::span<const float>(v));
        // What reached the disk so far stays there: the process ends here, as if killed, closing nothing.
        const ssize_t n = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
        std::vector<hid_t> files(static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
        H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, files.size(), files.data());
        for (hid_t f : files) H5Fflush(f, H5F_SCOPE_GLOBAL);
        ::_exit(0);
    });
    CHECK(got.empty());
    CHECK_THAT(test::error_of<h5::error>([&] { (void)h5::dataset(dir / "k.h5", "/x"); }),
               EndsWith("k.h5:/x: an unfinished write: chunkwise was writing this dataset and did not finish (it "
                        "carries the attribute _chunkwise_unfinished); write it again"));
    CHECK_THAT(test::error_of<zarr::error>([&] { (void)zarr::array(dir / "k.zarr"); }), Contains("unfinished write"));
    // A rerun succeeds: the unfinished write is replaced, even in write_mode::create.
    const auto all = rows_of(0, 40, 4);
    {
        h5::stream_writer<float> h(dir / "k.h5", "/x", {40, 4}, {.chunk = {8, 4}, .codec = "lz4"});
        h.write(0, std::span<const float>(all));
        h.close();
        zarr::stream_writer<float> z(dir / "k.zarr", {40, 4}, {.chunk = {8, 4}});
        z.write(0, std::span<const float>(all));
        z.close();
    }
    CHECK(holds_rows(read_h5(dir / "k.h5", "/x", 40), 40, 4));
    CHECK(holds_rows(read_zarr(dir / "k.zarr", 40), 40, 4));
    CHECK(h5::attributes_of(dir / "k.h5", "/x").empty());  // the mark is gone once the write ends
}
