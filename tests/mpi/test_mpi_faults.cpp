// Collectives under faults: a throw injected on one rank at each step of each collective
// (agree, serialize, transfer, deserialize, combine) makes every rank throw the same
// chunkwise::error naming the step and the rank, never a hang, and the communicator stays usable.
// Besides the injected faults, real ones: a Boost-serialized result whose save throws on one
// rank only, or whose load throws on the root only.
#include "catch.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/split_member.hpp>
#include <boost/serialization/string.hpp>

#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using chunkwise::block;
using chunkwise::parts;

namespace {

/// A result that travels through Boost.Serialization; `fail_save_on` / `fail_load` make it throw
/// while being written on that rank, or while being read.
struct note {
    std::string text;
    int fail_save_on = -1;
    bool fail_load = false;

    template <class Archive>
    void save(Archive& ar, unsigned) const {
        boost::mpi::communicator world;
        if (fail_save_on == world.rank()) throw std::runtime_error("note cannot be written on rank " + std::to_string(world.rank()));
        ar << text << fail_load;
    }
    template <class Archive>
    void load(Archive& ar, unsigned) {
        ar >> text >> fail_load;
        if (fail_load) throw std::runtime_error("note cannot be read back");
    }
    BOOST_SERIALIZATION_SPLIT_MEMBER()
};

struct outcome {
    bool threw = false;
    std::string message;
};

/// Runs `f`; every rank's outcome, checked to agree; true when they threw.
template <class F>
outcome agreed_outcome(F&& f) {
    outcome o;
    try {
        f();
    } catch (const chunkwise::error& e) {
        o.threw = true;
        o.message = e.what();
    } catch (const std::exception& e) {
        o.threw = true;
        o.message = std::string("NOT A chunkwise::error: ") + e.what();
    }
    boost::mpi::communicator world;
    std::vector<int> threw;
    std::vector<std::string> messages;
    boost::mpi::all_gather(world, o.threw ? 1 : 0, threw);
    boost::mpi::all_gather(world, o.message, messages);
    for (int r = 0; r < world.size(); ++r) {
        INFO("rank " << r << ": " << messages[static_cast<std::size_t>(r)]);
        REQUIRE(threw[static_cast<std::size_t>(r)] == (o.threw ? 1 : 0));
        REQUIRE(messages[static_cast<std::size_t>(r)] == o.message);
    }
    return o;
}

/// Each collective, run on fresh map_blocks results (values of several kinds).
template <class Policy>
std::vector<std::pair<std::string, std::function<void(Policy&)>>> collectives() {
    using V = std::vector<double>;
    const auto blocks = chunkwise::partition(40, parts{9});
    auto vec = [](const block& b) { return V(b.size(), double(b.index)); };
    auto one = [](const block& b) { return double(b.index); };
    auto text = [](const block& b) { return note{"block " + std::to_string(b.index)}; };
    auto join = [](note a, const note& b) {
        a.text += "," + b.text;
        return a;
    };
    return {
        {"map_blocks", [=](Policy& p) { (void)chunkwise::map_blocks(p, blocks, one); }},
        {"gather", [=](Policy& p) { (void)chunkwise::gather(p, chunkwise::map_blocks(p, blocks, vec)); }},
        {"gather", [=](Policy& p) { (void)chunkwise::gather(p, chunkwise::map_blocks(p, blocks, text)); }},
        {"gather", [=](Policy& p) { (void)chunkwise::gather(p, chunkwise::map_blocks(p, blocks, one)); }},
        {"all_gather", [=](Policy& p) { (void)chunkwise::all_gather(p, chunkwise::map_blocks(p, blocks, vec)); }},
        {"all_gather", [=](Policy& p) { (void)chunkwise::all_gather(p, chunkwise::map_blocks(p, blocks, text)); }},
        {"reduce", [=](Policy& p) { (void)chunkwise::reduce(p, chunkwise::map_blocks(p, blocks, one), std::plus<>{}); }},
        {"reduce", [=](Policy& p) { (void)chunkwise::reduce(p, chunkwise::map_blocks(p, blocks, text), join); }},
        {"all_reduce",
         [=](Policy& p) { (void)chunkwise::all_reduce(p, chunkwise::map_blocks(p, blocks, vec), [](V a, const V& b) {
                              for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) a[i] += b[i];
                              return a;
                          }); }},
        {"all_reduce", [=](Policy& p) { (void)chunkwise::all_reduce(p, chunkwise::map_blocks(p, blocks, text), join); }},
        {"gather_failures",
         [=](Policy& p) {
             chunkwise::run_options opt;
             opt.errors = chunkwise::on_error::collect;
             const auto r = chunkwise::map_blocks(
                 p, blocks,
                 [](const block& b) -> int {
                     if (b.index % 3 == 0) throw std::runtime_error("bad");
                     return 0;
                 },
                 opt);
             (void)chunkwise::gather_failures(p, r);
         }},
        {"gather_stats",
         [=](Policy& p) {
             auto r = chunkwise::map_blocks(p, blocks, one);
             (void)chunkwise::gather_stats(p, r.stats());
         }},
    };
}

}  // namespace

TEMPLATE_TEST_CASE("a throw at any step of any collective on any rank: every rank throws the same error",
                   "[mpi][faults]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const std::vector<std::string> steps{"agree", "serialize", "transfer", "deserialize", "combine"};
    std::set<std::pair<std::string, std::string>> fired;
    for (const auto& collective : collectives<decltype(policy)>()) {
        const auto& name = collective.first;
        const auto& run = collective.second;  // not a structured binding: clang before 16 cannot capture one
        for (const std::string& step : steps) {
            for (int rank = 0; rank < world.size(); ++rank) {
                INFO(TestType::name() << ": " << name << ", " << step << " step on rank " << rank << " of "
                                      << world.size());
                chunkwise::detail::mpi_fault = {rank, name, step};
                const outcome o = agreed_outcome([&] { run(policy); });
                chunkwise::detail::mpi_fault = {};
                if (o.threw) {
                    REQUIRE(o.message.find("injected fault in the " + step + " step of " + name) != std::string::npos);
                    REQUIRE(o.message.find("(rank " + std::to_string(rank) + ")") != std::string::npos);
                    fired.insert({name, step});
                }
                test::still_usable(policy);
            }
        }
    }
    // The steps each collective has fired somewhere (a step a collective lacks cannot fire).
    for (const auto& expected : std::vector<std::pair<std::string, std::string>>{
             {"map_blocks", "agree"},      {"gather", "serialize"},      {"gather", "transfer"},
             {"gather", "deserialize"},    {"all_gather", "serialize"},  {"all_gather", "transfer"},
             {"all_gather", "deserialize"}, {"reduce", "combine"},       {"reduce", "serialize"},
             {"reduce", "transfer"},       {"all_reduce", "combine"},    {"all_reduce", "deserialize"},
             {"gather_failures", "serialize"}, {"gather_failures", "deserialize"}, {"gather_stats", "serialize"},
             {"gather_stats", "transfer"}, {"gather_stats", "deserialize"}}) {
        INFO(expected.first << " / " << expected.second);
        REQUIRE(fired.count(expected) == 1);
    }
}

TEMPLATE_TEST_CASE("a result whose serialization throws on one rank: every collective throws everywhere",
                   "[mpi][faults]", CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(12, parts{6});
    for (int bad = 0; bad < world.size(); ++bad) {
        INFO(TestType::name() << ": save throws on rank " << bad);
        auto make = [&](const block& b) { return note{"b" + std::to_string(b.index), bad}; };
        auto join = [](note a, const note& b) {
            a.text += b.text;
            return a;
        };
        // Each collective on fresh results; whether rank `bad` held any to write (under a
        // dynamic schedule it may hold none). In a one-rank world nothing crosses ranks, so
        // nothing is serialized.
        auto check = [&](auto&& combine) {
            int holds = 0;
            const outcome o = agreed_outcome([&] {
                auto r = chunkwise::map_blocks(policy, blocks, make);
                holds = r.size() > 0 ? 1 : 0;
                boost::mpi::broadcast(world, holds, bad);
                combine(std::move(r));
            });
            if (world.size() == 1) return;
            REQUIRE(o.threw == (holds == 1));
            if (o.threw) {
                REQUIRE(o.message.find("note cannot be written on rank " + std::to_string(bad)) != std::string::npos);
            }
        };
        check([&](auto&& r) { (void)chunkwise::gather(policy, std::move(r)); });
        check([&](auto&& r) { (void)chunkwise::all_gather(policy, std::move(r)); });
        check([&](auto&& r) { (void)chunkwise::all_reduce(policy, std::move(r), join); });
        test::still_usable(policy);
    }
    // A load that throws on the root only (and, for all_gather, on every other rank too).
    auto unreadable = [](const block& b) { return note{"b" + std::to_string(b.index), -1, true}; };
    const outcome g =
        agreed_outcome([&] { (void)chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, unreadable)); });
    const outcome ag =
        agreed_outcome([&] { (void)chunkwise::all_gather(policy, chunkwise::map_blocks(policy, blocks, unreadable)); });
    if (world.size() > 1) {
        REQUIRE(g.threw);
        REQUIRE(g.message.find("deserializing a result failed: note cannot be read back (rank 0)") != std::string::npos);
        REQUIRE(ag.threw);
    }
    test::still_usable(policy);
}
