// What checkpointing costs: map_blocks with run_options::checkpoint against the same run without,
// blocks that each compute for T ms and return 1 MiB (131072 doubles). Also the resume: every
// block loaded from the checkpoint.
//
//   bench_checkpoint [--dir DIR] [--blocks N] [--threads N] [--compute-ms 0,10,50] [--repeats R]
//
// Per T: median wall time without and with checkpoints, the overhead per block (µs), the
// checkpoint write rate (MB/s of results, fsync included), the overhead in percent, and the
// resume's load rate.
#include <chunkwise/chunkwise.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

std::string arg(int argc, char** argv, const char* name, const std::string& fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    }
    return fallback;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::filesystem::path dir =
        std::filesystem::path(arg(argc, argv, "--dir", std::filesystem::temp_directory_path().string())) /
        "chunkwise-bench-checkpoint";
    const std::size_t n = std::stoul(arg(argc, argv, "--blocks", "32"));
    const std::size_t threads = std::stoul(arg(argc, argv, "--threads", "2"));
    const int repeats = std::stoi(arg(argc, argv, "--repeats", "3"));
    std::vector<double> compute_ms;
    {
        std::stringstream ss(arg(argc, argv, "--compute-ms", "0,10,50"));
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
        std::vector<double> plain, with, resume;
        for (int r = 0; r < repeats; ++r) {
            auto t0 = clock_type::now();
            (void)chunkwise::map_blocks(pool, blocks, fn);
            plain.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());

            std::filesystem::remove_all(dir);
            chunkwise::run_options opt;
            opt.checkpoint = dir;
            t0 = clock_type::now();
            (void)chunkwise::map_blocks(pool, blocks, fn, opt);
            with.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());

            t0 = clock_type::now();
            auto loaded = chunkwise::map_blocks(pool, blocks, fn, opt);
            resume.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
            if (loaded.stats().from_checkpoint != n) {
                std::fprintf(stderr, "bench_checkpoint: the resume loaded %zu of %zu blocks\n", loaded.stats().from_checkpoint, n);
                return 1;
            }
        }
        const double a = median(plain), b = median(with), c = median(resume);
        const double extra = std::max(0.0, b - a);
        const double mib = static_cast<double>(n) * (1 << 20) / 1e6;
        std::printf("%10.0f %12.3f %12.3f %14.0f %14.0f %9.1f%% %14.0f\n", ms, a, b, extra / double(n) * 1e6 * double(threads),
                    extra > 0 ? mib / extra : 0.0, 100.0 * (b - a) / a, mib / c);
    }
    std::filesystem::remove_all(dir);
}
