// docs/scaling.md: a user's own analysis wrapped in the strong-scaling harness.
#include <chunkwise/bench/plot.hpp>
#include <chunkwise/bench/scaling.hpp>
#include <chunkwise/chunkwise.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

int main() {
    const auto blocks = chunkwise::partition(4'000'000, chunkwise::parts{64});
    auto analysis = [](const chunkwise::block& b) {  // your per-block work
        double s = 0;
        for (std::size_t i = b.begin; i < b.end; ++i) s += std::sin(static_cast<double>(i));
        return s;
    };

    chunkwise::bench::scaling_options opt;
    opt.workload = "sum of sines";
    opt.workers = {1, 2};  // thread counts
    opt.repeats = 3;
    auto report = chunkwise::bench::strong_scaling(opt, [&](chunkwise::thread_policy& pool) {
        auto partial = chunkwise::map_blocks(pool, blocks, analysis);
        (void)chunkwise::reduce(pool, std::move(partial), std::plus<>{});
        return partial.stats();  // per-phase times, combine included
    });

    const auto dir = std::filesystem::temp_directory_path() / "chunkwise-scaling-example";
    report.write(dir);                                                     // scaling.json, scaling.csv
    const std::string plots = chunkwise::bench::write_plots(report, dir);  // "" or why not
    std::fprintf(stderr, "%s", report.table().c_str());                    // the table (timings vary)
    std::printf(
        "%zu points, Amdahl fitted: %s, files written: %s, plots: %s\n", report.points.size(),
        report.amdahl_fitted ? "yes" : "no",
        std::filesystem::exists(dir / "scaling.json") && std::filesystem::exists(dir / "scaling.csv") ? "yes" : "no",
        plots.empty() ? "drawn" : "not drawn");
    std::filesystem::remove_all(dir);
}
