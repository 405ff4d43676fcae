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
    opt.workers = {1, 2, 4};  // thread counts: three or more, one of them 1, for a prediction
    opt.budget_s = 10;        // repeats until each mean is known within ±3%, at most 10 s per count
    auto report = chunkwise::bench::strong_scaling(opt, [&](chunkwise::thread_policy& pool) {
        auto partial = chunkwise::map_blocks(pool, blocks, analysis);
        (void)chunkwise::reduce(pool, std::move(partial), std::plus<>{});
        return partial.stats();  // per-phase times, combine included
    });

    const auto dir = std::filesystem::temp_directory_path() / "chunkwise-scaling-example";
    report.write(dir);                                                     // scaling.json, scaling.csv
    const std::string plots = chunkwise::bench::write_plots(report, dir);  // "" or why not
    std::fprintf(stderr, "%s", report.table().c_str());  // the table, with the advice or why there is none
    const chunkwise::bench::prediction_report& advice = report.prediction;  // filled by strong_scaling
    std::size_t contended = 0;
    for (const auto& p : report.points) contended += p.contended ? 1 : 0;  // other work took the cores
    std::fprintf(stderr, "advice: %s\n",
                 advice.confident
                     ? ("ask for " + std::to_string(static_cast<int>(advice.recommended)) + " workers").c_str()
                 : advice.fitted ? ("not one count: " + advice.reason).c_str()
                                 : ("none: " + advice.note).c_str());
    std::fprintf(stderr, "%zu of %zu points contended\n", contended, report.points.size());
    std::printf(
        "%zu points, a prediction or why not: %s, files written: %s, plots: %s\n", report.points.size(),
        advice.fitted || !advice.note.empty() ? "yes" : "no",
        std::filesystem::exists(dir / "scaling.json") && std::filesystem::exists(dir / "scaling.csv") ? "yes" : "no",
        plots.empty() ? "drawn" : "not drawn");
    std::filesystem::remove_all(dir);
}
