// Production runs: collect, failure manifests, checkpoints (resume, stale and corrupt files,
// SIGKILL at random moments), logs and progress, over every std-only policy.
#include "catch.hpp"
#include "test_util.hpp"
#include "policies.hpp"

#include <chunkwise/chunkwise.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using chunkwise::block;
using chunkwise::parts;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
    const auto dir = fs::temp_directory_path() / ("chunkwise-run-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

using test::read_text;
using test::value_of;
// A user type with its own checkpoint_traits.
struct summary {
    double mean = 0;
    std::string label;
    friend bool operator==(const summary&, const summary&) = default;
};

}  // namespace

template <>
struct chunkwise::checkpoint_traits<summary> {
    static std::string type_name() { return "test.summary/1"; }
    static void save(const summary& s, std::string& out) {
        out.append(reinterpret_cast<const char*>(&s.mean), sizeof s.mean);
        out += s.label;
    }
    static summary load(std::string_view in) {
        summary s;
        std::memcpy(&s.mean, in.data(), sizeof s.mean);
        s.label = std::string(in.substr(sizeof s.mean));
        return s;
    }
};

TEMPLATE_TEST_CASE("collect: every block runs, failures are reported and skipped", "[run_options]",
                   CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    const auto blocks = chunkwise::partition(100, parts{10});
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    std::atomic<int> ran{0};
    auto fn = [&](const block& b) {
        ++ran;
        if (b.index == 3 || b.index == 7) throw std::runtime_error("bad subset " + std::to_string(b.index));
        return value_of(b);
    };
    auto r = chunkwise::map_blocks(policy, blocks, fn, opt);
    REQUIRE(ran.load() == 10);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.failures().size() == 2);
    REQUIRE(r.failures()[0].index == 3);
    REQUIRE(r.failures()[0].block == "items [30, 40)");
    REQUIRE(r.failures()[0].rank == 0);
    REQUIRE(r.failures()[0].message == "bad subset 3");
    REQUIRE(std::regex_match(r.failures()[0].time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
    REQUIRE(r.failures()[1].index == 7);
    REQUIRE(r.failed_positions() == std::vector<std::size_t>{3, 7});
    REQUIRE(chunkwise::gather_failures(policy, r) == r.failures());
    REQUIRE(r.indices() == std::vector<std::size_t>{0, 1, 2, 4, 5, 6, 8, 9});
    const auto values = chunkwise::gather(policy, std::move(r));
    REQUIRE(values.size() == 8);
    REQUIRE(values[3] == value_of(blocks[4]));  // failed blocks are left out, order kept
}

TEMPLATE_TEST_CASE("collect: reduce treats failed blocks as absent leaves of the same tree", "[run_options]",
                   CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    const auto blocks = chunkwise::partition(5, parts{5});
    auto text = chunkwise::reduce(policy,
                                  chunkwise::map_blocks(policy, blocks,
                                                        [](const block& b) {
                                                            if (b.index == 2) throw std::runtime_error("x");
                                                            return std::to_string(b.index);
                                                        },
                                                        opt),
                                  [](const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; });
    REQUIRE(text == "(((0 1) 3) 4)");
}

TEST_CASE("failure manifests round-trip and select exactly the failed blocks", "[run_options]") {
    const auto dir = scratch("manifest");
    std::vector<chunkwise::failure> f{{3, "items [30, 40)", 0, "plain message", "2026-11-22T10:00:00.000Z"},
                                      {7, "file, with \"quotes\"", 2, "line one\nline two, with comma", "t"}};
    chunkwise::write_failure_manifest(dir / "failed.csv", f);
    REQUIRE(chunkwise::read_failure_manifest(dir / "failed.csv") == f);
    REQUIRE(read_text(dir / "failed.csv").rfind("index,block,rank,time,message\n3,\"items [30, 40)\",0,", 0) == 0);

    const auto blocks = chunkwise::partition(100, parts{10});
    const auto again = chunkwise::select_failed(blocks, f);
    REQUIRE(again == std::vector<block>{blocks[3], blocks[7]});
    // A re-run of just those keeps their numbers.
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    auto r = chunkwise::map_blocks(serial, again, [](const block& b) -> int {
        if (b.index == 7) throw std::runtime_error("still bad");
        return 1;
    }, opt);
    REQUIRE(r.failures().size() == 1);
    REQUIRE(r.failures()[0].index == 7);

    const std::vector<std::string> files{"a.dat", "file, with \"quotes\"", "c.dat"};
    REQUIRE(chunkwise::select_failed(files, f) == std::vector<std::string>{"file, with \"quotes\""});

    REQUIRE_THROWS_WITH(chunkwise::read_failure_manifest(dir / "missing.csv"),
                        Catch::Matchers::Contains("cannot read") && Catch::Matchers::Contains("missing.csv"));
    std::ofstream(dir / "bad.csv") << "not,a,manifest\n";
    REQUIRE_THROWS_WITH(chunkwise::read_failure_manifest(dir / "bad.csv"), Catch::Matchers::Contains("not a failure manifest"));
    std::ofstream(dir / "bad2.csv") << "index,block,rank,time,message\nx,y,z,t,m\n";
    REQUIRE_THROWS_WITH(chunkwise::read_failure_manifest(dir / "bad2.csv"), Catch::Matchers::Contains("record 2"));
    for (const char* index : {"-1", "12abc", " 3", "99999999999999999999999"}) {
        INFO(index);
        std::ofstream(dir / "bad3.csv") << "index,block,rank,time,message\n" << index << ",b,0,t,m\n";
        REQUIRE_THROWS_AS(chunkwise::read_failure_manifest(dir / "bad3.csv"), chunkwise::manifest_error);
    }
    std::ofstream(dir / "bad4.csv") << "index,block,rank,time,message\n3,b,-2,t,m\n";
    REQUIRE_THROWS_WITH(chunkwise::read_failure_manifest(dir / "bad4.csv"), Catch::Matchers::Contains("record 2"));
    REQUIRE_THROWS_AS(chunkwise::read_failure_manifest(dir / "bad4.csv"), chunkwise::error);  // the common base
    fs::remove_all(dir);
}

TEST_CASE("one identity for blocks of every kind: logs, failures, checkpoints and select_failed agree", "[run_options]") {
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    // Items of a std::vector<int> (or std::views::iota): named "item V", re-selected by name.
    const std::vector<int> items{10, 11, 12, 13, 14};
    auto r = chunkwise::map_blocks(serial, items, [](int v) -> int {
        if (v % 2 == 1) throw std::runtime_error("odd");
        return v;
    }, opt);
    REQUIRE(r.failures().size() == 2);
    REQUIRE(r.failures()[0].block == "item 11");
    REQUIRE(r.failures()[0].index == 1);
    REQUIRE(chunkwise::select_failed(items, r.failures()) == std::vector<int>{11, 13});
    const std::vector<int> reordered{13, 12, 11};
    REQUIRE(chunkwise::select_failed(reordered, r.failures()) == std::vector<int>{13, 11});

    // Elements chunkwise cannot describe are named by position, and each gets its own checkpoint
    // (they once all shared the checkpoint of an empty description).
    struct opaque {
        int payload;
    };
    const std::vector<opaque> things{{1}, {2}, {3}};
    const auto dir = scratch("identity");
    chunkwise::run_options ck;
    ck.checkpoint = dir / "ck";
    auto first = chunkwise::gather(serial, chunkwise::map_blocks(serial, things, [](const opaque& o) { return o.payload * 10; }, ck));
    REQUIRE(first == std::vector<int>{10, 20, 30});
    int computed = 0;
    auto second = chunkwise::gather(serial, chunkwise::map_blocks(serial, things, [&](const opaque& o) {
                                        ++computed;
                                        return o.payload * 10;
                                    }, ck));
    REQUIRE(second == std::vector<int>{10, 20, 30});
    REQUIRE(computed == 0);
    std::vector<chunkwise::failure> by_position{{1, "", 0, "m", "t"}};
    REQUIRE(chunkwise::select_failed(things, by_position).size() == 1);
    REQUIRE(chunkwise::select_failed(things, by_position)[0].payload == 2);
    fs::remove_all(dir);
}

TEMPLATE_TEST_CASE("checkpoint: a re-run loads every block, computes nothing, same bits", "[run_options][checkpoint]",
                   CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    const auto dir = scratch("ckpt");
    chunkwise::run_options opt;
    opt.checkpoint = dir / "ckpt";
    const auto blocks = chunkwise::partition(1000, parts{37});
    std::atomic<int> calls{0};
    auto fn = [&](const block& b) {
        ++calls;
        std::vector<double> v;
        for (std::size_t i = b.begin; i < b.end; ++i) v.push_back(std::sin(double(i)) * 1e-3);
        return v;
    };
    const auto first = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, fn, opt));
    REQUIRE(calls.load() == 37);
    auto second_partial = chunkwise::map_blocks(policy, blocks, fn, opt);
    REQUIRE(calls.load() == 37);  // nothing recomputed
    REQUIRE(second_partial.stats().from_checkpoint == 37);
    REQUIRE(chunkwise::gather(policy, std::move(second_partial)) == first);

    // A different partition never reuses stale results: only block 0, which covers the same
    // items [0, 28) in both partitions, is loaded; the 35 others differ in range and are recomputed.
    const auto other = chunkwise::partition(1000, parts{36});
    REQUIRE(other[0] == blocks[0]);
    const auto third = chunkwise::gather(policy, chunkwise::map_blocks(policy, other, fn, opt));
    REQUIRE(calls.load() == 37 + 35);
    REQUIRE(third == chunkwise::gather(policy, chunkwise::map_blocks(policy, other, fn)));
    // A different result type for the same blocks is not loaded either.
    calls = 0;
    (void)chunkwise::map_blocks(policy, other, [&](const block& b) { ++calls; return float(b.size()); }, opt);
    REQUIRE(calls.load() == 36);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: corrupt, truncated and half-written files are never used", "[run_options][checkpoint]") {
    const auto dir = scratch("corrupt");
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(40, parts{4});
    std::atomic<int> calls{0};
    auto fn = [&](const block& b) { ++calls; return value_of(b); };
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
    // Block 1: one flipped byte. Block 2: cut short. Leftover temporary file: ignored.
    {
        std::fstream f(dir / "block-1.ckpt", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-9, std::ios::end);
        f.put('\x7f');
    }
    fs::resize_file(dir / "block-2.ckpt", fs::file_size(dir / "block-2.ckpt") - 3);
    std::ofstream(dir / ".block-3.tmp.999.0") << "half written";
    calls = 0;
    const auto again = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
    REQUIRE(calls.load() == 2);  // blocks 1 and 2 recomputed, 0 and 3 loaded
    REQUIRE(again == expect);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: fail-fast keeps finished blocks; the fixed re-run computes the rest", "[run_options][checkpoint]") {
    const auto dir = scratch("failfast");
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(10, parts{10});
    bool broken = true;
    std::atomic<int> calls{0};
    auto fn = [&](const block& b) {
        ++calls;
        if (broken && b.index == 6) throw std::runtime_error("disk full");
        return value_of(b);
    };
    REQUIRE_THROWS_AS(chunkwise::map_blocks(serial, blocks, fn, opt), chunkwise::block_error);
    REQUIRE(calls.load() == 7);
    broken = false;
    calls = 0;
    auto r = chunkwise::map_blocks(serial, blocks, fn, opt);
    REQUIRE(calls.load() == 4);  // blocks 6..9
    REQUIRE(r.stats().from_checkpoint == 6);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: strings, void blocks and user types; other types are refused clearly", "[run_options][checkpoint]") {
    const auto dir = scratch("types");
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(20, parts{5});
    auto names = [](const block& b) { return std::string("block ") + std::to_string(b.index) + std::string(b.index, '*'); };
    const auto s1 = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, names, opt));
    REQUIRE(chunkwise::map_blocks(pool, blocks, names, opt).stats().from_checkpoint == 5);
    REQUIRE(chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, names, opt)) == s1);

    const auto dir2 = dir / "user";
    opt.checkpoint = dir2;
    auto sum = [](const block& b) { return summary{value_of(b), "b" + std::to_string(b.index)}; };
    const auto u1 = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, sum, opt));
    auto u2 = chunkwise::map_blocks(pool, blocks, sum, opt);
    REQUIRE(u2.stats().from_checkpoint == 5);
    REQUIRE(chunkwise::gather(pool, std::move(u2)) == u1);

    opt.checkpoint = dir / "void";
    std::atomic<int> calls{0};
    (void)chunkwise::map_blocks(pool, blocks, [&](const block&) { ++calls; }, opt);
    (void)chunkwise::map_blocks(pool, blocks, [&](const block&) { ++calls; }, opt);
    REQUIRE(calls.load() == 5);

    struct opaque {
        int x;
    };
    REQUIRE_THROWS_WITH(chunkwise::map_blocks(pool, blocks, [](const block&) { return opaque{1}; }, opt),
                        Catch::Matchers::Contains("has no checkpoint_traits specialization"));
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: SIGKILL at random moments loses no finished block; the resumed result is bit-identical",
          "[run_options][checkpoint][kill]") {
    const auto dir = scratch("kill");
    const std::string victim = CHUNKWISE_CHECKPOINT_VICTIM;
    const std::string n = "300";
    auto run = [&](const std::string& ckpt, const std::string& out) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execl(victim.c_str(), victim.c_str(), ckpt.c_str(), n.c_str(), out.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        return pid;
    };
    auto wait_ok = [](pid_t pid) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    };
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(wait_ok(run("-", (dir / "clean.bin").string())));
    // Kill times spread over a clean run's duration (longer under sanitizers).
    const auto clean_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();

    std::mt19937 rng(std::random_device{}());
    const std::string ckpt = (dir / "ckpt").string();
    std::size_t previous = 0;
    for (int k = 0; k < 8; ++k) {
        const pid_t pid = run(ckpt, (dir / "partial.bin").string());
        const auto at = std::uniform_int_distribution<long>(clean_ms / 10, std::max<long>(clean_ms / 10 + 1, clean_ms / 2))(rng);
        std::this_thread::sleep_for(std::chrono::milliseconds(at));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        // Every file in the checkpoint directory is complete or a temporary one.
        std::size_t complete = 0;
        std::error_code ec;
        for (auto it = fs::directory_iterator(ckpt, ec); !ec && it != fs::directory_iterator(); ++it) {
            complete += it->path().extension() == ".ckpt";
        }
        REQUIRE(complete >= previous);  // nothing finished was lost
        previous = complete;
    }
    REQUIRE(wait_ok(run(ckpt, (dir / "resumed.bin").string())));
    REQUIRE(read_text(dir / "resumed.bin") == read_text(dir / "clean.bin"));
    REQUIRE(std::stoul(read_text(dir / "resumed.bin.summary")) == previous);  // everything saved was loaded
    REQUIRE(previous > 0);
    fs::remove_all(dir);
}

TEST_CASE("log: timestamped start and end of every block, failures, notes, checkpoint loads", "[run_options][log]") {
    const auto dir = scratch("log");
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.log = dir / "run.log";
    opt.errors = chunkwise::on_error::collect;
    opt.checkpoint = dir / "ckpt";
    const auto blocks = chunkwise::partition(60, parts{6});
    auto fn = [](const block& b) {
        if (b.index == 4) throw std::runtime_error("unreadable input");
        chunkwise::log_note("wrote out/" + std::to_string(b.index) + ".csv");
        return value_of(b);
    };
    (void)chunkwise::map_blocks(pool, blocks, fn, opt);
    (void)chunkwise::map_blocks(pool, blocks, fn, opt);
    const std::string log = read_text(opt.log);
    const std::string stamp = R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[rank 0\] )";
    std::istringstream lines(log);
    int n_lines = 0;
    for (std::string line; std::getline(lines, line); ++n_lines) {
        INFO(line);
        REQUIRE(std::regex_search(line, std::regex("^" + stamp)));
    }
    for (std::size_t i = 0; i < 6; ++i) {
        const std::string label = "block " + std::to_string(i) + " \\(items \\[" + std::to_string(i * 10) + ", " +
                                  std::to_string(i * 10 + 10) + "\\)\\)";
        REQUIRE(std::regex_search(log, std::regex(stamp + "start " + label)));
        if (i == 4) {
            REQUIRE(std::regex_search(log, std::regex(stamp + "FAILED " + label + " after [0-9.]+ s: unreadable input")));
        } else {
            REQUIRE(std::regex_search(log, std::regex(stamp + "end " + label + " [0-9.]+ s")));
            REQUIRE(std::regex_search(log, std::regex(stamp + label + ": wrote out/" + std::to_string(i) + ".csv")));
            REQUIRE(std::regex_search(log, std::regex(stamp + "loaded " + label + " from checkpoint")));
        }
    }
    REQUIRE(std::regex_search(log, std::regex(stamp + "run start: 6 blocks on 2 workers, checkpoint ")));
    REQUIRE(std::regex_search(log, std::regex(stamp + "run end: 5 of 6 blocks here \\(1 failed, 5 from checkpoint\\)")));
    REQUIRE(n_lines > 20);
    fs::remove_all(dir);
}

TEST_CASE("progress: done/total, rate and ETA on stderr", "[run_options][progress]") {
    const auto dir = scratch("progress");
    // Capture stderr in a file (not a terminal: periodic lines).
    const int saved = ::dup(2);
    const int fd = ::open((dir / "err.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.progress = true;
    (void)chunkwise::map_blocks(pool, chunkwise::partition(20, parts{20}), [](const block& b) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return b.size();
    }, opt);
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(fd);
    ::close(saved);
    const std::string err = read_text(dir / "err.txt");
    INFO(err);
    REQUIRE(std::regex_search(err, std::regex(R"(\[chunkwise\] \d+/20 blocks +\d+%  [0-9.]+ blocks/s  elapsed \d+:\d\d  ETA (\d+:\d\d|\?))")));
    REQUIRE(std::regex_search(err, std::regex(R"(\[chunkwise\] 20/20 blocks 100%.*ETA 0:00\n$)")));
    std::size_t lines = std::count(err.begin(), err.end(), '\n');
    REQUIRE(lines >= 2);
    REQUIRE(lines <= 12);  // periodic, not one per block
    fs::remove_all(dir);
}
