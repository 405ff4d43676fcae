// What combining costs (docs/performance.md, "Combining"):
//
//   bench_combine [--blocks 1000000] [--repeats 5]
//                 [--file TRAJ.h5 [--dataset PATH] [--threads 1,2] [--block-mib 128]]
//
// 1. reduce of mergeable states over N blocks (mean, variance, a 32-bin histogram), against a
//    hand-written serial loop that merges the same states in order: the fixed tree's cost.
// 2. With --file (an H5MD trajectory, chunkwise-bench generate): the element-wise variance of
//    every coordinate over frames (acc::variance::add_rows) while reading, against reading alone
//    (the same blocks, the same read buffers), per thread count: the statistic's share of a pass.
//    The state of an element-wise statistic is as large as a row (three doubles per element for
//    a variance), so blocks must hold many rows for it to cost little: 128 MiB by default.
// Medians of the repeats; every ratio from one run.
#include "../common/cli.hpp"

#include <chunkwise/accumulate.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

namespace acc = chunkwise::acc;
using clock_type = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F>
double seconds(F&& f) {
    const auto t0 = clock_type::now();
    f();
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// reduce over `states` against the loop; prints both and their ratio.
template <class State, class Check>
void time_reduce(const char* name, const std::vector<State>& states, int repeats, Check&& check) {
    chunkwise::serial_policy serial;
    std::vector<double> loop_t, tree_t;
    std::vector<std::size_t> idx(states.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    double sink = 0;
    for (int r = 0; r < repeats; ++r) {
        loop_t.push_back(seconds([&] {
            State total;
            for (const State& s : states) total.merge(s);
            sink += check(total);
        }));
        chunkwise::partial_results<State> partial(states.size(), idx, states);  // copied outside the timing
        tree_t.push_back(seconds([&] { sink += check(chunkwise::reduce(serial, std::move(partial))); }));
    }
    const double l = median(loop_t), t = median(tree_t);
    std::printf("  %-28s loop %8.4f s   reduce %8.4f s   reduce / loop %.2f   (%g)\n", name, l, t, t / l, sink);
}

}  // namespace

constexpr const char* usage =
    "usage: bench_combine [--blocks 1000000] [--repeats 5]\n"
    "                     [--file FILE.h5 [--dataset PATH] [--threads 1,2] [--block-mib 128]]\n";

int main(int argc, char** argv) try {
    bench_cli::args a(argc, argv, 1, {"blocks", "repeats", "file", "dataset", "threads", "block-mib"}, {});
    const std::size_t n = a.count("blocks", 1000000, 1);
    const int repeats = static_cast<int>(a.count("repeats", 5, 1));

    std::printf("reduce of %zu mergeable states (median of %d), against a serial loop of merges:\n", n, repeats);
    std::vector<acc::mean<>> means(n);
    std::vector<acc::variance<>> vars(n);
    std::vector<acc::histogram> hists(n, acc::histogram(0, 1, 32));
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            const double x = std::fmod(static_cast<double>(i * 3 + k) * 0.618033988749895, 1.0);
            means[i].add(x);
            vars[i].add(x);
            hists[i].add(x);
        }
    }
    time_reduce("acc::mean", means, repeats, [](const auto& s) { return s.value(); });
    time_reduce("acc::variance", vars, repeats, [](const auto& s) { return s.var(); });
    time_reduce("acc::histogram (32 bins)", hists, repeats, [](const auto& s) { return s.counts()[0]; });

    if (const std::string file = a.text("file", ""); !file.empty()) {
        const chunkwise::h5::dataset ds(file, a.text("dataset", "/particles/trajectory/position/value"));
        const std::size_t mib = a.count("block-mib", 128, 1);
        const auto blocks = chunkwise::h5::partition(ds, chunkwise::h5::block_bytes{mib << 20});
        std::printf(
            "element-wise variance of (atoms, 3) over %zu frames of %s, %zu blocks of up to %zu MiB "
            "(median of %d):\n",
            ds.shape()[0], file.c_str(), blocks.size(), mib, repeats);
        for (std::size_t threads : a.counts("threads", {1, 2}, 1)) {
            chunkwise::thread_policy pool(threads);
            std::vector<double> read_t, var_t;
            double sink = 0;
            for (int r = 0; r < repeats + 1; ++r) {  // the first round warms up
                const double tr = seconds([&] {
                    auto p = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                        thread_local chunkwise::h5::read_buffer<float> buf;
                        const auto x = ds.read<float, 3>(b, buf);
                        return static_cast<double>(x(0, 0, 0));
                    });
                    sink += chunkwise::reduce(pool, std::move(p), std::plus<>{});
                });
                const double tv = seconds([&] {
                    auto p = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                        thread_local chunkwise::h5::read_buffer<float> buf;
                        acc::variance<xt::xtensor<double, 2>> v;
                        v.add_rows(ds.read<float, 3>(b, buf));
                        return v;
                    });
                    sink += chunkwise::reduce(pool, std::move(p)).var()(0, 0);
                });
                if (r > 0) {
                    read_t.push_back(tr);
                    var_t.push_back(tv);
                }
            }
            const double tr = median(read_t), tv = median(var_t);
            std::printf(
                "  %zu thread(s): read alone %.4f s, read + variance %.4f s: %.2fx the speed of reading "
                "alone  (%g)\n",
                threads, tr, tv, tr / tv, sink);
        }
    }
    return 0;
} catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "bench_combine: %s\n%s", e.what(), usage);
    return 2;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_combine: %s\n", e.what());
    return 1;
}
