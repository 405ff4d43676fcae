// The four write modes in both stores: create refuses what exists, replace replaces it, append adds rows at the end,
// update writes rows in place keeping every other value of the chunks it touches; what does not fit the array is
// refused naming it and changes nothing; xarray (h5netcdf, zarr-python) reads what an append made; writers of one
// Zarr array in four processes and four threads at once, each updating single rows of shared chunks and shards, lose
// nothing.
#include "catch.hpp"
#include "test_util.hpp"
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr.hpp>

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;
using json = nlohmann::json;
using chunkwise::write_mode;

namespace {

// rows x 4 values, value(r, c) = base + 10 r + c.
xt::xtensor<float, 2> modes_rows(std::size_t rows, float base) {
    xt::xtensor<float, 2> a = xt::xtensor<float, 2>::from_shape({rows, 4});
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < 4; ++c) a(r, c) = base + 10.0f * static_cast<float>(r) + static_cast<float>(c);
    return a;
}

// `into` with `rows` written over its rows from `first`.
void modes_overlay(xt::xtensor<float, 2>& into, const xt::xtensor<float, 2>& rows, std::size_t first) {
    for (std::size_t r = 0; r < rows.shape()[0]; ++r)
        for (std::size_t c = 0; c < 4; ++c) into(first + r, c) = rows(r, c);
}

// `a` followed by the rows of `b`.
xt::xtensor<float, 2> modes_joined(const xt::xtensor<float, 2>& a, const xt::xtensor<float, 2>& b) {
    xt::xtensor<float, 2> out = xt::xtensor<float, 2>::from_shape({a.shape()[0] + b.shape()[0], 4});
    modes_overlay(out, a, 0);
    modes_overlay(out, b, a.shape()[0]);
    return out;
}

template <class Array>
xt::xtensor<float, 2> modes_read(const Array& a) {
    return a.template read<float, 2>(chunkwise::block{0, 0, a.shape()[0]});
}

xt::xtensor<float, 2> modes_h5(const fs::path& file, const std::string& path) {
    return modes_read(h5::dataset(file, path));
}

xt::xtensor<float, 2> modes_zarr(const fs::path& store) { return modes_read(zarr::array(store)); }

// The files under a store that are temporary names or replaced chunks left behind (none, after a write returns).
std::vector<std::string> modes_leftovers(const fs::path& store) {
    std::vector<std::string> left;
    for (const auto& e : fs::recursive_directory_iterator(store))
        if (e.path().filename().string().find(".partial.") != std::string::npos) left.push_back(e.path().string());
    return left;
}

// What xarray sees of a store (tests/support/dimensions_peer.py).
json modes_xarray(const std::string& args, const fs::path& out) {
    const std::string cmd = std::string(CHUNKWISE_TEST_PYTHON) + " " + CHUNKWISE_TEST_SUPPORT_DIR +
                            "/dimensions_peer.py " + args + " " + out.string();
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(out);
    return json::parse(in);
}

double modes_sum(const xt::xtensor<float, 2>& a) {
    double s = 0;
    for (float v : a) s += static_cast<double>(v);
    return s;
}

}  // namespace

TEST_CASE("write modes: update keeps the rest of each chunk, append adds rows, in both stores", "[store][modes]") {
    const fs::path dir = test::scratch("write-modes");
    const auto first = modes_rows(10, 0.0f), patch = modes_rows(3, 1000.0f), more = modes_rows(5, 5000.0f);
    xt::xtensor<float, 2> want = first;
    modes_overlay(want, patch, 4);  // rows 4-6: inside chunks of 3 rows (3-5, 6-8), sharing both
    want = modes_joined(want, more);

    SECTION("HDF5: a growable dataset, deflate and shuffle, chunks of 3 rows") {
        const fs::path file = dir / "m.h5";
        h5::write(file, "run/x", first, {.chunk = {3, 2}, .deflate = 4, .shuffle = true, .growable = true});
        h5::write(file, "run/x", patch, {.mode = write_mode::update, .first_row = 4});
        h5::write(file, "run/x", more, {.mode = write_mode::append});
        CHECK(bool(modes_h5(file, "run/x") == want));
        // zero rows: nothing changes
        h5::write(file, "run/x", modes_rows(0, 0.0f), {.mode = write_mode::append});
        CHECK(bool(modes_h5(file, "run/x") == want));
        // an empty growable dataset takes appends
        h5::write(file, "empty", modes_rows(0, 0.0f), {.growable = true});
        h5::write(file, "empty", first, {.mode = write_mode::append});
        h5::write(file, "empty", more, {.mode = write_mode::append});
        CHECK(bool(modes_h5(file, "empty") == modes_joined(first, more)));
    }
    SECTION("Zarr v2 and v3, sharded, compressed") {
        for (const zarr::write_options& o : {zarr::write_options{.chunk = {3, 2}, .codec = "zstd"},
                                             zarr::write_options{.chunk = {3, 2}, .codec = "blosc", .format = 3},
                                             zarr::write_options{.chunk = {2, 2}, .format = 3, .shard = {4, 4}}}) {
            const fs::path store = dir / ("m" + std::to_string(o.format) + (o.shard.empty() ? "" : "s") + ".zarr");
            zarr::write(store, first, o);
            zarr::write(store, patch, {.mode = write_mode::update, .first_row = 4});
            // the options the array was made with are accepted again
            zarr::write_options again = o;
            again.mode = write_mode::append;
            zarr::write(store, more, again);
            CHECK(bool(modes_zarr(store) == want));
            CHECK(zarr::array(store).shape() == std::vector<std::size_t>{15, 4});
            // every chunk replaced in place: no old file or temporary name is left beside them
            CHECK(modes_leftovers(store).empty());
        }
    }
}

TEST_CASE("write modes: xarray reads the appended arrays, with their dimension names", "[store][modes][peers]") {
    const fs::path dir = test::scratch("write-modes-xarray");
    const auto a = modes_rows(7, 0.0f), b = modes_rows(4, 100.0f);
    const std::vector<std::string> dims{"frame", "atom"};
    h5::write(dir / "p.h5", "x", a, {.chunk = {2, 4}, .growable = true, .dimensions = dims});
    h5::write(dir / "p.h5", "x", b, {.mode = write_mode::append, .dimensions = dims});
    zarr::create_group(dir / "p.zarr");
    zarr::write(dir / "p.zarr/x", a, {.chunk = {2, 4}, .dimensions = dims});
    zarr::write(dir / "p.zarr/x", b, {.mode = write_mode::append, .dimensions = dims});
    const double sum = modes_sum(modes_joined(a, b));
    for (const json& v : {modes_xarray("h5 " + (dir / "p.h5").string() + " /", dir / "h5.json"),
                          modes_xarray("zarr " + (dir / "p.zarr").string(), dir / "zarr.json")}) {
        CHECK(v["dims"]["frame"] == 11);
        CHECK(v["vars"]["x"]["dims"] == json({"frame", "atom"}));
        CHECK(v["vars"]["x"]["sum"].get<double>() == sum);
    }
}

TEST_CASE("write modes: what does not fit is refused naming it, and nothing changes", "[store][modes][errors]") {
    const fs::path dir = test::scratch("write-modes-errors");
    const auto first = modes_rows(6, 0.0f), three = modes_rows(3, 1.0f);
    const fs::path file = dir / "e.h5", store = dir / "e.zarr";
    h5::write(file, "x", first, {.chunk = {2, 4}, .growable = true, .dimensions = {"t", "c"}});
    h5::write(file, "fixed", first);
    zarr::write(store, first, {.chunk = {2, 4}, .codec = "gzip", .dimensions = {"t", "c"}});
    const auto h5_fails = [&](const std::string& path, const auto& values, const h5::write_options& o,
                              const std::string& words) {
        CHECK_THROWS_AS(h5::write(file, path, values, o), h5::error);
        CHECK_THROWS_WITH(h5::write(file, path, values, o), Catch::Matchers::Contains(words));
    };
    const auto zarr_fails = [&](const fs::path& where, const auto& values, const zarr::write_options& o,
                                const std::string& words) {
        CHECK_THROWS_AS(zarr::write(where, values, o), zarr::error);
        CHECK_THROWS_WITH(zarr::write(where, values, o), Catch::Matchers::Contains(words));
    };
    const xt::xtensor<double, 2> doubles = xt::zeros<double>({2, 4});
    const xt::xtensor<float, 2> wide = xt::zeros<float>({2, 5});
    h5_fails("x", doubles, {.mode = write_mode::append}, "append: the dataset holds float32, the values are float64");
    zarr_fails(store, doubles, {.mode = write_mode::append}, "append: the array holds float32, the values are float64");
    h5_fails("x", wide, {.mode = write_mode::append}, "does not fit the dataset's (6, 4)");
    zarr_fails(store, wide, {.mode = write_mode::append}, "the values' shape [2,5] does not fit the array's [6,4]");
    h5_fails("x", three, {.mode = write_mode::update, .first_row = 4},
             "update: rows [4, 7) lie past the dataset's end");
    zarr_fails(store, three, {.mode = write_mode::update, .first_row = 4}, "update: rows [4, 7) lie past the array's");
    h5_fails("missing", three, {.mode = write_mode::update}, "update: no dataset at this path");
    zarr_fails(dir / "missing.zarr", three, {.mode = write_mode::update}, "update: no Zarr array here");
    h5_fails("x", three, {}, "the dataset already exists: not overwritten (write_mode::create");
    zarr_fails(store, three, {}, "holds a Zarr array or group already: not overwritten (write_mode::create");
    h5_fails("fixed", three, {.mode = write_mode::append}, "axis 0 is fixed at 6 rows: create the dataset with");
    h5_fails("x", three, {.chunk = {3, 4}, .mode = write_mode::append},
             "chunk (3, 4) differs from the dataset's (2, 4)");
    zarr_fails(store, three, {.chunk = {3, 4}, .mode = write_mode::append},
               "chunk [3,4] differs from the array's [2,4]");
    zarr_fails(store, three, {.codec = "zstd", .mode = write_mode::append}, "codec zstd differs from the array's gzip");
    zarr_fails(store, three, {.codec = "gzip", .level = 9, .mode = write_mode::append},
               "codec gzip level 9 differs from the array's gzip level 6");
    h5::write(file, "packed", first, {.chunk = {2, 4}, .deflate = 4, .growable = true});
    h5_fails("packed", three, {.deflate = 9, .mode = write_mode::append},
             "the filters asked for (deflate 9) differ from the dataset's: its deflate parameters are 4, these ask 9");
    h5_fails("packed", three, {.codec = "zstd", .mode = write_mode::append}, "differ from the dataset's");
    h5_fails("x", three, {.mode = write_mode::append, .dimensions = {"u", "c"}}, "dimensions [u, c] differ");
    zarr_fails(store, three, {.mode = write_mode::append, .dimensions = {"u", "c"}}, R"(dimensions ["u", "c"] differ)");
    zarr_fails(store, three, {.mode = write_mode::append, .first_row = 2}, "first_row 2 is not the array's end");
    // chunk_writer makes a new dataset only
    CHECK_THROWS_WITH(h5::chunk_writer<float>(file, "x", {3, 4}, {.chunk = {2, 4}, .mode = write_mode::update}),
                      Catch::Matchers::Contains("write_mode::update is taken by h5::write, h5::write_blocks and "
                                                "h5::stream_writer: chunk_writer makes a new dataset"));
    // nothing changed
    CHECK(bool(modes_h5(file, "x") == first));
    CHECK(bool(modes_h5(file, "packed") == first));
    h5::write(file, "packed", three, {.deflate = 4, .mode = write_mode::append});     // the dataset's level: taken
    h5::write(file, "packed", three, {.codec = "gzip", .mode = write_mode::append});  // no level asked: taken
    CHECK(h5::dataset(file, "packed").shape()[0] == 12);
    CHECK(bool(modes_zarr(store) == first));
    CHECK(zarr::array(store).dimensions() == std::vector<std::string>{"t", "c"});
}

// Four writers update interleaved single rows of one sharded v3 array (every chunk and shard holds rows of all four),
// each on its own with no collective between them, 50 rounds: every value written is read back, every time.
TEST_CASE("write modes: four processes and four threads updating rows of shared chunks and shards lose nothing",
          "[store][modes][concurrency]") {
    const fs::path store = test::scratch("write-modes-races") / "r.zarr";
    constexpr std::size_t rows = 16, writers = 4, rounds = 50;
    zarr::write(store, modes_rows(rows, 0.0f), {.chunk = {4, 2}, .codec = "zstd", .format = 3, .shard = {8, 4}});
    const auto write_rows = [&](std::size_t w, std::size_t round) {
        for (std::size_t r = w; r < rows; r += writers) {
            xt::xtensor<float, 2> one = xt::xtensor<float, 2>::from_shape({1, 4});
            for (std::size_t c = 0; c < 4; ++c) one(0, c) = static_cast<float>(1000 * round + 10 * r + c);
            zarr::write(store, one, {.mode = write_mode::update, .first_row = r});
        }
    };
    const auto check_round = [&](std::size_t round) {
        const auto got = modes_zarr(store);
        std::size_t lost = 0;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < 4; ++c) lost += got(r, c) != static_cast<float>(1000 * round + 10 * r + c);
        return lost;
    };
    std::size_t lost = 0;
    for (std::size_t round = 1; round <= rounds; ++round) {
        std::vector<pid_t> children;
        std::fflush(nullptr);  // nothing buffered is written again by a child
        for (std::size_t w = 0; w < writers; ++w) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                try {
                    write_rows(w, round);
                } catch (...) {
                    ::_exit(1);
                }
                ::_exit(0);
            }
            children.push_back(pid);
        }
        int failed = 0;
        for (pid_t pid : children) {
            int status = 0;
            ::waitpid(pid, &status, 0);
            failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        REQUIRE(failed == 0);
        lost += check_round(round);
    }
    CHECK(lost == 0);
    for (std::size_t round = rounds + 1; round <= rounds + 10; ++round) {
        std::vector<std::thread> threads;
        for (std::size_t w = 0; w < writers; ++w) threads.emplace_back(write_rows, w, round);
        for (std::thread& t : threads) t.join();
        lost += check_round(round);
    }
    CHECK(lost == 0);
}

// Two processes make the same Zarr store at once, 20 times over: one succeeds and the other is refused, having
// waited for the first; the store holds the first's array whole.
TEST_CASE("write modes: two processes creating one Zarr store: one succeeds, the other is refused",
          "[store][modes][concurrency]") {
    const fs::path dir = test::scratch("write-modes-create-race");
    for (int round = 0; round < 20; ++round) {
        const fs::path store = dir / ("s" + std::to_string(round) + ".zarr");
        int go[2];
        REQUIRE(::pipe(go) == 0);
        std::fflush(nullptr);
        std::vector<pid_t> children;
        for (int w = 0; w < 2; ++w) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                ::close(go[1]);
                char c = 0;
                (void)::read(go[0], &c, 1);  // both start together
                try {                        // different shapes, chunks and codecs: a mix of both would not read
                    zarr::write(store,
                                modes_rows(40 + 20 * static_cast<std::size_t>(w), 1000.0f * static_cast<float>(w)),
                                {.chunk = {3 + static_cast<std::size_t>(w), 4},
                                 .codec = w == 0 ? "zstd" : "gzip",
                                 .format = 2 + w});
                } catch (const zarr::error& e) {
                    const bool refused = std::string(e.what()).find("not overwritten") != std::string::npos;
                    ::_exit(refused ? 2 : 3);
                } catch (...) {
                    ::_exit(4);
                }
                ::_exit(0);
            }
            children.push_back(pid);
        }
        ::close(go[0]);
        ::close(go[1]);  // go
        std::vector<int> codes;
        for (pid_t pid : children) {
            int status = 0;
            ::waitpid(pid, &status, 0);
            codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 100);
        }
        INFO("round " << round << ": exit codes " << codes[0] << " and " << codes[1]);
        REQUIRE(((codes[0] == 0 && codes[1] == 2) || (codes[0] == 2 && codes[1] == 0)));
        const std::size_t winner = codes[0] == 0 ? 0 : 1;
        const zarr::array a(store);
        CHECK(a.format() == 2 + static_cast<int>(winner));
        CHECK(bool(modes_read(a) == modes_rows(40 + 20 * winner, 1000.0f * static_cast<float>(winner))));
    }
}

// A writer killed (SIGKILL) in the middle of an append or an update, at random moments, 12 times each: the array
// reads, by chunkwise and by zarr-python, at its old extent or its new one (every row's values whole), and each chunk
// holds the values of one update. (HDF5 gives no such promise: docs/writing.md, "A writer that dies".)
TEST_CASE("write modes: a Zarr writer killed during an append or an update leaves the array readable",
          "[store][modes][crash]") {
    const fs::path dir = test::scratch("write-modes-crash");
    constexpr std::size_t step = 400, width = 64;
    const auto block_of = [&](std::size_t first, std::size_t rows, float round) {
        xt::xtensor<float, 2> a = xt::xtensor<float, 2>::from_shape({rows, width});
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < width; ++c)
                a(r, c) = round * 1e6f + static_cast<float>((first + r) * width + c) / 64.0f;
        return a;
    };
    const auto killed_after = [](int micros, const auto& work) {
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid == 0) {
            try {
                work();
            } catch (...) {
                ::_exit(3);
            }
            ::_exit(0);
        }
        ::usleep(static_cast<useconds_t>(micros));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFSIGNALED(status);
    };
    const fs::path store = dir / "append.zarr";
    zarr::write(store, block_of(0, step, 0.0f), {.chunk = {10, width}, .codec = "zstd"});
    int killed = 0;
    for (int k = 0; k < 12; ++k) {
        killed += killed_after(2000 + 3000 * k, [&] {
            for (int n = 0; n < 1000; ++n) {
                const std::size_t rows = zarr::array(store).shape()[0];
                zarr::write(store, block_of(rows, step, 0.0f), {.mode = write_mode::append});
            }
        });
        const zarr::array a(store);
        const std::size_t rows = a.shape()[0];
        INFO("kill " << k << ": " << rows << " rows");
        CHECK(rows % step == 0);
        CHECK(bool(modes_read(a) == block_of(0, rows, 0.0f)) == true);
    }
    CHECK(killed > 0);
    const fs::path u = dir / "update.zarr";
    zarr::write(u, block_of(0, 2000, 0.0f), {.chunk = {10, width}, .codec = "zstd", .format = 3, .shard = {40, width}});
    for (int k = 0; k < 12; ++k) {
        killed_after(2000 + 3000 * k, [&] {
            for (int n = 1; n < 1000; ++n)
                zarr::write(u, block_of(0, 2000, static_cast<float>(n)), {.mode = write_mode::update});
        });
        const xt::xtensor<float, 2> got = modes_read(zarr::array(u));
        std::size_t torn = 0;
        for (std::size_t g = 0; g < 2000; g += 40) {  // one shard: the values of one update
            const float round = std::floor(got(g, 0) / 1e6f);
            const auto want = block_of(0, 2000, round);
            for (std::size_t r = g; r < g + 40; ++r)
                for (std::size_t c = 0; c < width; ++c) torn += got(r, c) != want(r, c);
        }
        CHECK(torn == 0);
    }
    // zarr-python reads the appended array after the kills
    const std::string cmd = std::string(CHUNKWISE_TEST_PYTHON) + " -c \"import zarr, sys; a = zarr.open_array('" +
                            store.string() + "', mode='r'); sys.exit(0 if a.shape[0] % " + std::to_string(step) +
                            " == 0 and float(a[-1, -1]) == (a.shape[0] * " + std::to_string(width) +
                            " - 1) / 64.0 else 1)\"";
    CHECK(std::system(cmd.c_str()) == 0);
}

// write_blocks with append and update, serial and on threads, in both stores: each block's result at its rows from
// the array's end or from first_row, blocks sharing chunks with each other and with the rows kept.
TEST_CASE("write modes: write_blocks appends and updates, serial and on threads, in both stores",
          "[store][modes][threads]") {
    const fs::path dir = test::scratch("write-modes-blocks");
    const auto first = modes_rows(20, 0.0f);
    // 5 blocks of 3 rows: not aligned to the chunks of 4 rows
    const auto blocks = chunkwise::partition(15, chunkwise::parts{5});
    const auto result_of = [](const chunkwise::block& b) {
        return modes_rows(b.size(), 100.0f * static_cast<float>(b.index + 1));
    };
    xt::xtensor<float, 2> all = xt::xtensor<float, 2>::from_shape({15, 4});
    for (const chunkwise::block& b : blocks) modes_overlay(all, result_of(b), b.begin);
    xt::xtensor<float, 2> updated = first;
    modes_overlay(updated, all, 3);  // rows 3-17
    const xt::xtensor<float, 2> appended = modes_joined(updated, all);
    chunkwise::serial_policy serial;
    chunkwise::thread_policy threads{4};
    int n = 0;
    const auto both = [&](auto& policy) {
        const fs::path file = dir / ("b" + std::to_string(n) + ".h5"),
                       store = dir / ("b" + std::to_string(n) + ".zarr");
        ++n;
        h5::write(file, "x", first, {.chunk = {4, 4}, .deflate = 3, .growable = true});
        zarr::write(store, first, {.chunk = {4, 2}, .codec = "zstd", .format = 3, .shard = {8, 4}});
        h5::write_blocks(policy, file, "x", chunkwise::map_blocks(policy, blocks, result_of),
                         {.mode = write_mode::update, .first_row = 3});
        zarr::write_blocks(policy, store, chunkwise::map_blocks(policy, blocks, result_of),
                           {.mode = write_mode::update, .first_row = 3});
        CHECK(bool(modes_h5(file, "x") == updated));
        CHECK(bool(modes_zarr(store) == updated));
        CHECK(modes_leftovers(store).empty());  // the chunks replaced, removed before write_blocks returned
        h5::write_blocks(policy, file, "x", chunkwise::map_blocks(policy, blocks, result_of),
                         {.mode = write_mode::append});
        zarr::write_blocks(policy, store, chunkwise::map_blocks(policy, blocks, result_of),
                           {.mode = write_mode::append});
        CHECK(bool(modes_h5(file, "x") == appended));
        CHECK(bool(modes_zarr(store) == appended));
        // no results (an empty input): zero rows appended or updated, the array as it was
        const auto none = [&] {
            return chunkwise::map_blocks(policy, chunkwise::partition(0, chunkwise::parts{1}), result_of);
        };
        REQUIRE(none().total_blocks() == 0);
        for (const write_mode m : {write_mode::append, write_mode::update}) {
            h5::write_blocks(policy, file, "x", none(), {.mode = m});
            zarr::write_blocks(policy, store, none(), {.mode = m});
        }
        CHECK(bool(modes_h5(file, "x") == appended));
        CHECK(bool(modes_zarr(store) == appended));
        // past the end: refused, nothing changed
        CHECK_THROWS_WITH(zarr::write_blocks(policy, store, chunkwise::map_blocks(policy, blocks, result_of),
                                             {.mode = write_mode::update, .first_row = 30}),
                          Catch::Matchers::Contains("update: rows [30, 45) lie past the array's end (35 rows)"));
        CHECK_THROWS_WITH(h5::write_blocks(policy, file, "x", chunkwise::map_blocks(policy, blocks, result_of),
                                           {.mode = write_mode::update, .first_row = 30}),
                          Catch::Matchers::Contains("update: rows [30, 45) lie past the dataset's end (35 rows)"));
        CHECK(bool(modes_zarr(store) == appended));
    };
    SECTION("serial") { both(serial); }
    SECTION("threads") { both(threads); }
}

// The stream writers with append and update: rows given in any order from threads, runs sharing chunks with each
// other and with the rows kept; close() says which rows were never given, and what was given stays.
TEST_CASE("write modes: the stream writers append and update, rows from threads in any order",
          "[store][modes][threads]") {
    const fs::path dir = test::scratch("write-modes-stream");
    const auto first = modes_rows(20, 0.0f);
    const auto blocks = chunkwise::partition(15, chunkwise::parts{5});  // 3 rows each: not on the chunks' rows
    const auto result_of = [](const chunkwise::block& b) {
        return modes_rows(b.size(), 100.0f * static_cast<float>(b.index + 1));
    };
    xt::xtensor<float, 2> all = xt::xtensor<float, 2>::from_shape({15, 4});
    for (const chunkwise::block& b : blocks) modes_overlay(all, result_of(b), b.begin);
    xt::xtensor<float, 2> updated = first;
    modes_overlay(updated, all, 3);
    const xt::xtensor<float, 2> appended = modes_joined(updated, all);
    chunkwise::thread_policy threads{4};
    const fs::path file = dir / "s.h5", store = dir / "s.zarr";
    h5::write(file, "x", first, {.chunk = {4, 4}, .deflate = 3, .growable = true});
    zarr::write(store, first, {.chunk = {4, 2}, .codec = "zstd", .format = 3, .shard = {8, 4}});
    for (const write_mode mode : {write_mode::update, write_mode::append}) {
        h5::stream_writer<float> hs(file, "x", {15, 4},
                                    {.mode = mode, .first_row = mode == write_mode::update ? 3u : 0u});
        zarr::stream_writer<float> zs(store, {15, 4},
                                      {.mode = mode, .first_row = mode == write_mode::update ? 3u : 0u});
        (void)chunkwise::map_blocks(threads, blocks, [&](const chunkwise::block& b) {
            hs.write(b, result_of(b));
            zs.write(b, result_of(b));
            return 0;
        });
        hs.close();
        zs.close();
    }
    CHECK(bool(modes_h5(file, "x") == appended));
    CHECK(bool(modes_zarr(store) == appended));
    CHECK(modes_leftovers(store).empty());  // the chunks replaced, removed before each write returned
    // rows missing: close() names them; the rows given are in the array, its extent unchanged
    zarr::stream_writer<float> gap(store, {6, 4}, {.mode = write_mode::update, .first_row = 0});
    gap.write(0, modes_rows(2, 7.0f));
    CHECK_THROWS_WITH(gap.close(),
                      Catch::Matchers::Contains("closed with rows [2, 6) never written (the rows given are "
                                                "in the array)"));
    CHECK(zarr::array(store).shape() == std::vector<std::size_t>{35, 4});
    CHECK(modes_zarr(store)(1, 0) == 17.0f);
}

// CHUNKWISE_ZARR_REMOVERS that is no count: every Zarr update or append refuses, naming it, and the array stays as
// it was (run by ctest with CHUNKWISE_ZARR_REMOVERS=lots).
TEST_CASE("write modes: a CHUNKWISE_ZARR_REMOVERS that is no count is refused, nothing changed", "[.removers-env]") {
    const fs::path dir = test::scratch("write-modes-removers-env");
    const auto first = modes_rows(6, 0.0f), more = modes_rows(2, 50.0f);
    const fs::path store = dir / "r.zarr";
    zarr::write(store, first, {.chunk = {2, 4}, .codec = "zstd"});
    chunkwise::thread_policy threads{2};
    const auto blocks = chunkwise::partition(2, chunkwise::parts{2});
    const auto rows_of = [&](const chunkwise::block& b) { return modes_rows(b.size(), 50.0f); };
    const std::string words = "CHUNKWISE_ZARR_REMOVERS='lots' is not a count of threads from 0 to 16";
    for (const write_mode m : {write_mode::update, write_mode::append}) {
        CHECK_THROWS_WITH(zarr::write(store, more, {.mode = m}), Catch::Matchers::Contains(words));
        CHECK_THROWS_WITH(
            zarr::write_blocks(threads, store, chunkwise::map_blocks(threads, blocks, rows_of), {.mode = m}),
            Catch::Matchers::Contains(words));
    }
    CHECK(bool(modes_zarr(store) == first));
    CHECK(zarr::array(store).shape() == std::vector<std::size_t>{6, 4});
    CHECK(modes_leftovers(store).empty());
}
