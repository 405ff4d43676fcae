// What checkpointing costs: map_blocks with run_options::checkpoint against the same run without.
//
//   bench_checkpoint [--dir DIR] [--blocks N] [--threads N] [--compute-ms 0,10,50] [--repeats R]
//                    [--small 100000,1000000]
//
// Large results: --blocks blocks that each compute for T ms and return 1 MiB (131072 doubles).
// Per T: median wall time without and with checkpoints, the overhead per block (µs), the
// checkpoint write rate (MB/s of results, syncs included), the overhead in percent, and the
// resume's load rate.
// Many small results (--small): N blocks of 24 bytes (3 doubles) each, no compute: time per
// block without and with checkpoints, files the checkpoint created, bytes it wrote, and the
// resume (every block loaded).
#include "../common/cli.hpp"

#include <chunkwise/chunkwise.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Files and bytes under `dir`.
std::pair<std::size_t, std::uintmax_t> footprint(const std::filesystem::path& dir) {
    std::size_t files = 0;
    std::uintmax_t bytes = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.is_regular_file()) {
            ++files;
            bytes += e.file_size();
        }
    }
    return {files, bytes};
}

/// Median seconds of `repeats` runs of `fn` over `blocks`: without checkpoints, with them (into a
/// fresh `dir`), and resuming from them (every block loaded); and the checkpoint's files and
/// bytes. Nothing when a resume does not load every block (said on stderr).
struct timings {
    double plain = 0, with = 0, resume = 0;
    std::pair<std::size_t, std::uintmax_t> disk{};
};
template <class Fn>
std::optional<timings> time_runs(chunkwise::thread_policy& pool, const std::vector<chunkwise::block>& blocks,
                                 const Fn& fn, const std::filesystem::path& dir, int repeats) {
    std::vector<double> plain, with, resume;
    timings t;
    const auto seconds = [](clock_type::time_point t0) {
        return std::chrono::duration<double>(clock_type::now() - t0).count();
    };
    for (int r = 0; r < repeats; ++r) {
        auto t0 = clock_type::now();
        (void)chunkwise::map_blocks(pool, blocks, fn);
        plain.push_back(seconds(t0));
        std::filesystem::remove_all(dir);
        chunkwise::run_options opt;
        opt.checkpoint = dir;
        t0 = clock_type::now();
        (void)chunkwise::map_blocks(pool, blocks, fn, opt);
        with.push_back(seconds(t0));
        t.disk = footprint(dir);
        t0 = clock_type::now();
        auto loaded = chunkwise::map_blocks(pool, blocks, fn, opt);
        resume.push_back(seconds(t0));
        if (loaded.stats().from_checkpoint != blocks.size()) {
            std::fprintf(stderr, "bench_checkpoint: the resume loaded %zu of %zu blocks\n",
                         loaded.stats().from_checkpoint, blocks.size());
            return std::nullopt;
        }
    }
    t.plain = median(plain);
    t.with = median(with);
    t.resume = median(resume);
    return t;
}

/// The small-block table: N blocks of 24 bytes each.
int small_blocks(const std::filesystem::path& dir, const std::vector<std::size_t>& counts, std::size_t threads,
                 int repeats) {
    chunkwise::thread_policy pool(threads);
    auto fn = [](const chunkwise::block& b) {
        const double x = static_cast<double>(b.index);
        return std::vector<double>{x, x * 0.5, x * 0.25};
    };
    std::printf("# blocks of 24 bytes of results on %zu threads, median of %d\n", threads, repeats);
    std::printf("%10s %14s %14s %10s %14s %14s %16s\n", "blocks", "plain_us/blk", "ckpt_us/blk", "files",
                "bytes_written", "bytes/block", "resume_us/blk");
    for (const std::size_t n : counts) {
        const auto blocks = chunkwise::partition(n, chunkwise::parts{n});
        const auto t = time_runs(pool, blocks, fn, dir, repeats);
        if (!t) return 1;
        const double per = 1e6 / static_cast<double>(n);
        std::printf("%10zu %14.3f %14.3f %10zu %14ju %14.1f %16.3f\n", n, t->plain * per, t->with * per, t->disk.first,
                    t->disk.second, static_cast<double>(t->disk.second) / static_cast<double>(n), t->resume * per);
    }
    std::filesystem::remove_all(dir);
    return 0;
}

}  // namespace

int main(int argc, char** argv) try {
    bench_cli::args a(argc, argv, 1, {"dir", "blocks", "threads", "repeats", "compute-ms", "small"}, {});
    const std::filesystem::path dir =
        std::filesystem::path(a.text("dir", std::filesystem::temp_directory_path().string())) /
        "chunkwise-bench-checkpoint";
    const std::size_t n = a.count("blocks", 32, 1);
    const std::size_t threads = a.count("threads", 2, 1);
    const int repeats = static_cast<int>(a.count("repeats", 3, 1));
    if (a.has("small")) return small_blocks(dir, a.counts("small", {}, 1), threads, repeats);
    std::vector<double> compute_ms;
    {
        std::stringstream ss(a.text("compute-ms", "0,10,50"));
        for (std::string t; std::getline(ss, t, ',');) compute_ms.push_back(std::stod(t));
    }
    constexpr std::size_t values = (1 << 20) / sizeof(double);  // 1 MiB of results per block
    chunkwise::thread_policy pool(threads);
    const auto blocks = chunkwise::partition(n, chunkwise::parts{n});

    std::printf("# %zu blocks of 1 MiB results on %zu threads, checkpoint in %s, median of %d\n", n, threads,
                dir.c_str(), repeats);
    std::printf("%10s %12s %12s %14s %14s %10s %14s\n", "compute_ms", "plain_s", "ckpt_s", "us_per_block", "write_MB/s",
                "overhead", "resume_MB/s");
    for (const double ms : compute_ms) {
        auto fn = [ms](const chunkwise::block& b) {
            const auto until = clock_type::now() + std::chrono::duration<double, std::milli>(ms);
            std::vector<double> v(values);
            double x = static_cast<double>(b.index);
            std::size_t i = 0;
            do {  // compute for `ms`, filling the result
                x = x * 1.0000001 + 1e-9;
                v[i++ % values] = x;
            } while (clock_type::now() < until || i < values);
            return v;
        };
        const auto t = time_runs(pool, blocks, fn, dir, repeats);
        if (!t) return 1;
        const double a = t->plain, b = t->with, c = t->resume;
        const double extra = std::max(0.0, b - a);
        const double mib = static_cast<double>(n) * (1 << 20) / 1e6;
        std::printf("%10.0f %12.3f %12.3f %14.0f %14.0f %9.1f%% %14.0f\n", ms, a, b,
                    extra / double(n) * 1e6 * double(threads), extra > 0 ? mib / extra : 0.0, 100.0 * (b - a) / a,
                    mib / c);
    }
    std::filesystem::remove_all(dir);
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_checkpoint: %s\n", e.what());
    return 2;
}
