// The scaling harness (<chunkwise/bench/scaling.hpp>, <chunkwise/bench/plot.hpp>): Karp-Flatt,
// the Amdahl fit, the report's JSON and CSV schema, strong_scaling, and bad input.
#include "catch.hpp"
#include "test_util.hpp"

#include <chunkwise/bench/plot.hpp>
#include <chunkwise/bench/scaling.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/detail/bench/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <variant>
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
        p.phases = {0.5, 1.0, 0.25, 0.125, 0.0, 0.0};
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
    REQUIRE(csv.rfind("workers,ranks,threads,repeats,mean_s,std_s,min_s,read_s,compute_s,wait_s,combine_s,other_s,"
                      "lock_s,speedup,efficiency,karp_flatt,baseline_workers,slowest_rank,slowest_host,imbalance,"
                      "lock_held_share,lock_bound_16,lock_bound_64,lock_bound_1024,interval_low_s,interval_high_s,stop,"
                      "read_bandwidth,core_hours,cpu_share,cpu_use,contended,load,steal\n"
                      "1,1,1,2,",
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
    // A time that is negative or not a number is refused when read (merge and predict alike).
    std::string json = r.json();
    const auto at = json.find("\"samples\": [") + 12;
    REQUIRE(at > 12);
    json.replace(at, json.find(',', at) - at, "-0.25");
    REQUIRE_THROWS_WITH(bench::scaling_report::from_json(json),
                        Catch::Matchers::Contains("a sample of -0.25 (times are finite and never negative)"));
    // Counts no run can have made are refused when read: 2^40 workers, -5 repeats, workers other
    // than ranks x threads.
    const auto edited = [&](const std::string& field, const std::string& value) {
        std::string j = r.json();
        const auto f = j.find("\"" + field + "\": ") + field.size() + 4;
        j.replace(f, j.find_first_of(",}", f) - f, value);
        return j;
    };
    REQUIRE_THROWS_WITH(
        bench::scaling_report::from_json(edited("workers", "1099511627776")),
        Catch::Matchers::Contains("has workers 1.09951e+12 (no run makes fewer than 1 or more than 2^20)"));
    REQUIRE_THROWS_WITH(bench::scaling_report::from_json(edited("repeats", "-5")),
                        Catch::Matchers::Contains("has repeats -5"));
    REQUIRE_THROWS_WITH(bench::scaling_report::from_json(edited("threads", "3")),
                        Catch::Matchers::Contains("ranks of 3 threads"));
}

TEST_CASE("the lock of the read path: its held share of the busy time and the Amdahl bound it implies", "[scaling]") {
    // Two ranks of two workers: 1 s busy each, of which 0.1 s (rank 0) and 0.3 s (rank 1) held.
    std::vector<chunkwise::run_stats> ranks(2);
    for (int r = 0; r < 2; ++r) {
        ranks[r].rank = r;
        ranks[r].host = "h" + std::to_string(r);
        ranks[r].workers.resize(2);
        for (auto& w : ranks[r].workers) {
            w.busy = 1.0;
            w.read = 0.5;
            w.lock_held = r == 0 ? 0.1 : 0.3;
            w.lock_wait = 0.05;
        }
    }
    bench::scaling_point p;
    p.workers = 4;
    p.ranks = 2;
    p.threads = 2;
    p.add_repeat(ranks, {1.2, 1.25});
    REQUIRE(p.lock_held_share == Approx(0.2));  // 0.8 s held of 4 s busy
    REQUIRE(p.lock_bound(16) == Approx(1.0 / (0.2 + 0.8 / 16)));
    REQUIRE(p.lock_bound(1024) == Approx(1.0 / (0.2 + 0.8 / 1024)));
    p.add_repeat(ranks, {1.2, 1.25});
    REQUIRE(p.lock_held_share == Approx(0.2));  // the mean over repeats
    bench::scaling_report r;
    r.workload = "locks";
    r.points = {p};
    r.finish();
    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    REQUIRE((*v["points"].as_array())[0]["lock_held_share"].number() == Approx(0.2));
    REQUIRE((*v["points"].as_array())[0]["lock_bound"]["64"].number() == Approx(1.0 / (0.2 + 0.8 / 64)));
    REQUIRE(bench::scaling_report::from_json(r.json()).points[0].lock_held_share == Approx(0.2));
    REQUIRE_THAT(r.table(), Contains("4: 20.00% (4.0, 4.7, 5)"));
    REQUIRE_THAT(r.csv(), Contains(",0.2,4,4.70588235,"));
}

TEST_CASE("strong_scaling runs a workload over thread counts and fills phases; bad input is refused",
          "[scaling][threads]") {
    const auto blocks = chunkwise::partition(2000000, chunkwise::parts{32});
    bench::scaling_options opt;
    opt.workload = "harmonic";
    opt.workers = {1, 2, 3};
    opt.repeats = 2;
    opt.precision = 0;  // exactly 2 repeats
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

TEST_CASE("the baseline rule: speedups only against a measured baseline, null where t(1) is needed",
          "[scaling][baseline]") {
    bench::scaling_report r;
    r.workload = "w";
    for (std::size_t n : {2u, 4u, 8u}) {
        bench::scaling_point p;
        p.workers = n;
        p.ranks = n;
        p.samples = {1.0 / static_cast<double>(n) + 0.1};
        r.points.push_back(p);
    }
    r.finish();
    REQUIRE(r.baseline_workers == 2);
    REQUIRE(r.points[0].speedup == 1.0);  // relative to itself, not "2.00" as if measured at 1 worker
    REQUIRE(r.points[1].speedup == Approx(0.6 / 0.35));
    REQUIRE(r.points[1].efficiency == Approx(r.points[1].speedup / 2));
    for (const auto& p : r.points) REQUIRE(std::isnan(p.karp_flatt));
    REQUIRE_FALSE(r.amdahl_fitted);
    REQUIRE_THAT(r.baseline_note, Contains("no run at 1 worker") && Contains("relative to 2 workers"));
    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    REQUIRE(v["baseline_workers"].number() == 2);
    REQUIRE_THAT(v["baseline_note"].string(), Contains("no run at 1 worker"));
    REQUIRE(v["amdahl"]["serial_fraction"].is_null());
    REQUIRE(v["amdahl"]["max_speedup"].is_null());
    REQUIRE_THAT(v["amdahl"]["note"].string(), Contains("need t(1)"));
    for (const auto& p : *v["points"].as_array()) REQUIRE(p["karp_flatt"].is_null());
    REQUIRE_THAT(r.table(), Contains("baseline: 2 workers (no run at 1 worker"));
    REQUIRE(r.csv().find("\n2,2,1,1,") != std::string::npos);
    REQUIRE(r.csv().find(",2,0,") != std::string::npos);  // baseline_workers column
    bench::predict(r);
    REQUIRE_FALSE(r.prediction.fitted);
    REQUIRE_THAT(r.prediction.note, Contains("no point at 1 worker"));
    REQUIRE_THROWS_WITH(bench::predict(r, true), Contains("no point at 1 worker"));
    // One launch of one rank count is a report of its own baseline: nothing assumed.
    bench::scaling_report one;
    one.points = {r.points[1]};
    one.finish();
    REQUIRE(one.baseline_workers == 4);
    REQUIRE(one.points[0].speedup == 1.0);
    REQUIRE_FALSE(one.amdahl_fitted);
}

namespace {
chunkwise::run_stats rank_stats(int rank, const char* host, std::vector<std::pair<double, double>> busy_read,
                                double wall, double combine) {
    chunkwise::run_stats s;
    s.rank = rank;
    s.host = host;
    s.wall = wall;
    for (auto [busy, read] : busy_read) {
        chunkwise::worker_stats w;
        w.busy = busy;
        w.read = read;
        w.wait = wall - busy;
        w.lock_held = read / 10;
        s.workers.push_back(w);
    }
    s.workers.front().combine = combine;
    return s;
}
}  // namespace

TEST_CASE("phases add up to the wall time, with the straggler, its host and the imbalance", "[scaling][phases]") {
    bench::scaling_point p;
    p.workers = 6;
    p.ranks = 3;
    p.threads = 2;
    for (int repeat = 0; repeat < 3; ++repeat) {
        const double slow = 0.8 + 0.01 * repeat;
        // Rank 1 on host b is the straggler; every rank's map_blocks ends together (1.0 s), rank 0
        // combines for 0.05 s, and each rank times its own repeat (the launch and barriers: other).
        const std::vector<chunkwise::run_stats> stats{rank_stats(0, "a", {{0.5, 0.1}, {0.4, 0.1}}, 1.0, 0.05),
                                                      rank_stats(1, "b", {{slow, 0.3}, {slow, 0.2}}, 1.0, 0.0),
                                                      rank_stats(2, "c", {{0.3, 0.1}, {0.35, 0.1}}, 1.0, 0.0)};
        p.add_repeat(stats, {1.2, 1.3 + 0.01 * repeat, 1.1});
    }
    REQUIRE(p.samples.size() == 3);
    REQUIRE(p.samples[1] == Approx(1.31));
    double mean = 0;
    for (double t : p.samples) mean += t / 3;
    // The critical path: rank 1's own read, compute and wait (per worker), its combine, and the rest.
    REQUIRE(p.phases.total() == Approx(mean).epsilon(1e-12));
    REQUIRE(p.phases.read == Approx(0.25));
    REQUIRE(p.phases.compute == Approx(0.81 - 0.25));
    REQUIRE(p.phases.wait == Approx(1.0 - 0.81));
    REQUIRE(p.phases.other == Approx(mean - 1.0));
    REQUIRE(p.phases.lock == Approx(0.025));
    REQUIRE(p.slowest_rank == 1);
    REQUIRE(p.slowest_host == "b");
    REQUIRE(p.hosts == 3);
    REQUIRE(p.per_rank.size() == 3);
    REQUIRE(p.per_rank[0].combine == Approx(0.05));
    const double mean_busy = (0.45 + 0.81 + 0.325) / 3;
    REQUIRE(p.imbalance == Approx(0.81 / mean_busy));
    bench::scaling_report r;
    r.workload = "three hosts";
    r.mode = "hybrid";
    r.points = {p};
    r.finish();
    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    const auto& j = (*v["points"].as_array())[0];
    REQUIRE(j["slowest"]["rank"].number() == 1);
    REQUIRE(j["slowest"]["host"].string() == "b");
    REQUIRE(j["imbalance"].number() == Approx(p.imbalance));
    REQUIRE(j["per_rank"].as_array()->size() == 3);
    for (const char* key : {"rank", "host", "threads", "busy", "read", "compute", "wait", "combine", "lock"}) {
        INFO(key);
        REQUIRE_FALSE((*j["per_rank"].as_array())[2][key].is_null());
    }
    double sum = 0;
    for (const char* key : {"read", "compute", "wait", "combine", "other"}) sum += j["phases"][key].number();
    REQUIRE(sum == Approx(j["seconds"]["mean"].number()).epsilon(0.02));
    const std::string ranks = r.ranks_csv();
    REQUIRE(ranks.rfind("workers,ranks,threads,rank,host,rank_threads,busy_s,read_s,compute_s,wait_s,combine_s,lock_s,"
                        "slowest,read_bytes\n",
                        0) == 0);
    REQUIRE(ranks.find("6,3,2,1,b,2,") != std::string::npos);
    REQUIRE_THAT(r.table(), Contains("1@b"));
    REQUIRE(r.csv().find(",1,b,") != std::string::npos);
    // Merged back from JSON: the same straggler and per-rank figures.
    const auto back = bench::scaling_report::from_json(r.json());
    REQUIRE(back.points[0].slowest_host == "b");
    REQUIRE(back.points[0].per_rank[1].busy == Approx(0.81));
    REQUIRE_THROWS_AS(p.add_repeat({}, {}), std::invalid_argument);
}

TEST_CASE("the per-phase model recovers known parameters and predicts; Amdahl and USL beside it", "[scaling][model]") {
    // Exact data from t(N) = 0.05 + 0.45/N + max(0.16/N, 0.064) + 0.005 g(N).
    for (bool log_growth : {false, true}) {
        INFO("g(N) = " << (log_growth ? "log2 N" : "N"));
        auto g = [&](double n) { return log_growth ? std::log2(n) : n; };
        std::vector<bench::model_point> pts;
        for (double n : {1.0, 2.0, 4.0}) {
            bench::model_point m;
            m.workers = n;
            m.compute = 0.45 / n;
            m.read = std::max(0.16 / n, 0.064);
            m.overhead = 0.05 + 0.005 * g(n);
            m.wall = m.compute + m.read + m.overhead;
            pts.push_back(m);
        }
        const auto m = bench::fit_phase_model(pts, 0.064);
        REQUIRE(m.t_serial == Approx(0.05).epsilon(0.01));
        REQUIRE(m.work == Approx(0.45).epsilon(0.01));
        REQUIRE(m.read_one == Approx(0.16).epsilon(0.01));
        REQUIRE(m.comm == Approx(0.005).epsilon(0.01));
        REQUIRE(m.log_growth == log_growth);
        REQUIRE(m.error < 1e-6);
        const double t16 = 0.05 + 0.45 / 16 + 0.064 + 0.005 * g(16);
        REQUIRE(m.time_at(16) == Approx(t16).epsilon(1e-6));
    }
    std::vector<bench::model_point> two(2);
    two[0].workers = 1;
    two[1].workers = 4;
    REQUIRE_THROWS_WITH(bench::fit_phase_model(two, 0), Contains("three worker counts") && Contains("1, 4"));

    // A report with points at 1, 2, 4: prediction, knee, break-even, the laws and their errors.
    bench::scaling_report r;
    r.workload = "model";
    r.bytes_read = 64.0 * 1048576;
    r.shared_bandwidth = 1000.0 * 1048576;
    for (std::size_t n : {1u, 2u, 4u}) {
        const double x = static_cast<double>(n);
        bench::scaling_point p;
        p.workers = p.threads = n;
        p.phases.compute = 0.45 / x;
        p.phases.read = std::max(0.16 / x, 0.064);
        p.phases.other = 0.05 + 0.005 * x;
        const double t = p.phases.total();
        p.samples = {t * 0.999, t, t * 1.001};  // known within ±0.25%
        r.points.push_back(p);
    }
    r.finish();
    bench::predict(r, true);
    const auto& q = r.prediction;
    REQUIRE(q.fitted);
    INFO(r.table());
    REQUIRE(q.chosen == "model");
    REQUIRE(q.confident);
    REQUIRE(q.reason.empty());
    REQUIRE(q.held_out_error < 0.15);
    REQUIRE(q.worker_bandwidth == Approx(400.0 * 1048576).epsilon(0.01));
    REQUIRE(q.points.front().workers == 8);
    REQUIRE(q.points.back().workers == 1024);
    const double t1 = 0.05 + 0.45 + 0.16 + 0.005;
    const double s16 = t1 / (0.05 + 0.45 / 16 + 0.064 + 0.08);
    REQUIRE(q.points[1].speedup == Approx(s16).epsilon(0.01));
    REQUIRE(q.knee >= 1);
    REQUIRE(q.break_even >= 1);
    REQUIRE(q.recommended == std::min(q.knee, q.break_even));
    REQUIRE(q.range_low <= q.recommended);
    REQUIRE(q.range_high >= q.recommended);
    REQUIRE(std::isnan(q.next_measurement));
    REQUIRE(q.amdahl.error > 0);
    REQUIRE(q.usl.error >= 0);
    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    REQUIRE(v["prediction"]["points"].as_array()->size() == 8);
    for (const char* key : {"knee", "break_even", "recommended_workers", "held_out_error"})
        REQUIRE_FALSE(v["prediction"][key].is_null());
    REQUIRE(v["prediction"]["chosen"].string() == "model");
    REQUIRE(v["prediction"]["reason"].is_null());
    REQUIRE(v["prediction"]["next_measurement"].is_null());
    REQUIRE(v["prediction"]["range"].as_array()->size() == 2);
    REQUIRE(v["points"].as_array()->front()["interval"].as_array()->size() == 2);
    for (const char* fit : {"model", "amdahl", "usl"}) REQUIRE_FALSE(v["prediction"]["fits"][fit]["error"].is_null());
    REQUIRE_THAT(r.table(), Contains("ask for"));
}

TEST_CASE("fit_usl recovers contention and coherency of exact data", "[scaling][model]") {
    const bench::usl_fit truth{0.03, 0.002, 10.0, 0, {}};
    std::vector<double> n{1, 2, 4, 8, 16}, t;
    for (double x : n) t.push_back(truth.time_at(x));
    const auto fit = bench::fit_usl(n, t);
    REQUIRE(fit.sigma == Approx(0.03).epsilon(1e-6));
    REQUIRE(fit.kappa == Approx(0.002).epsilon(1e-6));
    REQUIRE(fit.t1 == Approx(10.0).epsilon(1e-9));
    REQUIRE(fit.error < 1e-9);
    REQUIRE(fit.peak_workers() == Approx(std::sqrt(0.97 / 0.002)));
}

namespace {
/// A report of points at `counts`, each with three samples t(N) (1 - noise, 1, 1 + noise), all of
/// it in the compute phase.
bench::scaling_report report_of(const std::vector<std::size_t>& counts, double (*t)(double), double noise) {
    bench::scaling_report r;
    r.workload = "law";
    r.machine.cores = 1024;  // a large machine: the advice is not bounded by its cores
    for (std::size_t n : counts) {
        bench::scaling_point p;
        p.workers = p.threads = n;
        const double x = t(static_cast<double>(n));
        p.phases.compute = x;
        p.samples = {x * (1 - noise), x, x * (1 + noise)};
        r.points.push_back(p);
    }
    r.finish();
    return r;
}
}  // namespace

TEST_CASE("predict chooses the fit that predicts held-out points best", "[scaling][model]") {
    // Amdahl exactly, the serial part inside the compute phase (a lock in user code): the
    // per-phase model cannot see it; Amdahl predicts the held-out points without error.
    auto r = report_of(
        {1, 2, 4, 8}, [](double n) { return 0.4 * (0.1 + 0.9 / n); }, 0.001);
    bench::predict(r, true);
    const auto& q = r.prediction;
    INFO(r.table());
    REQUIRE(q.chosen == "amdahl");
    REQUIRE(q.amdahl_held_out < 1e-6);
    REQUIRE(q.model_held_out > q.amdahl_held_out);
    REQUIRE(q.held_out_error == q.amdahl_held_out);
    REQUIRE(q.points[1].workers == 16);
    REQUIRE(q.points[1].speedup == Approx(1 / (0.1 + 0.9 / 16)).epsilon(0.01));  // 6.4, not 14.4
    REQUIRE(q.confident);
    REQUIRE(q.recommended <= 16);
}

TEST_CASE("predict is honest when unsure: noise, poor held-out fits, bounds, oversubscription", "[scaling][model]") {
    SECTION("points within each other's noise") {
        auto r = report_of(
            {1, 2, 4}, [](double n) { return n == 1 ? 1.0 : 0.6; }, 0.05);
        bench::predict(r, true);
        const auto& q = r.prediction;
        REQUIRE_FALSE(q.confident);
        REQUIRE_THAT(q.reason, Contains("the points at 2 and 4 workers are within each other's noise"));
        REQUIRE(std::isnan(q.recommended));
        REQUIRE(q.next_measurement == 8);
        REQUIRE(q.range_low <= q.range_high);
        const auto v = chunkwise::detail::json_parser(r.json()).parse();
        REQUIRE(v["prediction"]["recommended_workers"].is_null());
        REQUIRE_FALSE(v["prediction"]["reason"].is_null());
        REQUIRE(v["prediction"]["next_measurement"].number() == 8);
        REQUIRE_THAT(r.table(), Contains("no single count") && Contains("measure 8 workers to decide"));
    }
    SECTION("a point of one sample: noise unknown") {
        auto r = report_of(
            {1, 2, 4}, [](double n) { return 1 / n; }, 0);
        r.points[1].samples = {0.5};
        r.finish();
        bench::predict(r, true);
        REQUIRE_FALSE(r.prediction.confident);
        REQUIRE_THAT(r.prediction.reason, Contains("has one sample"));
    }
    SECTION("no fit predicts the held-out point within 15%") {
        // Perfect scaling to 2, then slower at 4 and 8: none of the laws saw it coming.
        auto r = report_of(
            {1, 2, 4, 8}, [](double n) { return n <= 2 ? 1 / n : n / 8; }, 0.001);
        bench::predict(r, true);
        REQUIRE_FALSE(r.prediction.confident);
        REQUIRE_THAT(r.prediction.reason, Contains("the limit is 15%"));
        REQUIRE(r.prediction.next_measurement == 16);
    }
    SECTION("oversubscribed beyond --cores") {
        auto r = report_of(
            {1, 2, 4}, [](double n) { return 0.1 + 0.9 / n; }, 0.001);
        bench::predict(r, true, 2);
        REQUIRE_FALSE(r.prediction.confident);
        REQUIRE_THAT(r.prediction.reason, Contains("the point at 4 workers ran on 2 cores (oversubscribed)"));
    }
}

TEST_CASE("fits stay within physical bounds and say when a bound holds them", "[scaling][model]") {
    // Times that rise with N and level off: the free USL fit wants sigma = 2.5.
    const std::vector<double> n{1, 2, 4, 8}, t{1.0, 1.75, 2.125, 2.3125};
    const auto usl = bench::fit_usl(n, t);
    REQUIRE(usl.sigma >= 0);
    REQUIRE(usl.sigma <= 1);
    REQUIRE(usl.kappa >= 0);
    REQUIRE_THAT(usl.at_bound, Contains("sigma = 1"));
    const auto amdahl = bench::fit_amdahl(n, t);
    REQUIRE(amdahl.serial_fraction == 1.0);
    REQUIRE_THAT(amdahl.at_bound, Contains("serial_fraction = 1"));
    const std::vector<double> good{1.0, 0.55, 0.325, 0.2125};  // Amdahl, s = 0.1
    REQUIRE(bench::fit_usl(n, good).at_bound.empty());
    REQUIRE(bench::fit_amdahl(n, good).at_bound.empty());
    // Times that grow with N: a fit that describes them advises 1 worker; Karp-Flatt above 1 is
    // called what it is.
    auto r = report_of(
        {1, 2, 4}, [](double x) { return 0.8 + 0.2 * x; }, 0.001);
    bench::predict(r, true);
    INFO(r.table());
    REQUIRE_THAT(r.table(), Contains("note: Karp-Flatt 1.40 at 2 workers is above 1"));
    REQUIRE(r.prediction.recommended == 1);
}

TEST_CASE("predict in nodes: core-hours on whole nodes; a node size that does not divide is refused",
          "[scaling][model]") {
    auto r = report_of(
        {1, 2, 4, 8}, [](double n) { return 3600 * (0.05 + 0.95 / n); }, 0.001);
    bench::predict(r, true, 0, 4);
    const auto& q = r.prediction;
    REQUIRE(q.confident);
    REQUIRE(q.cores_per_node == 4);
    REQUIRE(q.recommended_nodes == std::ceil(q.recommended / 4));
    REQUIRE(r.points[0].core_hours == Approx(4 * r.points[0].mean / 3600));  // one whole node of 4 cores
    REQUIRE(r.points[3].core_hours == Approx(8 * r.points[3].mean / 3600));
    REQUIRE(q.points[0].core_hours == Approx(8 * q.points[0].seconds / 3600));
    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    REQUIRE(v["prediction"]["recommended_nodes"].number() == q.recommended_nodes);
    REQUIRE(v["points"].as_array()->back()["core_hours"].number() == Approx(r.points[3].core_hours));
    REQUIRE_THAT(r.table(), Contains("nodes of 4 cores"));
    REQUIRE_THROWS_WITH(bench::predict(r, true, 0, 3),
                        Contains("--cores-per-node 3 does not divide the point of 4 workers"));
}

TEST_CASE("merge refuses reports of different work, naming each field that differs", "[scaling]") {
    auto a = report_of(
        {1, 2}, [](double n) { return 1 / n; }, 0.01);
    auto b = report_of(
        {4}, [](double n) { return 1 / n; }, 0.01);
    a.fingerprint = {"chunkwise-bench rmsd", "rmsd", "--every 1", "/data/traj.h5", 1000, "chunked (1, 10, 3)"};
    b.fingerprint = a.fingerprint;
    REQUIRE(bench::scaling_report::merge({a, b}, {"A", "B"}).points.size() == 3);
    b.fingerprint.args = "--every 200";
    b.fingerprint.input_bytes = 2000;
    REQUIRE_THROWS_WITH(bench::scaling_report::merge({a, b}, {"A", "B"}),
                        Contains("A vs B differ in") && Contains("args: '--every 1' vs '--every 200'") &&
                            Contains("input.bytes: '1000' vs '2000'"));
    // The fingerprint survives JSON.
    const auto back = bench::scaling_report::from_json(b.json());
    REQUIRE(back.fingerprint.differences(b.fingerprint).empty());
}

TEST_CASE("per-host summary: ranks, threads, busy, read bytes and seconds, slowest rank", "[scaling][phases]") {
    bench::scaling_point p;
    p.workers = 6;
    p.ranks = 3;
    p.threads = 2;
    auto with_bytes = [](chunkwise::run_stats s, double bytes) {
        for (auto& w : s.workers) w.read_bytes = bytes;
        return s;
    };
    const std::vector<chunkwise::run_stats> all{with_bytes(rank_stats(0, "a", {{1.0, 0.5}, {1.0, 0.5}}, 1.2, 0), 100),
                                                with_bytes(rank_stats(1, "a", {{2.0, 0.5}, {2.0, 0.5}}, 2.2, 0), 200),
                                                with_bytes(rank_stats(2, "b", {{1.5, 1.0}, {1.5, 1.0}}, 1.7, 0), 300)};
    p.add_repeat(all, {1.2, 2.2, 1.7});
    REQUIRE(p.per_host.size() == 2);
    REQUIRE(p.per_host[0].host == "a");
    REQUIRE(p.per_host[0].ranks == 2);
    REQUIRE(p.per_host[0].threads == 4);
    REQUIRE(p.per_host[0].busy == Approx(1.5));
    REQUIRE(p.per_host[0].read == Approx(0.5));
    REQUIRE(p.per_host[0].read_bytes == Approx(600));
    REQUIRE(p.per_host[0].slowest_rank == 1);
    REQUIRE(p.per_host[1].host == "b");
    REQUIRE(p.per_host[1].read_bytes == Approx(600));
    REQUIRE(p.per_host[1].slowest_rank == 2);
    bench::scaling_report r;
    r.points.push_back(p);
    r.hosts_given = 3;
    r.finish();
    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    const auto& h = v["points"].as_array()->front()["per_host"];
    REQUIRE(h.as_array()->size() == 2);
    for (const char* key : {"host", "ranks", "threads", "busy", "read_bytes", "read", "slowest_rank"})
        REQUIRE_FALSE((*h.as_array())[0][key].is_null());
    REQUIRE_THAT(r.hosts_csv(), Contains("6,3,2,a,2,4,"));
    REQUIRE_THAT(r.table(), Contains("3 hosts were given, but the point of 3 ranks ran on 2"));
}

TEST_CASE("strong_scaling repeats until the mean is known, the budget runs out, or the most repeats", "[scaling]") {
    auto work = [](chunkwise::thread_policy& pool) {
        auto partial =
            chunkwise::map_blocks(pool, chunkwise::partition(8, chunkwise::parts{8}), [](const chunkwise::block& b) {
                chunkwise::count_read_bytes(1000);
                return static_cast<double>(b.begin);
            });
        (void)chunkwise::gather(pool, std::move(partial));
        return partial.stats();
    };
    bench::scaling_options opt;
    opt.workers = {1};
    opt.repeats = 2;
    opt.warmup = 0;
    opt.precision = 1e-12;  // never reached
    opt.max_repeats = 5;
    auto r = bench::strong_scaling(opt, work);
    REQUIRE(r.points[0].samples.size() == 5);
    REQUIRE(r.points[0].stop == "max repeats");
    REQUIRE(r.points[0].per_rank[0].read_bytes == Approx(8000));  // count_read_bytes, per run
    opt.budget_s = 1e-9;
    r = bench::strong_scaling(opt, work);
    REQUIRE(r.points[0].samples.size() == 2);  // the least, then the budget
    REQUIRE(r.points[0].stop == "budget");
    // Any two positive samples: their interval over their mean is 12.706 |a - b| / (a + b) < 12.706.
    opt.precision = 12.8;
    opt.budget_s = 0;
    r = bench::strong_scaling(opt, work);
    REQUIRE(r.points[0].stop == "precision");
    REQUIRE(r.points[0].samples.size() == 2);
    opt.precision = 0;
    r = bench::strong_scaling(opt, work);
    REQUIRE(r.points[0].stop == "fixed");
    opt.precision = -1;
    REQUIRE_THROWS_WITH(bench::strong_scaling(opt, work), Contains("precision and budget_s must be >= 0"));
}

namespace {

/// Processes that keep every core busy while it lives: other work on the machine.
class cpu_hog {
public:
    explicit cpu_hog(unsigned processes) {
        for (unsigned i = 0; i < processes; ++i) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                std::atomic<unsigned long> spins{0};
                for (;;) spins.fetch_add(1, std::memory_order_relaxed);
            }
            if (pid > 0) pids_.push_back(pid);
        }
        ::usleep(200000);  // the load average and the scheduler see them
    }
    cpu_hog(const cpu_hog&) = delete;
    cpu_hog& operator=(const cpu_hog&) = delete;
    ~cpu_hog() {
        for (pid_t pid : pids_) ::kill(pid, SIGKILL);
        for (pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
    }

private:
    std::vector<pid_t> pids_;
};

/// A user's CPU-bound analysis measured at 1 and 2 threads, exactly 3 repeats each.
bench::scaling_report sines_at_1_and_2() {
    const auto blocks = chunkwise::partition(12'000'000, chunkwise::parts{32});
    bench::scaling_options opt;
    opt.workload = "sum of sines";
    opt.workers = {1, 2};
    opt.precision = 0;
    opt.repeats = 5;
    return bench::strong_scaling(opt, [&](chunkwise::thread_policy& pool) {
        auto partial = chunkwise::map_blocks(pool, blocks, [](const chunkwise::block& b) {
            double s = 0;
            for (std::size_t i = b.begin; i < b.end; ++i) s += std::sin(static_cast<double>(i));
            return s;
        });
        (void)chunkwise::reduce(pool, std::move(partial), std::plus<>{});
        return partial.stats();
    });
}

}  // namespace

TEST_CASE("cpu_share: the scheduler's account of each worker; summarize averages it", "[scaling][contention]") {
    chunkwise::thread_policy pool(2);
    auto partial = chunkwise::map_blocks(pool, chunkwise::partition(2'000'000, chunkwise::parts{8}),
                                         [](const chunkwise::block& b) {
                                             double s = 0;
                                             for (std::size_t i = b.begin; i < b.end; ++i) s += std::sqrt(i * 1.0);
                                             return s;
                                         });
    const chunkwise::run_stats& st = partial.stats();
    for (const chunkwise::worker_stats& w : st.workers) {
        if (w.blocks == 0) continue;
        REQUIRE(w.cpu > 0);
        REQUIRE(w.cpu <= w.busy * 1.05 + 0.002);
        REQUIRE(w.run_delay >= 0);  // Linux keeps it (schedstat)
    }
    const auto sum = chunkwise::summarize(st);
    REQUIRE(sum.cpu_share > 0);
    REQUIRE(sum.cpu_share <= 1);

    chunkwise::worker_stats sleeper;  // slept most of its busy time, hardly kept waiting for a CPU
    sleeper.busy = 1;
    sleeper.cpu = 0.005;
    sleeper.run_delay = 0.005;
    REQUIRE(sleeper.cpu_share() == Approx(0.995));
    REQUIRE(std::isnan(chunkwise::worker_stats{}.cpu_share()));  // ran nothing
    chunkwise::worker_stats crowded;                             // waited for a CPU half of its busy time
    crowded.busy = 1;
    crowded.cpu = 0.5;
    crowded.run_delay = 0.5;
    REQUIRE(crowded.cpu_share() == 0.5);
    crowded.run_delay = std::numeric_limits<double>::quiet_NaN();  // no schedstat: cpu / busy
    REQUIRE(crowded.cpu_share() == 0.5);
}

TEST_CASE("contended points: named in the table, in no fit, no advice from fewer than three clean counts",
          "[scaling][contention]") {
    auto r = report_of(
        {1, 2, 4}, [](double n) { return 0.1 + 0.9 / n; }, 0.001);
    for (auto& p : r.points) p.cpu_share = 0.97;
    r.points[2].cpu_share = 0.48;
    r.points[2].load = 4.5;
    r.finish();
    REQUIRE(r.points[2].contended);
    REQUIRE_FALSE(r.points[1].contended);
    REQUIRE(r.amdahl_fitted);  // 1 and 2 are clean
    REQUIRE(r.amdahl.serial_fraction == Approx(0.1).margin(0.01));
    bench::predict(r, false, 1024);
    REQUIRE_FALSE(r.prediction.fitted);
    REQUIRE_THAT(r.prediction.note, Contains("1 of 3 points contended (at 4 workers): other work took the cores") &&
                                        Contains("no advice without three clean worker counts"));
    const std::string table = r.table();
    REQUIRE_THAT(table, Contains("contended: at 4 workers, workers got 0.48 of a core each: this point measures the "
                                 "machine, not the workload (load average 4.50"));
    REQUIRE_THAT(table, Contains("prediction: none (1 of 3 points contended"));
    REQUIRE_THROWS_WITH(bench::predict(r, true), Contains("points contended"));
    const auto v = chunkwise::detail::json_parser(r.json()).parse();
    REQUIRE(std::get<bool>(v["points"].as_array()->at(2)["contended"].v));
    REQUIRE(v["points"].as_array()->at(2)["cpu_share"].number() == 0.48);
    const auto back = bench::scaling_report::from_json(r.json());
    REQUIRE(back.points[2].contended);
    REQUIRE(back.points[2].load == 4.5);

    // The point at 1 worker contended: no fit at all, and the note says why.
    r.points[0].cpu_share = 0.6;
    r.finish();
    REQUIRE_FALSE(r.amdahl_fitted);
    REQUIRE_THAT(r.amdahl_note, Contains("2 of 3 points contended") && Contains("so no fit"));
    REQUIRE_THAT(r.table(),
                 Contains("Amdahl and USL fits: none (2 of 3 points contended") && !Contains("serial fraction"));

    // Stolen CPU time is contention too.
    auto s = report_of(
        {1, 2, 4, 8}, [](double n) { return 0.1 + 0.9 / n; }, 0.001);
    s.points[3].steal = 0.31;
    s.finish();
    REQUIRE(s.points[3].contended);
    REQUIRE_THAT(s.table(), Contains("at 8 workers, the hypervisor stole 31% of the CPU time"));
    bench::predict(s, false, 1024);  // three clean counts: fitted on them
    REQUIRE(s.prediction.fitted);
    REQUIRE_THAT(s.prediction.note, Contains("not fitted: 1 of 4 points contended"));
}

TEST_CASE("a busy machine: strong_scaling reports contention, no serial fraction and no advice", "[.contention-hog]") {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    bench::scaling_report r;
    {
        cpu_hog hog(cores + 1);  // more busy processes than cores
        r = sines_at_1_and_2();
    }
    INFO(r.table());
    for (const auto& p : r.points) {
        REQUIRE(p.cpu_share < bench::contended_cpu_share);
        REQUIRE(p.contended);
    }
    REQUIRE(r.machine.load >= 0);
    REQUIRE_FALSE(r.amdahl_fitted);
    REQUIRE_FALSE(r.prediction.fitted);
    const std::string table = r.table();
    REQUIRE_THAT(table, Contains("this point measures the machine, not the workload"));
    REQUIRE_THAT(table, !Contains("serial fraction") && !Contains("ask for"));
    REQUIRE_THAT(table, Contains("prediction: none (the model needs measured points at three worker counts") &&
                            Contains("; and 2 of 2 points contended (at 1 and 2 workers)"));
}

TEST_CASE("a quiet machine: the same run is clean and advises as before", "[.contention-quiet]") {
    const bench::scaling_report r = sines_at_1_and_2();
    INFO(r.table());
    for (const auto& p : r.points) {
        REQUIRE(p.cpu_share >= bench::contended_cpu_share);
        REQUIRE_FALSE(p.contended);
    }
    REQUIRE(r.amdahl_fitted);
    // A second worker gains: by 1.3-1.6x where the two cores of a virtual machine are one core's two
    // hardware threads on its host (1.36x seen), by about 2x on cores of their own.
    REQUIRE(r.points[1].speedup > 1.2);
    REQUIRE_THAT(r.table(), Contains("serial fraction") && !Contains("contended"));
    // Two counts: no prediction, and the table says why.
    REQUIRE_THAT(r.table(), Contains("prediction: none (") && Contains("three worker counts"));
}

TEST_CASE("strong_scaling advises by itself, within the cores of the machine", "[.advice-library]") {
    const auto blocks = chunkwise::partition(64, chunkwise::parts{64});
    bench::scaling_options opt;
    opt.workload = "sleepy";
    opt.workers = {1, 2, 4};
    opt.repeats = 3;
    opt.precision = 0;
    opt.cores = 2;  // --cores 2: no advice may ask for more than 2 workers
    const auto r = bench::strong_scaling(opt, [&](chunkwise::thread_policy& pool) {
        auto partial = chunkwise::map_blocks(pool, blocks, [](const chunkwise::block& b) {
            chunkwise::count_read_bytes(1000);
            ::usleep(2000);  // sleeps: nothing to judge of its CPU share
            return b.begin;
        });
        (void)chunkwise::gather(pool, std::move(partial));
        return partial.stats();
    });
    INFO(r.table());
    REQUIRE(r.bytes_read == 64000);  // the bytes the workers counted, on the library path
    REQUIRE(chunkwise::detail::json_parser(r.json()).parse()["io"]["bytes_read"].number() == 64000);
    REQUIRE(r.prediction.fitted);  // filled by strong_scaling
    REQUIRE(r.prediction.cores_per_host == 2);
    REQUIRE_FALSE(r.prediction.confident);  // 4 workers on 2 cores: oversubscribed
    REQUIRE(std::isnan(r.prediction.next_measurement));
    REQUIRE_THAT(r.prediction.next_note, Contains("measure 8 workers on a machine with at least 8 cores to decide"));
    REQUIRE_THAT(r.table(), Contains("on a machine with at least 8 cores") && !Contains("measure 8 workers to decide"));
    for (const auto& p : r.points) {
        REQUIRE(p.cpu_use < 0.5);  // the workers sleep: they hardly run on a CPU
        REQUIRE_FALSE(p.contended);
    }
}

TEST_CASE("every printed fit reproduces each point it was fitted to within its stated error", "[scaling][model]") {
    {  // read time without bytes counted: the printed read cap is the fitted one
        auto r = report_of(
            {1, 2, 4, 8}, [](double n) { return 0.1 + 0.9 / n; }, 0.01);
        for (auto& p : r.points) {
            p.phases.read = std::max(0.3 / static_cast<double>(p.workers), 0.12);
            p.phases.compute = p.mean - p.phases.read;
        }
        bench::predict(r, false, 0);
        REQUIRE(r.bytes_read == 0);
        REQUIRE(r.prediction.read_cap > 0);
        char cap[32];
        std::snprintf(cap, sizeof cap, "/N, %.4f)", r.prediction.read_cap);
        REQUIRE_THAT(r.table(), Contains(std::string(cap)));
    }
    const std::vector<double (*)(double)> laws{[](double n) { return 0.1 + 0.9 / n; },
                                               [](double n) { return 0.2 + 0.8 / n + 0.01 * n; },
                                               [](double n) { return n <= 2 ? 1 / n : n / 8; }};
    for (auto law : laws) {
        auto r = report_of({1, 2, 4, 8}, law, 0.01);
        bench::predict(r, false, 0);
        const std::string table = r.table();
        INFO(table);
        const auto& q = r.prediction;
        REQUIRE(q.fitted);
        const auto model_line = table.find("model: t(N) = ");
        if (model_line != std::string::npos) {
            double ts = 0, w = 0, r1 = 0, cap = 0, c = 0, stated = 0;
            char growth[16] = {};
            REQUIRE(std::sscanf(table.c_str() + model_line,
                                "model: t(N) = %lf + %lf/N + read max(%lf/N, %lf) + %lf*%15[^ ]", &ts, &w, &r1, &cap,
                                &c, growth) == 6);
            const auto within = table.find("every point within ", model_line);
            REQUIRE(std::sscanf(table.c_str() + within, "every point within %lf%%", &stated) == 1);
            for (const auto& p : r.points) {
                const double n = static_cast<double>(p.workers);
                const double g = std::string(growth) == "N" ? n : std::log2(n);
                const double t = ts + w / n + std::max(r1 / n, cap) + c * g;
                REQUIRE(std::fabs(t - p.mean) / p.mean <= stated / 100 + 0.002);  // printed to 4 places
            }
        } else {
            REQUIRE_THAT(table, Contains("model: off by"));
            REQUIRE(q.model_error > 0.15);
        }
        for (const char* fit : {"Amdahl fit: serial fraction", "USL fit: contention"}) {
            const auto at = table.find(fit);
            if (at == std::string::npos) continue;
            const auto within = table.find("every point within ", at);
            double stated = 0;
            REQUIRE(std::sscanf(table.c_str() + within, "every point within %lf%%", &stated) == 1);
            REQUIRE(stated <= 15.0);
            for (const auto& p : r.points) {
                const double n = static_cast<double>(p.workers);
                const double t = std::string(fit).starts_with("Amdahl") ? r.amdahl.time_at(n) : r.usl.time_at(n);
                REQUIRE(std::fabs(t - p.mean) / p.mean <= stated / 100 + 0.001);
            }
        }
    }
    // A fit at its bound is not printed as a finding; nor a USL peak below one worker.
    auto rising = report_of(
        {1, 2, 4}, [](double n) { return 0.5 + 0.1 * n; }, 0.001);
    const std::string t = rising.table();
    REQUIRE_THAT(t, Contains("Amdahl fit: held at a bound (serial_fraction = 1") && Contains("not a finding"));
    REQUIRE_THAT(t, !Contains("peak at 0 workers") && !Contains("peak at none"));
    // Times that fall faster than 1/N: the serial fraction at its bound 0 is printed, saying so.
    auto superlinear = report_of(
        {1, 2, 4}, [](double n) { return n == 1 ? 1.0 : 0.95 / n; }, 0.001);
    REQUIRE_THAT(superlinear.table(), Contains("Amdahl fit: serial fraction 0.0000") &&
                                          Contains("(serial_fraction = 0: the times fall faster than 1/N)"));
}

TEST_CASE("the speedup plot's worker ticks are whole numbers", "[scaling]") {
    auto r = report_of(
        {1, 2}, [](double n) { return 1 / n; }, 0.001);
    const std::string script = chunkwise::detail::plot_script(r, "/tmp");
    REQUIRE_THAT(script, Contains("set xtics 0, 1\n"));
    auto big = report_of(
        {1, 2, 4, 8, 16, 32}, [](double n) { return 0.05 + 0.95 / n; }, 0.001);
    bench::predict(big, false, 0);
    REQUIRE_THAT(chunkwise::detail::plot_script(big, "/tmp"), Contains("set xtics 0, ") && !Contains("set xtics 0, 0"));
}
