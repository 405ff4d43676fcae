// gather and reduce: block order, the fixed tree, and the same bits for every policy.
#include "catch.hpp"
#include "test_util.hpp"
#include "policies.hpp"

#include <chunkwise/chunkwise.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using chunkwise::block;
using chunkwise::parts;

namespace {

using test::wild_sum;
std::string tree_text(const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; }

template <class Policy>
std::string reduce_text(Policy& policy, std::size_t n) {
    const auto blocks = chunkwise::partition(n, parts{n});
    return chunkwise::reduce(
        policy, chunkwise::map_blocks(policy, blocks, [](const block& b) { return std::to_string(b.index); }),
        tree_text);
}

}  // namespace

TEMPLATE_TEST_CASE("reduce combines over the fixed pairwise tree of block indices", "[reduce]",
                   CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    REQUIRE(reduce_text(policy, 1) == "0");
    REQUIRE(reduce_text(policy, 2) == "(0 1)");
    REQUIRE(reduce_text(policy, 3) == "((0 1) 2)");
    REQUIRE(reduce_text(policy, 5) == "(((0 1) (2 3)) 4)");
    REQUIRE(reduce_text(policy, 6) == "(((0 1) (2 3)) (4 5))");
    REQUIRE(reduce_text(policy, 7) == "(((0 1) (2 3)) ((4 5) 6))");
    REQUIRE(reduce_text(policy, 8) == "(((0 1) (2 3)) ((4 5) (6 7)))");
    REQUIRE(reduce_text(policy, 11) == "((((0 1) (2 3)) ((4 5) (6 7))) ((8 9) 10))");
}

namespace {
/// A mergeable type that records the tree its merges make (not plain memory: merged in groups
/// through scratch states).
struct text_tree {
    std::string s;
    void merge(const text_tree& o) {
        if (o.s.empty()) return;
        s = s.empty() ? o.s : tree_text(s, o.s);
    }
};
/// Plain memory: merged in groups in registers. Neither commutative nor associative.
struct hash_tree {
    std::uint64_t h = 0;
    bool set = false;
    void merge(const hash_tree& o) {
        if (!o.set) return;
        h = set ? (h * 1000003u) ^ (o.h + 0x9e3779b97f4a7c15u) : o.h;
        set = true;
    }
};
/// The same combination as a plain op, no R::merge: the tree without groups.
struct hash_op {
    std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return (a * 1000003u) ^ (b + 0x9e3779b97f4a7c15u); }
};
/// A result without a default value: reduce works, and says so when there is nothing to reduce.
struct no_default {
    explicit no_default(int x) : v(x) {}
    int v;
};
}  // namespace

TEMPLATE_TEST_CASE("reduce of mergeable results makes the tree every op makes, with or without failures", "[reduce]",
                   CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    chunkwise::run_options collect;
    collect.errors = chunkwise::on_error::collect;
    for (std::size_t n : {1u, 15u, 16u, 17u, 255u, 256u, 257u, 1000u, 4099u}) {
        const auto blocks = chunkwise::partition(n, parts{n});
        INFO(n << " blocks");
        REQUIRE(chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [](const block& b) {
                                      return text_tree{std::to_string(b.index)};
                                  })).s == reduce_text(policy, n));
        for (std::size_t gap : {0u, 3u, 17u}) {  // every gap-th block fails (0: none)
            auto fails = [gap](const block& b) { return gap != 0 && b.index % gap == 1; };
            const auto merged = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) {
                                                      if (fails(b)) throw std::runtime_error("bad");
                                                      return hash_tree{b.index * 7919u + 1, true};
                                                  }, collect));
            const auto plain = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) {
                                                     if (fails(b)) throw std::runtime_error("bad");
                                                     return std::uint64_t{b.index * 7919u + 1};
                                                 }, collect), hash_op{});
            INFO("gap " << gap);
            REQUIRE(merged.h == plain);
        }
    }
    const auto some = chunkwise::partition(300, parts{300});
    auto one = [](const block&) { return no_default(1); };
    auto add = [](no_default a, const no_default& b) { return no_default(a.v + b.v); };
    REQUIRE(chunkwise::reduce(policy, chunkwise::map_blocks(policy, some, one), add).v == 300);
    REQUIRE_THROWS_WITH(
        chunkwise::reduce(policy, chunkwise::map_blocks(policy, chunkwise::partition(0, parts{1}), one), add),
        Catch::Matchers::Contains("no results to reduce and the result type has no default value"));
}

TEMPLATE_TEST_CASE("reduce of no blocks is R{}", "[reduce]", CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    const auto blocks = chunkwise::partition(0, parts{4});
    REQUIRE(chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, wild_sum), std::plus<>{}) == 0.0);
    REQUIRE(chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, wild_sum)).empty());
}

TEMPLATE_TEST_CASE("gather and reduce give the serial bits for every policy and shape", "[reduce][gather]",
                   CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    std::mt19937 rng(12345);
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 5000)(rng);
        const std::size_t p = std::uniform_int_distribution<std::size_t>(1, 300)(rng);
        const auto blocks = chunkwise::partition(n, parts{p});
        INFO(TestType::name() << " n=" << n << " p=" << p);

        const auto expect_all = chunkwise::gather(serial, chunkwise::map_blocks(serial, blocks, wild_sum));
        const auto got_all = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, wild_sum));
        REQUIRE(got_all.size() == expect_all.size());
        for (std::size_t i = 0; i < got_all.size(); ++i) {
            REQUIRE(std::bit_cast<std::uint64_t>(got_all[i]) == std::bit_cast<std::uint64_t>(expect_all[i]));
        }

        const double expect = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, wild_sum), std::plus<>{});
        const double got = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, wild_sum), std::plus<>{});
        REQUIRE(std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(expect));
    }
}

TEST_CASE("the tree differs from a left fold: reduce is not std::accumulate", "[reduce]") {
    chunkwise::serial_policy serial;
    const auto blocks = chunkwise::partition(4, parts{4});
    const std::vector<double> v{1e16, 1.0, -1e16, 1.0};
    auto r = chunkwise::map_blocks(serial, blocks, [&](const block& b) { return v[b.index]; });
    // ((1e16 + 1) + (-1e16 + 1)) = 1e16 + -1e16 = 0 in doubles, while a left fold gives 1.
    REQUIRE(chunkwise::reduce(serial, std::move(r), std::plus<>{}) == 0.0);
}

TEMPLATE_TEST_CASE("reduce moves whole vectors through a non-commutative op", "[reduce]", CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    const auto blocks = chunkwise::partition(1000, parts{37});
    auto concat = [](std::vector<std::size_t> a, const std::vector<std::size_t>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    const auto all = chunkwise::reduce(policy,
                                       chunkwise::map_blocks(policy, blocks,
                                                             [](const block& b) {
                                                                 std::vector<std::size_t> v;
                                                                 for (auto i = b.begin; i < b.end; ++i) v.push_back(i);
                                                                 return v;
                                                             }),
                                       concat);
    std::vector<std::size_t> expect(1000);
    std::iota(expect.begin(), expect.end(), std::size_t{0});
    REQUIRE(all == expect);
}

TEMPLATE_TEST_CASE("100k tiny blocks", "[map_blocks][reduce]", CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    const auto blocks = chunkwise::partition(250000, parts{150000});
    REQUIRE(blocks.size() == 150000);
    auto r = chunkwise::map_blocks(policy, blocks, [](const block& b) { return b.size(); });
    REQUIRE(r.size() == 150000);
    REQUIRE(chunkwise::reduce(policy, std::move(r), std::plus<>{}) == 250000);
    auto g = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, [](const block& b) { return b.begin; }));
    for (std::size_t i = 0; i < g.size(); ++i) REQUIRE(g[i] == blocks[i].begin);
}
