// The checkpoint log under damage: a damaged length never costs the records after it, the store
// never cuts away a record that passes its checksums, a record its type cannot decode is a cache
// miss, special files in the folder never block a run, and a fuzz that damages logs at random
// and counts the records a resume keeps against the records that are still intact; a read-only
// folder (an archived run) loads and goes on; checkpoint keys name numbers, strings and structs
// exactly.
#include "catch.hpp"
#include "test_util.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/detail/run/checkpoint_store.hpp>

#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using chunkwise::block;
using chunkwise::parts;
namespace fs = std::filesystem;

namespace {

std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const fs::path& p, const std::string& b) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << b;
}

/// [offset, end) of every record of an undamaged log, in order.
std::vector<std::pair<std::size_t, std::size_t>> records_of(const std::string& log) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t at = 0;
    while (at + 48 <= log.size()) {
        REQUIRE(log.compare(at, 8, "cwCKrec2") == 0);
        std::uint64_t f[2];
        std::memcpy(f, log.data() + at + 8, sizeof f);
        const std::size_t end = at + 48 + static_cast<std::size_t>(f[0] + f[1]);
        out.emplace_back(at, end);
        at = end;
    }
    REQUIRE(at == log.size());
    return out;
}

/// Results of uneven sizes, so records differ in length.
std::vector<double> result_of(const block& b) {
    std::vector<double> v(1 + (b.index * 37) % 50);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sqrt(double(b.index * 1000 + i));
    return v;
}

}  // namespace

TEST_CASE("checkpoint: a damaged payload length costs its own record only, and nothing valid is cut",
          "[checkpoint]") {
    const auto dir = test::scratch("ckpt-length");
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(20, parts{20});
    int computed = 0;
    auto fn = [&](const block& b) {
        ++computed;
        return result_of(b);
    };
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
    const auto log = dir / "rank-0.ckptlog";
    std::string bytes = read_bytes(log);
    const auto recs = records_of(bytes);
    REQUIRE(recs.size() == 20);
    // Record 3 of 20 claims a payload longer than its own, yet inside the file.
    std::uint64_t length = 0;
    std::memcpy(&length, bytes.data() + recs[2].first + 16, 8);
    length += 3000;
    std::memcpy(bytes.data() + recs[2].first + 16, &length, 8);
    write_bytes(log, bytes);
    REQUIRE(chunkwise::detail::checkpoint_store::count(dir) == 19);
    computed = 0;
    const auto again = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
    REQUIRE(computed == 1);
    REQUIRE(again == expect);
    // The 17 records after the damaged one are still on disk where they were.
    const std::string now = read_bytes(log);
    for (std::size_t k = 3; k < 20; ++k) {
        REQUIRE(now.compare(recs[k].first, recs[k].second - recs[k].first, bytes, recs[k].first,
                            recs[k].second - recs[k].first) == 0);
    }
    computed = 0;
    (void)chunkwise::map_blocks(serial, blocks, fn, opt);
    REQUIRE(computed == 0);
    fs::remove_all(dir);
}

namespace {
/// A result type whose own load refuses some payloads (a stricter newer version, say).
struct picky {
    std::string text;
    bool operator==(const picky&) const = default;
};
}  // namespace

template <>
struct chunkwise::checkpoint_traits<picky> {
    static std::string type_name() { return "picky/v1"; }
    static void save(const picky& p, std::string& out) { out += p.text; }
    static picky load(std::string_view bytes) {
        if (!bytes.empty() && bytes.front() == 'X') throw std::runtime_error("holds a value of another size");
        return picky{std::string(bytes)};
    }
};

TEST_CASE("checkpoint: a record its type cannot decode is computed again, not failed", "[checkpoint]") {
    const auto dir = test::scratch("ckpt-decode");
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir / "ck";
    opt.log = dir / "run.log";
    const auto blocks = chunkwise::partition(6, parts{6});
    int computed = 0;
    bool refusable = true;
    auto fn = [&](const block& b) {
        ++computed;
        return picky{(b.index == 2 && refusable ? "X" : "ok") + std::to_string(b.index)};
    };
    (void)chunkwise::map_blocks(serial, blocks, fn, opt);
    computed = 0;
    refusable = false;
    for (int run = 0; run < 2; ++run) {
        auto r = chunkwise::map_blocks(serial, blocks, fn, opt);
        REQUIRE(r.ok());
        REQUIRE(r.values()[2] == picky{"ok2"});
    }
    REQUIRE(computed == 1);  // once, then its new record loads
    REQUIRE(test::read_text(opt.log).find("block 2 (items [2, 3)) cannot be decoded (holds a value of another size)") !=
            std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: a FIFO or a folder named like a log never blocks the start", "[checkpoint]") {
    const auto dir = test::scratch("ckpt-fifo");
    const auto ck = dir / "ck";
    fs::create_directories(ck);
    REQUIRE(::mkfifo((ck / "rank-7.ckptlog").c_str(), 0644) == 0);
    fs::create_directories(ck / "rank-8.ckptlog");
    // In a child that a watchdog ends: a start that blocks fails the test instead of hanging it.
    const std::string out = test::in_child_with_file_limit(RLIM_INFINITY, [&] {
        ::alarm(20);
        chunkwise::serial_policy serial;
        chunkwise::run_options opt;
        opt.checkpoint = ck;
        opt.log = dir / "run.log";
        auto r = chunkwise::map_blocks(
            serial, chunkwise::partition(4, parts{4}), [](const block& b) { return b.index; }, opt);
        auto again = chunkwise::map_blocks(
            serial, chunkwise::partition(4, parts{4}), [](const block& b) { return b.index; }, opt);
        return std::to_string(r.size()) + " " + std::to_string(again.stats().from_checkpoint);
    });
    REQUIRE(out == "4 4");
    const std::string log = test::read_text(dir / "run.log");
    REQUIRE(log.find("skipped " + (ck / "rank-7.ckptlog").string() + ": it is a FIFO, not a regular file") !=
            std::string::npos);
    REQUIRE(log.find("rank-8.ckptlog: it is a folder") != std::string::npos);

    // This rank's own log a FIFO: an error naming it, at once.
    fs::remove(ck / "rank-0.ckptlog");
    REQUIRE(::mkfifo((ck / "rank-0.ckptlog").c_str(), 0644) == 0);
    const std::string own = test::in_child_with_file_limit(RLIM_INFINITY, [&] {
        ::alarm(20);
        chunkwise::serial_policy serial;
        chunkwise::run_options opt;
        opt.checkpoint = ck;
        (void)chunkwise::map_blocks(
            serial, chunkwise::partition(4, parts{4}), [](const block& b) { return b.index; }, opt);
        return std::string("ran");
    });
    REQUIRE(own.find("threw: [chunkwise.checkpoint] " + (ck / "rank-0.ckptlog").string() +
                     " is a FIFO, not a regular file") == 0);
    // A FIFO given as the log file, with no reader: refused at once.
    REQUIRE(::mkfifo((dir / "log.fifo").c_str(), 0644) == 0);
    const std::string log_fifo = test::in_child_with_file_limit(RLIM_INFINITY, [&] {
        ::alarm(20);
        chunkwise::serial_policy serial;
        chunkwise::run_options opt;
        opt.log = dir / "log.fifo";
        (void)chunkwise::map_blocks(
            serial, chunkwise::partition(4, parts{4}), [](const block& b) { return b.index; }, opt);
        return std::string("ran");
    });
    REQUIRE(log_fifo.find("a FIFO with no reader") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("checkpoint log fuzz: a resume keeps exactly the records that are still intact", "[checkpoint][fuzz]") {
    const auto dir = test::scratch("ckpt-fuzz");
    const auto ck = dir / "ck";
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = ck;
    const auto blocks = chunkwise::partition(20, parts{20});
    int computed = 0;
    auto fn = [&](const block& b) {
        ++computed;
        return result_of(b);
    };
    const auto expect = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
    const auto log = ck / "rank-0.ckptlog";
    const std::string pristine = read_bytes(log);
    const auto recs = records_of(pristine);
    REQUIRE(recs.size() == 20);

    std::mt19937_64 rng(20261125);
    const int cases = 300;
    std::size_t kept_total = 0, intact_total = 0;
    for (int c = 0; c < cases; ++c) {
        std::string bytes = pristine;
        const int kind = static_cast<int>(rng() % 5);
        const std::size_t rec = rng() % recs.size();
        const std::size_t rec_len = recs[rec].second - recs[rec].first;
        auto at_in = [&](std::size_t lo, std::size_t hi) { return lo + rng() % std::max<std::size_t>(1, hi - lo); };
        std::string what;
        switch (kind) {
            case 0: {  // flip bytes in a header (magic, lengths, sequence, checksums, header text)
                const std::size_t head = 48 + (rec_len - 48) / 4;
                for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
                    bytes[at_in(recs[rec].first, recs[rec].first + std::min(head, rec_len))] ^=
                        static_cast<char>(1 + rng() % 255);
                }
                what = "header flip";
                break;
            }
            case 1:  // flip bytes in a payload
                for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
                    bytes[at_in(recs[rec].second - 8 * (1 + rec_len / 64), recs[rec].second)] ^=
                        static_cast<char>(1 + rng() % 255);
                }
                what = "payload flip";
                break;
            case 2:  // truncate anywhere
                bytes.resize(at_in(0, bytes.size()));
                what = "truncate";
                break;
            case 3: {  // overwrite a range with random bytes
                const std::size_t from = at_in(0, bytes.size());
                const std::size_t len = std::min<std::size_t>(1 + rng() % 300, bytes.size() - from);
                for (std::size_t i = 0; i < len; ++i) bytes[from + i] = static_cast<char>(rng());
                what = "overwrite";
                break;
            }
            default: {  // a length field set to another plausible value
                std::uint64_t v = 0;
                const std::size_t field = recs[rec].first + 8 + 8 * (rng() % 2);
                std::memcpy(&v, bytes.data() + field, 8);
                v = v + 1 + rng() % 5000;
                std::memcpy(bytes.data() + field, &v, 8);
                what = "length";
                break;
            }
        }
        // Intact: the record's bytes are all there and unchanged.
        std::vector<bool> intact(recs.size());
        std::size_t intact_count = 0;
        for (std::size_t k = 0; k < recs.size(); ++k) {
            const auto [b, e] = recs[k];
            intact[k] = e <= bytes.size() && bytes.compare(b, e - b, pristine, b, e - b) == 0;
            intact_count += intact[k] ? 1 : 0;
        }
        fs::remove_all(ck);
        fs::create_directories(ck);
        write_bytes(log, bytes);
        INFO("case " << c << ": " << what << " near record " << rec << ", " << intact_count << " intact");
        REQUIRE(chunkwise::detail::checkpoint_store::count(ck) == intact_count);
        computed = 0;
        const auto again = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, fn, opt));
        REQUIRE(again == expect);
        const std::size_t kept = recs.size() - static_cast<std::size_t>(computed);
        REQUIRE(kept == intact_count);
        // Every intact record is still in the file where it was.
        const std::string now = read_bytes(log);
        for (std::size_t k = 0; k < recs.size(); ++k) {
            if (!intact[k]) continue;
            const auto [b, e] = recs[k];
            REQUIRE(now.compare(b, e - b, pristine, b, e - b) == 0);
        }
        computed = 0;
        (void)chunkwise::map_blocks(serial, blocks, fn, opt);
        REQUIRE(computed == 0);
        kept_total += kept;
        intact_total += intact_count;
    }
    REQUIRE(kept_total == intact_total);
    REQUIRE(kept_total < std::size_t(cases) * recs.size());  // the damage did damage
    fs::remove_all(dir);
}

TEST_CASE("checkpoint: a read-only folder loads every sound record, computes the rest and counts its saves",
          "[checkpoint]") {
    const auto dir = test::scratch("ckpt-readonly");
    const fs::path ck = dir / "ck";
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = ck;
    const auto blocks = chunkwise::partition(400, parts{40});
    (void)chunkwise::map_blocks(serial, blocks, result_of, opt);
    // A torn tail too: a read-only resume cannot cut it off, and must not need to.
    const fs::path log = *fs::directory_iterator(ck);
    std::ofstream(log, std::ios::binary | std::ios::app) << "cwCKrec2 torn";
    const auto more = chunkwise::partition(440, parts{44});  // blocks 40..43 cover new items
    // The folder mounted read-only in a private mount namespace of a child process (an archived
    // finished run on a read-only file system).
    const std::string out = test::in_child_with_file_limit(RLIM_INFINITY, [&]() -> std::string {
        if (::unshare(CLONE_NEWNS) != 0) return "skip: unshare: " + std::string(std::strerror(errno));
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            ::mount(ck.c_str(), ck.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
            ::mount(nullptr, ck.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
            return "skip: mount: " + std::string(std::strerror(errno));
        }
        if (::access(ck.c_str(), W_OK) == 0 || errno != EROFS) return "the bind mount is writable";
        std::size_t calls = 0;
        auto counted = [&](const block& b) {
            ++calls;
            return result_of(b);
        };
        auto again = chunkwise::map_blocks(serial, blocks, counted, opt);
        const auto loaded = again.stats().from_checkpoint;
        auto values = chunkwise::gather(serial, std::move(again));
        for (const auto& b : blocks) {
            if (values[b.index] != result_of(b)) return "block " + std::to_string(b.index) + " differs";
        }
        std::size_t calls_more = 0;
        auto r = chunkwise::map_blocks(
            serial, more,
            [&](const block& b) {
                ++calls_more;
                return result_of(b);
            },
            opt);
        return "loaded " + std::to_string(loaded) + " computed " + std::to_string(calls) + " then computed " +
               std::to_string(calls_more) + " unsaved " + std::to_string(r.stats().checkpoint_save_failures) +
               " ok " + std::to_string(r.ok());
    });
    if (out.rfind("skip:", 0) == 0) {
        WARN("not run here (needs a private mount namespace): " << out);
        return;
    }
    // blocks of 44 parts over 440 items: 10 items each, the same ranges as the first run's 40
    REQUIRE(out == "loaded 40 computed 0 then computed 4 unsaved 4 ok 1");
}

TEST_CASE("checkpoint keys: numbers, strings and structs that differ only past six digits are different elements",
          "[checkpoint]") {
    const auto dir = test::scratch("ckpt-keys");
    chunkwise::serial_policy serial;
    chunkwise::run_options opt;
    opt.checkpoint = dir / "ck";
    int computed = 0;
    // A parameter sweep: each element's result names its element exactly.
    const std::vector<double> sweep{1e-7, 2e-7, 5e-7, 0.25, 0.2500001, 0.25000000000000006, 1e300, -0.0, 0.0};
    auto of_number = [&](double x) {
        ++computed;
        return x * 3;
    };
    REQUIRE(chunkwise::gather(serial, chunkwise::map_blocks(serial, sweep, of_number, opt)).size() == sweep.size());
    REQUIRE(computed == 9);
    computed = 0;
    std::vector<double> shuffled(sweep.rbegin(), sweep.rend());
    const auto again = chunkwise::gather(serial, chunkwise::map_blocks(serial, shuffled, of_number, opt));
    for (std::size_t i = 0; i < shuffled.size(); ++i) REQUIRE(again[i] == shuffled[i] * 3);
    // -0.0 and 0.0 read back as different values: each has its own record.
    REQUIRE(computed == 0);
    computed = 0;
    const std::vector<double> neighbours{1e-7 + 1e-22, 0.25000000000000011, 3e-7};
    (void)chunkwise::map_blocks(serial, neighbours, of_number, opt);
    REQUIRE(computed == 3);  // none of them is an element above

    const std::vector<float> floats{1e-7f, std::nextafter(1e-7f, 1.0f), 0.1f};  // neighbours: "1e-07", "1.0000001e-07"
    computed = 0;
    auto of_float = [&](float x) {
        ++computed;
        return double(x);
    };
    (void)chunkwise::map_blocks(serial, floats, of_float, opt);
    const auto f2 = chunkwise::gather(serial, chunkwise::map_blocks(serial, floats, of_float, opt));
    REQUIRE(computed == 3);
    for (std::size_t i = 0; i < floats.size(); ++i) REQUIRE(f2[i] == double(floats[i]));

    const std::vector<long long> big{9007199254740993LL, 9007199254740992LL, 1234567, 1234568};
    computed = 0;
    auto of_int = [&](long long x) {
        ++computed;
        return x;
    };
    (void)chunkwise::map_blocks(serial, big, of_int, opt);
    REQUIRE(chunkwise::gather(serial, chunkwise::map_blocks(serial, big, of_int, opt)) == big);
    REQUIRE(computed == 4);

    const std::vector<std::string> names{"run-0.1000000", "run-0.1000001", "run-0.10000001", "sample 1.0000000001"};
    computed = 0;
    auto of_name = [&](const std::string& s) {
        ++computed;
        return s + "!";
    };
    (void)chunkwise::map_blocks(serial, names, of_name, opt);
    REQUIRE(chunkwise::gather(serial, chunkwise::map_blocks(serial, names, of_name, opt)) ==
            std::vector<std::string>{"run-0.1000000!", "run-0.1000001!", "run-0.10000001!", "sample 1.0000000001!"});
    REQUIRE(computed == 4);

    // Structs: ranges of fractional items (a window over time), and items with a float index,
    // which is not an index (no element is numbered by 0.5).
    struct window {
        double begin, end;
    };
    const std::vector<window> windows{{0.0, 0.1000000}, {0.0, 0.1000001}, {0.1000000, 0.2}, {0.1000001, 0.2}};
    computed = 0;
    auto of_window = [&](const window& w) {
        ++computed;
        return w.end - w.begin;
    };
    (void)chunkwise::map_blocks(serial, windows, of_window, opt);
    const auto w2 = chunkwise::gather(serial, chunkwise::map_blocks(serial, windows, of_window, opt));
    REQUIRE(computed == 4);
    for (std::size_t i = 0; i < windows.size(); ++i) REQUIRE(w2[i] == windows[i].end - windows[i].begin);
    struct fractional {
        double index;
    };
    STATIC_REQUIRE(!chunkwise::detail::indexed_block<fractional>);
    STATIC_REQUIRE(chunkwise::detail::indexed_block<block>);
    REQUIRE(chunkwise::detail::block_identity<double>::description(1e-7) == "item 1e-07");
    REQUIRE(chunkwise::detail::block_identity<window>::description(window{0.25, 0.2500001}) ==
            "items [0.25, 0.2500001)");
}

TEST_CASE("checkpoint: a record that does not hold its type says so with the checkpoint's tag", "[checkpoint]") {
    using Catch::Matchers::Contains;
    REQUIRE_THROWS_WITH(chunkwise::checkpoint_traits<double>::load("abc"),
                        Contains("[chunkwise.checkpoint] a checkpoint of float64 holds a value of another size"));
    REQUIRE_THROWS_WITH(chunkwise::checkpoint_traits<std::vector<float>>::load("abcde"),
                        Contains("[chunkwise.checkpoint] a checkpoint of vector<float32> holds a partial element"));
    struct tensor2 {
        using value_type = double;
        using shape_type = std::array<std::size_t, 2>;
        shape_type s{};
        std::vector<double> v;
        static tensor2 from_shape(const shape_type& sh) { return {sh, std::vector<double>(sh[0] * sh[1])}; }
        const shape_type& shape() const { return s; }
        const double* data() const { return v.data(); }
        double* data() { return v.data(); }
        std::size_t size() const { return v.size(); }
    };
    REQUIRE_THROWS_WITH(chunkwise::checkpoint_traits<tensor2>::load("abc"),
                        Contains("[chunkwise.checkpoint] a checkpoint of tensor<float64,2> too short for a length"));
    std::string three(8, '\0');
    three[0] = 3;
    REQUIRE_THROWS_WITH(chunkwise::checkpoint_traits<tensor2>::load(three),
                        Contains("[chunkwise.checkpoint] a checkpoint of tensor<float64,2> holds a tensor of another rank"));
}
