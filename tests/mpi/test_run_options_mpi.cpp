// Production runs under MPI: collect with failures on several ranks, checkpoints written by
// every rank and resumed with another rank count, one log with every rank's lines, progress for
// the whole run on the root only.
#include "catch.hpp"
#include "test_util.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>

using chunkwise::block;
using chunkwise::parts;
namespace fs = std::filesystem;

namespace {

using test::shared_scratch;

using test::read_text;
using test::value_of;
}  // namespace

TEMPLATE_TEST_CASE("collect under MPI: every rank runs its blocks, the root learns every failure", "[mpi][run_options]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    const auto blocks = chunkwise::partition(300, parts{30});
    auto fn = [](const block& b) {
        if (b.index % 7 == 3) throw std::runtime_error("bad " + std::to_string(b.index));
        return value_of(b);
    };
    auto r = chunkwise::map_blocks(policy, blocks, fn, opt);
    for (const auto& f : r.failures()) CHECK(f.rank == policy.rank());
    const auto all_failures = chunkwise::gather_failures(policy, r);
    const auto values = chunkwise::gather(policy, std::move(r));
    chunkwise::serial_policy serial;
    auto expect = chunkwise::map_blocks(serial, blocks, fn, opt);
    if (policy.is_root()) {
        REQUIRE(all_failures.size() == 4);  // blocks 3, 10, 17, 24
        for (std::size_t k = 0; k < all_failures.size(); ++k) {
            REQUIRE(all_failures[k].index == 3 + 7 * k);
            REQUIRE(all_failures[k].message == "bad " + std::to_string(3 + 7 * k));
            REQUIRE(all_failures[k].block == expect.failures()[k].block);
        }
        REQUIRE(values == chunkwise::gather(serial, std::move(expect)));
    } else {
        REQUIRE(all_failures.empty());
    }
    // reduce keeps the serial tree with the failed leaves absent.
    auto text = [&](auto& p) {
        return chunkwise::all_reduce(
            p,
            chunkwise::map_blocks(
                p, chunkwise::partition(9, parts{9}),
                [](const block& b) {
                    if (b.index == 2 || b.index == 7) throw std::runtime_error("x");
                    return std::to_string(b.index);
                },
                opt),
            [](const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; });
    };
    REQUIRE(text(policy) == text(serial));
    REQUIRE(text(serial) == "((((0 1) 3) ((4 5) 6)) 8)");
}

TEMPLATE_TEST_CASE("checkpoints from every rank resume with another rank count", "[mpi][run_options][checkpoint]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto dir = shared_scratch("ckpt");
    chunkwise::run_options opt;
    opt.checkpoint = dir / "ckpt";
    const auto blocks = chunkwise::partition(500, parts{23});
    std::atomic<int> calls{0};
    auto fn = [&](const block& b) {
        ++calls;
        std::vector<double> v;
        for (std::size_t i = b.begin; i < b.end; ++i) v.push_back(std::sin(double(i)));
        return v;
    };
    const auto first = chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, fn, opt));
    REQUIRE(boost::mpi::all_reduce(world, calls.load(), std::plus<int>()) == 23);
    world.barrier();
    // Each rank alone (a communicator of one) resumes the whole run: it loads all 23 blocks.
    calls = 0;
    const boost::mpi::communicator alone = world.split(world.rank());
    chunkwise::mpi_policy solo(alone);
    auto again = chunkwise::map_blocks(solo, blocks, fn, opt);
    REQUIRE(calls.load() == 0);
    REQUIRE(again.stats().from_checkpoint == 23);
    REQUIRE(chunkwise::gather(solo, std::move(again)) == first);
    world.barrier();
    if (world.rank() == 0) fs::remove_all(dir);
}

TEST_CASE("one log holds every rank's block lines; progress for the whole run is drawn on the root",
          "[mpi][run_options][log]") {
    boost::mpi::communicator world;
    const auto dir = shared_scratch("log");
    chunkwise::mpi_policy policy;
    chunkwise::run_options opt;
    opt.log = dir / "run.log";
    opt.progress = true;
    const auto err_file = dir / ("err." + std::to_string(world.rank()));
    const int saved = ::dup(2);
    const int fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    const auto blocks = chunkwise::partition(40, parts{40});
    (void)chunkwise::gather(policy, chunkwise::map_blocks(
                                        policy, blocks, [](const block& b) { return b.index; }, opt));
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(fd);
    ::close(saved);
    world.barrier();
    const std::string err = read_text(err_file);
    if (world.rank() == 0) {
        INFO(err);
        REQUIRE(std::regex_search(err, std::regex(R"(\[chunkwise\] 40/40 blocks 100%.*ETA 0:00)")));
        const std::string log = read_text(opt.log);
        for (int r = 0; r < world.size(); ++r) {
            REQUIRE(log.find("[rank " + std::to_string(r) + "] run start: 40 blocks") != std::string::npos);
        }
        for (std::size_t i = 0; i < 40; ++i) {
            const std::string label =
                "block " + std::to_string(i) + " (items [" + std::to_string(i) + ", " + std::to_string(i + 1) + "))";
            REQUIRE(log.find("] start " + label) != std::string::npos);
            REQUIRE(log.find("] end " + label) != std::string::npos);
        }
    } else {
        REQUIRE(err.empty());  // only the root draws progress
    }
    world.barrier();
    if (world.rank() == 0) fs::remove_all(dir);
}
