// Production runs: collect, failure manifests, checkpoints (resume, stale and corrupt files,
// SIGKILL at random moments), logs and progress, over every std-only policy.
#include "catch.hpp"
#include "test_util.hpp"
#include "policies.hpp"

#include <chunkwise/chunkwise.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <atomic>
#include <cmath>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using chunkwise::block;
using chunkwise::parts;
namespace fs = std::filesystem;

namespace {

using test::read_text;
using test::scratch;
using test::value_of;

// What `f` writes to stderr (fd 2 redirected to a file in `dir`: not a terminal).
template <class F>
std::string stderr_of(const fs::path& dir, F&& f) {
    const int saved = ::dup(2);
    const int fd = ::open((dir / "err.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    f();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(fd);
    ::close(saved);
    return read_text(dir / "err.txt");
}
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
                                  chunkwise::map_blocks(
                                      policy, blocks,
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
    auto r = chunkwise::map_blocks(
        serial, again,
        [](const block& b) -> int {
            if (b.index == 7) throw std::runtime_error("still bad");
            return 1;
        },
        opt);
    REQUIRE(r.failures().size() == 1);
    REQUIRE(r.failures()[0].index == 7);

    const std::vector<std::string> files{"a.dat", "file, with \"quotes\"", "c.dat"};
    REQUIRE(chunkwise::select_failed(files, f) == std::vector<std::string>{"file, with \"quotes\""});

    REQUIRE_THROWS_WITH(chunkwise::read_failure_manifest(dir / "missing.csv"),
                        Catch::Matchers::Contains("cannot read") && Catch::Matchers::Contains("missing.csv"));
    std::ofstream(dir / "bad.csv") << "not,a,manifest\n";
    REQUIRE_THROWS_WITH(chunkwise::read_failure_manifest(dir / "bad.csv"),
                        Catch::Matchers::Contains("not a failure manifest"));
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

TEST_CASE("one identity for blocks of every kind: logs, failures, checkpoints and select_failed agree",
          "[run_options]") {
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    // Items of a std::vector<int> (or std::views::iota): named "item V", re-selected by name.
    const std::vector<int> items{10, 11, 12, 13, 14};
    auto r = chunkwise::map_blocks(
        serial, items,
        [](int v) -> int {
            if (v % 2 == 1) throw std::runtime_error("odd");
            return v;
        },
        opt);
    REQUIRE(r.failures().size() == 2);
    REQUIRE(r.failures()[0].block == "item 11");
    REQUIRE(r.failures()[0].index == 1);
    REQUIRE(chunkwise::select_failed(items, r.failures()) == std::vector<int>{11, 13});
    const std::vector<int> reordered{13, 12, 11};
    REQUIRE(chunkwise::select_failed(reordered, r.failures()) == std::vector<int>{13, 11});

    // Elements chunkwise cannot describe are named by position in failures and select_failed...
    struct opaque {
        int payload;
    };
    const std::vector<opaque> things{{1}, {2}, {3}};
    std::vector<chunkwise::failure> by_position{{1, "", 0, "m", "t"}};
    REQUIRE(chunkwise::select_failed(things, by_position).size() == 1);
    REQUIRE(chunkwise::select_failed(things, by_position)[0].payload == 2);
    // ...but never keyed by position in a checkpoint: that would load one item's result into
    // another once the list changes. The checkpoint is refused, saying how to name them.
    const auto dir = scratch("identity");
    chunkwise::run_options ck;
    ck.checkpoint = dir / "ck";
    REQUIRE_THROWS_AS(chunkwise::map_blocks(
                          serial, things, [](const opaque& o) { return o.payload * 10; }, ck),
                      std::invalid_argument);
    REQUIRE_THROWS_WITH(chunkwise::map_blocks(
                            serial, things, [](const opaque& o) { return o.payload * 10; }, ck),
                        Catch::Matchers::Contains("no index, no range and no name") &&
                            Catch::Matchers::Contains("`index` member") &&
                            Catch::Matchers::Contains("std::string_view"));
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: a reordered or extended list loads each item's own result, never another's",
          "[run_options][checkpoint]") {
    chunkwise::serial_policy serial;
    const auto dir = scratch("reorder");
    chunkwise::run_options ck;
    ck.checkpoint = dir;
    // Items with an index member (their own number, not their position) and items named by text.
    struct item {
        std::size_t index;
        int payload;
    };
    int computed = 0;
    auto fn = [&](const item& it) {
        ++computed;
        return it.payload * 10;
    };
    const std::vector<item> first{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}};
    REQUIRE(chunkwise::gather(serial, chunkwise::map_blocks(serial, first, fn, ck)) ==
            std::vector<int>{10, 20, 30, 40, 50});
    computed = 0;
    const std::vector<item> reordered{{4, 5}, {9, 7}, {2, 3}, {0, 1}, {3, 4}, {1, 2}};
    REQUIRE(chunkwise::gather(serial, chunkwise::map_blocks(serial, reordered, fn, ck)) ==
            std::vector<int>{50, 70, 30, 10, 40, 20});
    REQUIRE(computed == 1);  // only the inserted item
    auto named = [&](const std::string& name) {
        ++computed;
        return static_cast<int>(name.size());
    };
    const std::vector<std::string> names{"a", "bb", "ccc"};
    (void)chunkwise::map_blocks(serial, names, named, ck);
    computed = 0;
    const std::vector<std::string> renamed{"dddd", "ccc", "a", "bb"};
    REQUIRE(chunkwise::gather(serial, chunkwise::map_blocks(serial, renamed, named, ck)) ==
            std::vector<int>{4, 3, 1, 2});
    REQUIRE(computed == 1);
    // An item whose name is empty runs every time and is never loaded as another.
    const std::vector<std::string> with_empty{"", "a"};
    computed = 0;
    (void)chunkwise::map_blocks(serial, with_empty, named, ck);
    (void)chunkwise::map_blocks(serial, with_empty, named, ck);
    REQUIRE(computed == 2);
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
    (void)chunkwise::map_blocks(
        policy, other,
        [&](const block& b) {
            ++calls;
            return float(b.size());
        },
        opt);
    REQUIRE(calls.load() == 36);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: corrupt, torn and stray records are never used", "[run_options][checkpoint]") {
    const auto dir = scratch("corrupt");
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(40, parts{4});
    std::atomic<int> calls{0};
    auto fn = [&](const block& b) {
        ++calls;
        return value_of(b);
    };
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
    REQUIRE(chunkwise::detail::checkpoint_store::count(dir) == 4);
    // One log for the run, whatever the number of blocks.
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
    REQUIRE(files == 1);
    const auto log = dir / "rank-0.ckptlog";
    std::string bytes = read_text(log);
    // Block 1: one flipped byte in its payload. Block 3 (the last record): torn off by 3 bytes.
    // Then stray bytes at the end, as a write cut short would leave.
    const std::size_t one = bytes.find("key=1\n");
    REQUIRE(one != std::string::npos);
    bytes[bytes.find('\n', bytes.find("block=", one)) + 3] ^= 0x7f;
    bytes.resize(bytes.size() - 3);
    bytes += "cwCKrec1 half written";
    std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes;
    REQUIRE(chunkwise::detail::checkpoint_store::count(dir) == 2);
    calls = 0;
    const auto again = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
    REQUIRE(calls.load() == 2);  // blocks 1 and 3 recomputed, 0 and 2 loaded
    REQUIRE(again == expect);
    calls = 0;
    (void)chunkwise::map_blocks(serial, blocks, fn, opt);  // the new records came after the damage
    REQUIRE(calls.load() == 0);
    // A run killed in the middle of a large record leaves its start; the next run appends after
    // it. The torn record's length must not swallow what was appended after it.
    {
        std::string torn = "cwCKrec1";
        const std::uint64_t fields[4] = {20, 1 << 20, ~std::uint64_t{0} >> 1, 0};
        torn.append(reinterpret_cast<const char*>(fields), sizeof fields);
        torn += "type=x\nkey=99\nblock=\n";
        torn += std::string(500, 'p');
        std::ofstream(log, std::ios::binary | std::ios::app) << torn;
    }
    const auto more = chunkwise::partition(40, parts{8});
    calls = 0;
    (void)chunkwise::map_blocks(serial, more, fn, opt);
    REQUIRE(calls.load() == 8);
    calls = 0;
    (void)chunkwise::map_blocks(serial, more, fn, opt);
    REQUIRE(calls.load() == 0);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: fail-fast keeps finished blocks; the fixed re-run computes the rest",
          "[run_options][checkpoint]") {
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

TEST_CASE("checkpoint: strings, void blocks and user types; other types are refused clearly",
          "[run_options][checkpoint]") {
    const auto dir = scratch("types");
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(20, parts{5});
    auto names = [](const block& b) {
        return std::string("block ") + std::to_string(b.index) + std::string(b.index, '*');
    };
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
    (void)chunkwise::map_blocks(
        pool, blocks, [&](const block&) { ++calls; }, opt);
    (void)chunkwise::map_blocks(
        pool, blocks, [&](const block&) { ++calls; }, opt);
    REQUIRE(calls.load() == 5);

    struct opaque {
        int x;
    };
    REQUIRE_THROWS_WITH(chunkwise::map_blocks(
                            pool, blocks, [](const block&) { return opaque{1}; }, opt),
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
    const auto clean_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();

    std::mt19937 rng(std::random_device{}());
    const std::string ckpt = (dir / "ckpt").string();
    std::size_t previous = 0;
    // Eight kills in the first half of a clean run. Under a sanitizer the start-up can be most of that half, so all
    // eight may land before the first block is saved: then up to eight more in the second half, until one lands
    // after it.
    for (int k = 0; k < 8 || (previous == 0 && k < 16); ++k) {
        const pid_t pid = run(ckpt, (dir / "partial.bin").string());
        const long lo = k < 8 ? clean_ms / 10 : clean_ms / 2, hi = k < 8 ? clean_ms / 2 : clean_ms;
        const auto at = std::uniform_int_distribution<long>(lo, std::max<long>(lo + 1, hi))(rng);
        std::this_thread::sleep_for(std::chrono::milliseconds(at));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        // Every record in the log is whole, or the one torn record at its end (skipped).
        const std::size_t complete = fs::exists(ckpt) ? chunkwise::detail::checkpoint_store::count(ckpt) : 0;
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
            REQUIRE(
                std::regex_search(log, std::regex(stamp + "FAILED " + label + " after [0-9.]+ s: unreadable input")));
        } else {
            REQUIRE(std::regex_search(log, std::regex(stamp + "end " + label + " [0-9.]+ s")));
            REQUIRE(std::regex_search(log, std::regex(stamp + label + ": wrote out/" + std::to_string(i) + ".csv")));
            REQUIRE(std::regex_search(log, std::regex(stamp + "loaded " + label + " from checkpoint")));
        }
    }
    REQUIRE(std::regex_search(log, std::regex(stamp + "run start: 6 blocks on 2 workers, checkpoint ")));
    REQUIRE(
        std::regex_search(log, std::regex(stamp + "run end: 5 of 6 blocks here \\(1 failed, 5 from checkpoint\\)")));
    REQUIRE(n_lines > 20);
    fs::remove_all(dir);
}

TEST_CASE("progress: done/total, rate and ETA on stderr", "[run_options][progress]") {
    const auto dir = scratch("progress");
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.progress = true;
    // stderr is a file here (not a terminal: periodic lines).
    const std::string err = stderr_of(dir, [&] {
        (void)chunkwise::map_blocks(
            pool, chunkwise::partition(20, parts{20}),
            [](const block& b) {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                return b.size();
            },
            opt);
    });
    INFO(err);
    REQUIRE(std::regex_search(
        err,
        std::regex(R"(\[chunkwise\] \d+/20 blocks +\d+%  [0-9.]+ blocks/s  elapsed \d+:\d\d  ETA (\d+:\d\d|\?))")));
    REQUIRE(std::regex_search(err, std::regex(R"(\[chunkwise\] 20/20 blocks 100%.*ETA 0:00\n$)")));
    std::size_t lines = std::count(err.begin(), err.end(), '\n');
    REQUIRE(lines >= 2);
    REQUIRE(lines <= 12);  // periodic, not one per block
    fs::remove_all(dir);
}

TEST_CASE("progress on a terminal fits its width and clears the old line's tail", "[run_options][progress]") {
    // A pseudo-terminal of 50 columns as stderr of a child process that runs with progress.
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(master >= 0);
    REQUIRE(::grantpt(master) == 0);
    REQUIRE(::unlockpt(master) == 0);
    const std::string slave_name = ::ptsname(master);
    struct winsize w {};
    w.ws_col = 50;
    w.ws_row = 20;
    REQUIRE(::ioctl(master, TIOCSWINSZ, &w) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const int slave = ::open(slave_name.c_str(), O_RDWR);
        if (slave < 0 || ::dup2(slave, 2) < 0) ::_exit(3);
        chunkwise::thread_policy pool(2);
        chunkwise::run_options opt;
        opt.progress = true;
        (void)chunkwise::map_blocks(
            pool, chunkwise::partition(30, parts{30}),
            [](const block& b) {
                std::this_thread::sleep_for(std::chrono::milliseconds(12));
                return b.size();
            },
            opt);
        std::fflush(stderr);
        ::_exit(0);
    }
    std::string out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(master, buf, sizeof buf);
        if (n <= 0) break;  // EIO once the child's side is closed
        out.append(buf, static_cast<std::size_t>(n));
        if (out.find("100%") != std::string::npos && out.find('\n', out.find("100%")) != std::string::npos) break;
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(master);
    INFO(out);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    std::size_t draws = 0;
    for (std::size_t at = out.find('\r'); at != std::string::npos; at = out.find('\r', at + 1)) {
        if (at + 1 < out.size() && out[at + 1] == '\n') continue;  // the terminal's own \r\n for \n
        const std::size_t clear = out.find("\033[K", at);
        REQUIRE(clear != std::string::npos);
        REQUIRE(clear - at - 1 <= 49);  // never wraps: at most width - 1 characters
        ++draws;
    }
    REQUIRE(draws >= 2);
    REQUIRE(out.find("[chunkwise] 30/30 blocks") != std::string::npos);
}

TEST_CASE("on_progress and on_log route progress and log lines to the user's own logger", "[run_options][progress]") {
    const auto dir = scratch("callbacks");
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    std::vector<chunkwise::progress_report> reports;
    std::vector<std::string> lines;
    std::mutex m;
    std::atomic<int> inside{0};
    bool overlapped = false;
    opt.on_progress = [&](const chunkwise::progress_report& r) { reports.push_back(r); };
    opt.on_log = [&](const std::string& l) {
        if (inside.fetch_add(1) != 0) overlapped = true;
        {
            std::lock_guard lock(m);
            lines.push_back(l);
        }
        inside.fetch_sub(1);
    };
    // With on_progress nothing is drawn on stderr.
    const std::string err = stderr_of(dir, [&] {
        (void)chunkwise::map_blocks(
            pool, chunkwise::partition(40, parts{40}),
            [](const block& b) {
                std::this_thread::sleep_for(std::chrono::milliseconds(8));
                if (b.index == 7) chunkwise::log_note("seven");
                return b.size();
            },
            opt);
    });
    REQUIRE(err.empty());
    REQUIRE(!reports.empty());
    REQUIRE(reports.back().final);
    REQUIRE(reports.back().done == 40);
    REQUIRE(reports.back().total == 40);
    REQUIRE(reports.back().computed == 40);
    REQUIRE(reports.back().eta == 0.0);
    for (std::size_t i = 1; i < reports.size(); ++i) REQUIRE(reports[i].done >= reports[i - 1].done);
    REQUIRE_FALSE(overlapped);
    const std::regex stamp(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z \[rank 0\] )");
    REQUIRE(lines.size() >= 82);  // run start, start + end of 40 blocks, the note, run end
    for (const auto& l : lines) {
        INFO(l);
        REQUIRE(std::regex_search(l, stamp));
        REQUIRE(l.find('\n') == std::string::npos);
    }
    REQUIRE(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.find("block 7") != std::string::npos && l.find(": seven") != std::string::npos; }) == 1);
    fs::remove_all(dir);
}

namespace {
// A fixed-rank tensor as far as checkpoints see one (xtensor's shape, data, from_shape).
template <std::size_t N>
struct fixed_tensor {
    using value_type = double;
    using shape_type = std::array<std::size_t, N>;
    shape_type s{};
    std::vector<double> v;
    const shape_type& shape() const { return s; }
    const double* data() const { return v.data(); }
    double* data() { return v.data(); }
    std::size_t size() const { return v.size(); }
    static fixed_tensor from_shape(const shape_type& shape) {
        fixed_tensor t;
        t.s = shape;
        std::size_t n = 1;
        for (std::size_t e : shape) n *= e;
        t.v.resize(n);
        return t;
    }
};
}  // namespace

TEST_CASE("checkpoint: a result that cannot be saved is kept, counted and logged once", "[run_options][checkpoint]") {
    const auto dir = scratch("unsaved");
    // The child may write 64 KiB in all: the log file of the run, then the checkpoint, which soon
    // cannot grow (EFBIG, as on a full disk).
    const std::string out = test::in_child_with_file_limit(65536, [&] {
        chunkwise::thread_policy pool(2);
        chunkwise::run_options opt;
        opt.checkpoint = dir / "ckpt";
        opt.log = dir / "run.log";
        opt.errors = chunkwise::on_error::fail_fast;
        const auto blocks = chunkwise::partition(300, parts{300});
        auto partial = chunkwise::map_blocks(
            pool, blocks, [](const block& b) { return std::vector<double>(256, double(b.index)); }, opt);
        const std::size_t unsaved = partial.stats().checkpoint_save_failures;
        const auto all = chunkwise::gather(pool, std::move(partial));
        bool right = all.size() == 300;
        for (std::size_t i = 0; right && i < all.size(); ++i) right = all[i] == std::vector<double>(256, double(i));
        return "kept " + std::to_string(all.size()) + " right " + std::to_string(right) + " unsaved " +
               std::to_string(unsaved);
    });
    INFO(out);
    REQUIRE(out.rfind("kept 300 right 1 unsaved ", 0) == 0);
    REQUIRE(std::stoul(out.substr(out.rfind(' ') + 1)) > 200);  // most of them: the limit came early
    const std::string log = read_text(dir / "run.log");
    std::size_t mentions = 0;
    for (std::size_t at = 0; (at = log.find("checkpoint not saved", at)) != std::string::npos; ++at) ++mentions;
    REQUIRE(mentions == 1);
    REQUIRE(log.find("not checkpointed") != std::string::npos);
    // A later run on a disk with room loads what was saved and computes the rest.
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.checkpoint = dir / "ckpt";
    auto again = chunkwise::map_blocks(
        pool, chunkwise::partition(300, parts{300}),
        [](const block& b) { return std::vector<double>(256, double(b.index)); }, opt);
    REQUIRE(again.stats().from_checkpoint > 0);
    REQUIRE(again.stats().from_checkpoint < 300);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: tensors of another rank are recomputed, not failed", "[run_options][checkpoint]") {
    const auto dir = scratch("rank");
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(8, parts{4});
    auto two = [](const block& b) {
        auto t = fixed_tensor<2>::from_shape({b.size(), 3});
        std::fill(t.v.begin(), t.v.end(), double(b.index));
        return t;
    };
    auto three = [](const block& b) {
        auto t = fixed_tensor<3>::from_shape({b.size(), 3, 1});
        std::fill(t.v.begin(), t.v.end(), double(b.index) + 0.5);
        return t;
    };
    REQUIRE(chunkwise::checkpoint_traits<fixed_tensor<2>>::type_name() !=
            chunkwise::checkpoint_traits<fixed_tensor<3>>::type_name());
    (void)chunkwise::map_blocks(serial, blocks, two, opt);
    auto r3 = chunkwise::map_blocks(serial, blocks, three, opt);
    REQUIRE(r3.ok());
    REQUIRE(r3.stats().from_checkpoint == 0);
    REQUIRE(r3.values()[2].v[0] == 2.5);
    REQUIRE(chunkwise::map_blocks(serial, blocks, three, opt).stats().from_checkpoint == 4);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: crafted lengths, leftovers of killed compactions", "[run_options][checkpoint]") {
    const auto dir = scratch("crafted");
    fs::create_directories(dir);
    {  // A record that claims a payload of 2^64 - 1 bytes: once an overflow in a bounds check.
        std::string rec = "cwCKrec1";
        const std::uint64_t fields[4] = {10, ~std::uint64_t{0}, 1, 0};
        rec.append(reinterpret_cast<const char*>(fields), sizeof fields);
        rec += "type=x\nkey=0\n";
        std::ofstream(dir / "rank-5.ckptlog", std::ios::binary) << rec << rec;
    }
    std::ofstream(dir / "rank-0.ckptlog.compact.12345") << "left by a killed compaction";
    REQUIRE(chunkwise::detail::checkpoint_store::count(dir) == 0);
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    auto r = chunkwise::map_blocks(
        serial, chunkwise::partition(10, parts{2}), [](const block& b) { return b.size(); }, opt);
    REQUIRE(r.stats().from_checkpoint == 0);
    REQUIRE_FALSE(fs::exists(dir / "rank-0.ckptlog.compact.12345"));
    REQUIRE(chunkwise::detail::checkpoint_store::count(dir) == 2);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: many blocks make one log; a log of mostly replaced records is compacted",
          "[run_options][checkpoint]") {
    const auto dir = scratch("compact");
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto many = chunkwise::partition(20000, parts{20000});
    auto index = [](const block& b) { return static_cast<std::uint32_t>(b.index); };
    (void)chunkwise::map_blocks(pool, many, index, opt);
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
    REQUIRE(files == 1);
    REQUIRE(chunkwise::detail::checkpoint_store::count(dir) == 20000);
    // Other result types for the same blocks replace every record: the log is then mostly dead.
    auto wide = [](const block& b) { return static_cast<double>(b.index); };
    (void)chunkwise::map_blocks(
        pool, many, [](const block& b) { return static_cast<std::uint64_t>(b.index); }, opt);
    (void)chunkwise::map_blocks(pool, many, wide, opt);
    const auto before = fs::file_size(dir / "rank-0.ckptlog");
    const std::uint64_t saved = chunkwise::detail::checkpoint_compact_bytes;
    chunkwise::detail::checkpoint_compact_bytes = 1;
    auto loaded = chunkwise::map_blocks(pool, many, wide, opt);  // opens the store: compacts first
    chunkwise::detail::checkpoint_compact_bytes = saved;
    REQUIRE(loaded.stats().from_checkpoint == 20000);
    REQUIRE(fs::file_size(dir / "rank-0.ckptlog") < before * 6 / 10);
    files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
    REQUIRE(files == 1);
    auto all = chunkwise::gather(pool, std::move(loaded));
    REQUIRE(all[19999] == 19999.0);
    fs::remove_all(dir);
}
