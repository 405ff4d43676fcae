// What writing into an existing array costs against writing a new one, in both stores: an update of
// N rows (aligned to the chunks, and a region that is not) against a create of the same N rows, and
// an append of N rows to an array of N rows and to one of 8N rows against a create of N rows.
//
//   bench_write_modes [--dir DIR] [--rows 4096] [--cols 1024] [--chunk-rows 64] [--repeats 5] [--settle]
//       [--stores h5,zarr2,zarr3]
//
// Stores (--stores, all by default): HDF5 (h5: deflate 1 and shuffle, through HDF5's filters in every mode), Zarr v2
// (zarr2: zstd) and Zarr v3 sharded (zarr3: zstd, shards of 4 chunk rows). float32 values. Each case's median of
// --repeats runs, the cases taking turns; the ratios to the create. Each create writes a new array under a name of
// its own (the creates before it kept until the store's cases end), so that no case writes into memory that a
// removal has just freed, which a virtual machine whose freed pages go back to its host (free page reporting) would
// make cheaper than memory it has not touched for a while. --settle: every write starts once the file system has
// written back what the earlier ones left in the page cache (sync(), untimed), so that no turn pays for another's
// write-back, and with the page cache dropped where the process may (root: /proc/sys/vm/drop_caches), so that every
// write starts from the same cache.
#include "../common/cli.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/zarr.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;
namespace fs = std::filesystem;
using chunkwise::write_mode;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Drops the clean page cache (after sync(), everything): false where the process may not.
bool drop_page_cache() {
    std::FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w");
    if (f == nullptr) return false;
    const bool ok = std::fputs("1", f) >= 0;
    return std::fclose(f) == 0 && ok;
}

// f's time; `prepare` runs first, untimed (and the sync() and page cache drop of --settle after it).
double seconds(const std::function<void()>& f, bool settle, const std::function<void()>& prepare = {}) {
    if (prepare) prepare();
    if (settle) {
        ::sync();
        (void)drop_page_cache();
    }
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One store's writes: a new array of `a` at `name` (nothing there: write_mode::create), or `a` written into the array
// there as `mode` asks.
struct store_ops {
    std::string name;  // as --stores names it
    std::string label;
    std::function<void(const fs::path&, const xt::xtensor<float, 2>&)> create;
    std::function<void(const fs::path&, const xt::xtensor<float, 2>&, write_mode, std::size_t)> into;
};

std::vector<store_ops> stores(std::size_t chunk_rows, std::size_t cols) {
    const std::vector<std::size_t> chunk{chunk_rows, cols};
    return {
        {"h5", "HDF5 deflate 1 + shuffle",
         [=](const fs::path& p, const xt::xtensor<float, 2>& a) {
             h5::write(p, "x", a, {.chunk = chunk, .deflate = 1, .shuffle = true, .growable = true});
         },
         [](const fs::path& p, const xt::xtensor<float, 2>& a, write_mode m, std::size_t first) {
             h5::write(p, "x", a, {.mode = m, .first_row = first});
         }},
        {"zarr2", "Zarr v2 zstd",
         [=](const fs::path& p, const xt::xtensor<float, 2>& a) {
             zarr::write(p, a, {.chunk = chunk, .codec = "zstd"});
         },
         [](const fs::path& p, const xt::xtensor<float, 2>& a, write_mode m, std::size_t first) {
             zarr::write(p, a, {.mode = m, .first_row = first});
         }},
        {"zarr3", "Zarr v3 zstd, sharded",
         [=](const fs::path& p, const xt::xtensor<float, 2>& a) {
             zarr::write(p, a, {.chunk = chunk, .codec = "zstd", .format = 3, .shard = {4 * chunk_rows, cols}});
         },
         [](const fs::path& p, const xt::xtensor<float, 2>& a, write_mode m, std::size_t first) {
             zarr::write(p, a, {.mode = m, .first_row = first});
         }},
    };
}

}  // namespace

int main(int argc, char** argv) try {
    const bench_cli::args args(argc, argv, 1, {"dir", "rows", "cols", "chunk-rows", "repeats", "stores"}, {"settle"});
    const std::vector<store_ops> all =
        stores(std::min(args.count("chunk-rows", 64, 1), args.count("rows", 4096, 1)), args.count("cols", 1024, 1));
    std::vector<store_ops> chosen;
    std::stringstream names(args.text("stores", "h5,zarr2,zarr3"));
    for (std::string name; std::getline(names, name, ',');) {
        const auto it = std::find_if(all.begin(), all.end(), [&](const store_ops& s) { return s.name == name; });
        if (it == all.end()) throw std::invalid_argument("--stores: no store '" + name + "' (h5, zarr2, zarr3)");
        chosen.push_back(*it);
    }
    if (chosen.empty()) throw std::invalid_argument("--stores: an empty list");
    const bool settle = args.flag("settle");
    const std::size_t rows = args.count("rows", 4096, 1), cols = args.count("cols", 1024, 1);
    const std::size_t chunk_rows = std::min(args.count("chunk-rows", 64, 1), rows);
    const std::size_t repeats = args.count("repeats", 5, 1);
    const fs::path dir =
        fs::path(args.text("dir", (fs::temp_directory_path() / "chunkwise-bench-write-modes").string()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    xt::xtensor<float, 2> a = xt::xtensor<float, 2>::from_shape({rows, cols});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = std::sin(0.001f * static_cast<float>(i % 100000));
    xt::xtensor<float, 2> big = xt::xtensor<float, 2>::from_shape({8 * rows, cols});
    for (std::size_t i = 0; i < big.size(); ++i) big.data()[i] = a.data()[i % a.size()];
    const std::size_t offset = rows / 2 + 7;  // a region that starts and ends inside chunks (and shards)
    const char* how = !settle             ? ""
                      : drop_page_cache() ? ", each after sync() and the page cache dropped"
                                          : ", each after sync() (the page cache not dropped: not root)";
    std::printf("%zu x %zu float32 (%.1f MB) per write, chunks of %zu rows, median of %zu, turns alternating%s\n", rows,
                cols, static_cast<double>(a.size() * 4) / 1e6, chunk_rows, repeats, how);
    std::printf("%-24s %9s %16s %16s %16s %16s\n", "store", "create s", "update aligned", "update region",
                "append to N", "append to 8N");
    for (const store_ops& s : chosen) {
        const fs::path fresh = dir / "fresh", same = dir / "same", twice = dir / "twice", small = dir / "small",
                       large = dir / "large";
        s.create(same, a);
        s.create(twice, big);
        s.create(small, a);
        s.create(large, big);
        std::map<std::string, std::vector<double>> t;
        for (std::size_t r = 0; r < repeats; ++r) {
            // each create into a name of its own, the ones before kept until the end: no turn writes into the memory
            // that a removal has just freed (a guest whose freed pages go back to its host pays for new ones)
            const fs::path fresh_r = fresh / std::to_string(r);
            t["create"].push_back(
                seconds([&] { s.create(fresh_r, a); }, settle, [&] { fs::create_directories(fresh); }));
            t["aligned"].push_back(seconds([&] { s.into(same, a, write_mode::update, 0); }, settle));
            t["region"].push_back(seconds([&] { s.into(twice, a, write_mode::update, offset); }, settle));
            t["small"].push_back(seconds([&] { s.into(small, a, write_mode::append, 0); }, settle));
            t["large"].push_back(seconds([&] { s.into(large, a, write_mode::append, 0); }, settle));
        }
        const double c = median(t["create"]);
        const auto ratio = [&](const char* k) {
            char text[32];
            std::snprintf(text, sizeof text, "%.3f s %.2fx", median(t[k]), median(t[k]) / c);
            return std::string(text);
        };
        std::printf("%-24s %9.3f %16s %16s %16s %16s\n", s.label.c_str(), c, ratio("aligned").c_str(),
                    ratio("region").c_str(), ratio("small").c_str(), ratio("large").c_str());
        for (const fs::path& p : {fresh, same, twice, small, large}) fs::remove_all(p);
    }
    fs::remove_all(dir);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr,
                 "bench_write_modes: %s\nusage: bench_write_modes [--dir DIR] [--rows N] [--cols N] "
                 "[--chunk-rows N] [--repeats R] [--settle] [--stores h5,zarr2,zarr3]\n",
                 e.what());
    return 2;
}
