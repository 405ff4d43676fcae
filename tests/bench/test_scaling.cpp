// The scaling harness (<chunkwise/bench/scaling.hpp>, <chunkwise/bench/plot.hpp>): Karp-Flatt,
// the Amdahl fit, the report's JSON and CSV schema, strong_scaling, and bad input.
#include "catch.hpp"
#include "test_util.hpp"

#include <chunkwise/bench/plot.hpp>
#include <chunkwise/bench/scaling.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/detail/bench/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace bench = chunkwise::bench;
using Catch::Matchers::Contains;

TEST_CASE("karp_flatt: (1/S - 1/N) / (1 - 1/N); NaN at one worker", "[scaling]") {
    REQUIRE(bench::karp_flatt(4.0, 4.0) == 0.0);          // ideal: no serial part
    REQUIRE(bench::karp_flatt(1.0, 8.0) == Approx(1.0));  // no speedup: all serial
    REQUIRE(bench::karp_flatt(2.0, 4.0) == Approx(1.0 / 3.0));
    // Exact Amdahl data with serial fraction s gives e = s at every N.
    for (double n : {2.0, 3.0, 16.0, 112.0}) {
        const double s = 0.07, speedup = 1.0 / (s + (1 - s) / n);
        REQUIRE(bench::karp_flatt(speedup, n) == Approx(s).epsilon(1e-12));
    }
    REQUIRE(std::isnan(bench::karp_flatt(1.0, 1.0)));
}

TEST_CASE("fit_amdahl recovers the serial fraction of exact data; clamps; refuses too few points", "[scaling]") {
    for (double s : {0.0, 0.013, 0.1, 0.5, 0.9, 1.0}) {
        std::vector<double> n, t;
        for (double w : {1.0, 2.0, 4.0, 8.0, 16.0, 112.0}) {
            for (int repeat = 0; repeat < 2; ++repeat) {  // repeats repeat N
                n.push_back(w);
                t.push_back(12.5 * (s + (1 - s) / w));
            }
        }
        const auto fit = bench::fit_amdahl(n, t);
        INFO("s = " << s);
        REQUIRE(std::fabs(fit.serial_fraction - s) < 1e-9);
        REQUIRE(fit.t1 == Approx(12.5).epsilon(1e-12));
        if (s == 0) {
            REQUIRE(std::isinf(fit.max_speedup));
        } else {
            REQUIRE(fit.max_speedup == Approx(1 / s));
        }
        REQUIRE(fit.speedup_at(16) == Approx(1 / (s + (1 - s) / 16)));
        REQUIRE(fit.time_at(4) == Approx(12.5 * (s + (1 - s) / 4)));
    }
    // Superlinear data: s clamped to 0; slower with more workers: s clamped to 1.
    const std::vector<double> n{1, 2, 4}, fast{1.0, 0.4, 0.15}, slow{1.0, 1.2, 1.5};
    REQUIRE(bench::fit_amdahl(n, fast).serial_fraction == 0.0);
    REQUIRE(bench::fit_amdahl(n, slow).serial_fraction == 1.0);
    REQUIRE(bench::fit_amdahl(n, slow).max_speedup == 1.0);
    const std::vector<double> one{2, 2, 2}, t3{1, 1.1, 0.9};
    REQUIRE_THROWS_AS(bench::fit_amdahl(one, t3), std::invalid_argument);
    REQUIRE_THROWS_WITH(bench::fit_amdahl(one, t3), Contains("two distinct worker counts"));
    REQUIRE_THROWS_AS(bench::fit_amdahl(n, std::vector<double>{1, 2}), std::invalid_argument);
    REQUIRE_THROWS_AS(bench::fit_amdahl(n, std::vector<double>{1, 0, 2}), std::invalid_argument);
}

TEST_CASE("the report's JSON and CSV follow the documented schema", "[scaling]") {
    bench::scaling_report r;
    r.workload = "rmsd \"quoted\"";
    for (std::size_t n : {4u, 1u, 2u}) {  // out of order: finish() sorts
        bench::scaling_point p;
        p.workers = p.threads = n;
        p.samples = {8.0 * (0.1 + 0.9 / n), 8.0 * (0.1 + 0.9 / n) * 1.01};
        p.phases = {0.5, 1.0, 0.25, 0.125};
        r.points.push_back(p);
    }
    r.finish();
    REQUIRE(r.points.front().workers == 1);
    REQUIRE(r.points[1].speedup == Approx(1.0 / (0.1 + 0.45)));
    REQUIRE(r.points[2].efficiency == Approx(r.points[2].speedup / 4));
    REQUIRE(r.amdahl_fitted);
    REQUIRE(r.amdahl.serial_fraction == Approx(0.1).margin(0.01));

    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    REQUIRE(v["workload"].string() == "rmsd \"quoted\"");
    REQUIRE(v["mode"].string() == "threads");
    REQUIRE(!v["machine"]["host"].string().empty());
    REQUIRE(!v["machine"]["cpu"].string().empty());
    REQUIRE(v["machine"]["cores"].number() >= 1);
    REQUIRE(v["chunkwise_version"].string() == chunkwise::version_string);
    const auto* points = v["points"].as_array();
    REQUIRE(points != nullptr);
    REQUIRE(points->size() == 3);
    for (const char* key : {"workers", "ranks", "threads", "repeats", "speedup", "efficiency"}) {
        INFO(key);
        REQUIRE_FALSE((*points)[1][key].is_null());
    }
    REQUIRE((*points)[0]["karp_flatt"].is_null());  // NaN at one worker: null in JSON
    REQUIRE((*points)[2]["karp_flatt"].number() == Approx(r.points[2].karp_flatt));
    for (const char* key : {"mean", "std", "min"}) REQUIRE_FALSE((*points)[2]["seconds"][key].is_null());
    for (const char* key : {"read", "compute", "wait", "combine"}) REQUIRE_FALSE((*points)[2]["phases"][key].is_null());
    REQUIRE((*points)[2]["phases"]["combine"].number() == 0.125);
    REQUIRE(v["amdahl"]["serial_fraction"].number() == Approx(r.amdahl.serial_fraction));
    REQUIRE(v["amdahl"]["max_speedup"].number() == Approx(r.amdahl.max_speedup));

    const std::string csv = r.csv();
    REQUIRE(csv.rfind("workers,ranks,threads,repeats,mean_s,std_s,min_s,read_s,compute_s,wait_s,combine_s,speedup,"
                      "efficiency,karp_flatt\n1,1,1,2,",
                      0) == 0);
    REQUIRE(std::count(csv.begin(), csv.end(), '\n') == 4);

    // Read back and merged with a run made apart (another rank count): one report.
    const auto back = bench::scaling_report::from_json(r.json());
    REQUIRE(back.points.size() == 3);
    REQUIRE(back.points[2].samples == r.points[2].samples);
    bench::scaling_report ranks = back;
    ranks.mode = "mpi";
    ranks.points = {back.points[1]};
    ranks.points[0].ranks = 2;
    ranks.points[0].threads = 1;
    const auto merged = bench::scaling_report::merge({bench::scaling_report::from_json(r.json()), ranks});
    REQUIRE(merged.points.size() == 4);
    REQUIRE(merged.mode == "hybrid");
    REQUIRE_THROWS_AS(bench::scaling_report::from_json("{\"no\": 1}"), chunkwise::error);
    REQUIRE_THROWS_AS(bench::scaling_report::from_json("not json"), chunkwise::error);
}

TEST_CASE("strong_scaling runs a workload over thread counts and fills phases; bad input is refused",
          "[scaling][threads]") {
    const auto blocks = chunkwise::partition(2000000, chunkwise::parts{32});
    bench::scaling_options opt;
    opt.workload = "harmonic";
    opt.workers = {1, 2, 3};
    opt.repeats = 2;
    std::size_t calls = 0;
    const auto report = bench::strong_scaling(opt, [&](chunkwise::thread_policy& pool) {
        ++calls;
        auto partial = chunkwise::map_blocks(pool, blocks, [](const chunkwise::block& b) {
            double s = 0;
            {
                chunkwise::read_scope reading;  // pretend the first half is I/O
                for (std::size_t i = b.begin; i < (b.begin + b.end) / 2; ++i) s += 1.0 / static_cast<double>(i + 1);
            }
            for (std::size_t i = (b.begin + b.end) / 2; i < b.end; ++i) s += 1.0 / static_cast<double>(i + 1);
            return s;
        });
        (void)chunkwise::reduce(pool, std::move(partial), [](double a, double b) { return a + b; });
        return partial.stats();
    });
    REQUIRE(calls == 3 * (1 + 2));  // warm-up + repeats per count
    REQUIRE(report.points.size() == 3);
    for (const auto& p : report.points) {
        REQUIRE(p.samples.size() == 2);
        REQUIRE(p.phases.read > 0);
        REQUIRE(p.phases.compute > 0);
        REQUIRE(p.phases.combine > 0);
    }
    REQUIRE(report.points[0].speedup == 1.0);

    auto nothing = [](chunkwise::thread_policy&) {};
    bench::scaling_options bad = opt;
    bad.workers = {1, 0, 2};
    REQUIRE_THROWS_WITH(bench::strong_scaling(bad, nothing), Contains("a worker count of 0"));
    bad.workers = {};
    REQUIRE_THROWS_WITH(bench::strong_scaling(bad, nothing), Contains("no worker counts"));
    bad.workers = {1};
    bad.repeats = 0;
    REQUIRE_THROWS_AS(bench::strong_scaling(bad, nothing), std::invalid_argument);
    bad.repeats = 1;
    const auto timed_only = bench::strong_scaling(bad, nothing);  // a workload without statistics: timed only
    REQUIRE(timed_only.points[0].phases.compute == 0);
    REQUIRE_FALSE(timed_only.amdahl_fitted);
}

TEST_CASE("report files: written where asked, a clear error where they cannot be; plots or why not", "[scaling]") {
    const auto dir = std::filesystem::temp_directory_path() / ("chunkwise-scaling-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    bench::scaling_report r;
    r.workload = "w";
    for (std::size_t n : {1u, 2u}) {
        bench::scaling_point p;
        p.workers = p.threads = n;
        p.samples = {1.0 / static_cast<double>(n) + 0.1};
        r.points.push_back(p);
    }
    r.finish();
    r.write(dir / "out");
    REQUIRE(std::filesystem::exists(dir / "out" / "scaling.json"));
    REQUIRE(std::filesystem::exists(dir / "out" / "scaling.csv"));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "a-file") << "x";
    REQUIRE_THROWS_WITH(r.write(dir / "a-file" / "sub"),
                        Contains("cannot create the output folder") && Contains("a-file"));

    const std::string plots = bench::write_plots(r, dir / "out");
    if (chunkwise::detail::find_gnuplot().empty()) {
        REQUIRE_THAT(plots, Contains("gnuplot was not found"));
    } else {
        REQUIRE(plots.empty());
        REQUIRE(std::filesystem::file_size(dir / "out" / "speedup.png") > 1000);
        REQUIRE(std::filesystem::file_size(dir / "out" / "phases.png") > 1000);
    }
    const char* path = std::getenv("PATH");
    const std::string saved = path != nullptr ? path : "";
    ::setenv("PATH", "/nonexistent", 1);
    REQUIRE_THAT(bench::write_plots(r, dir / "out"), Contains("gnuplot was not found on PATH"));
    ::setenv("PATH", saved.c_str(), 1);
    std::filesystem::remove_all(dir);
}
