// Mergeable statistics across ranks: reduce and all_reduce of every statistic give serial's bits at
// 1-4 ranks, with every MPI policy (the states travel as their own bytes).
#include "catch.hpp"
#include "mpi_policies.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using chunkwise::block;
namespace acc = chunkwise::acc;

namespace {
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<double> values(std::size_t n) {
    std::mt19937_64 rng(42);
    std::normal_distribution<double> normal(1e6, 5.0);
    std::vector<double> x(n);
    for (double& v : x) v = normal(rng);
    return x;
}
}  // namespace

TEMPLATE_TEST_CASE("reduce of mergeable statistics: serial's bits on every rank count", "[mpi][accumulate]",
                   CHUNKWISE_MPI_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    const auto x = values(20000);
    const auto blocks = chunkwise::partition(x.size(), chunkwise::parts{23});
    auto stats = [&](const block& b) {
        struct all {
            acc::variance<> var;
            acc::extrema<> ext;
            acc::histogram hist{1e6 - 20, 1e6 + 20, 40};
            acc::quantiles q;
            acc::sum<> exact{acc::exact};
        } s;
        s.q = acc::quantiles(200, b.index);
        for (std::size_t i = b.begin; i < b.end; ++i) {
            s.var.add(x[i]);
            s.ext.add(x[i], i);
            s.hist.add(x[i]);
            s.q.add(x[i]);
            s.exact.add(x[i]);
        }
        return s;
    };
    auto var = [&](auto& p) {
        return chunkwise::all_reduce(p, chunkwise::map_blocks(p, blocks, [&](const block& b) { return stats(b).var; }));
    };
    const auto mine = var(policy), ref = var(serial);
    REQUIRE(same_bits(mine.var(), ref.var()));
    REQUIRE(same_bits(mine.mean(), ref.mean()));
    auto q = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) { return stats(b).q; }));
    auto qs = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, [&](const block& b) { return stats(b).q; }));
    auto h = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) { return stats(b).hist; }));
    auto e = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) { return stats(b).ext; }));
    auto es = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, [&](const block& b) { return stats(b).ext; }));
    auto s = chunkwise::all_reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) { return stats(b).exact; }));
    auto ss = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, [&](const block& b) { return stats(b).exact; }));
    REQUIRE(same_bits(s.value(), ss.value()));
    if (policy.is_root()) {
        for (double p : {0.01, 0.5, 0.99}) REQUIRE(same_bits(q.quantile(p), qs.quantile(p)));
        double total = h.underflow() + h.overflow();
        for (double c : h.counts()) total += c;
        REQUIRE(total == static_cast<double>(x.size()));
        REQUIRE(e.argmin() == es.argmin());
        REQUIRE(e.argmax() == es.argmax());
    }
    // Many blocks: whole aligned groups of leaves merge in one pass on each rank, as in serial.
    for (std::size_t n : {300u, 3000u}) {
        const auto many = chunkwise::partition(x.size(), chunkwise::parts{n});
        auto v = [&](auto& p) {
            return chunkwise::all_reduce(p, chunkwise::map_blocks(p, many, [&](const block& b) {
                                             acc::variance<> st;
                                             for (std::size_t i = b.begin; i < b.end; ++i) st.add(x[i]);
                                             return st;
                                         }));
        };
        auto hist = [&](auto& p) {
            return chunkwise::all_reduce(p, chunkwise::map_blocks(p, many, [&](const block& b) {
                                             acc::histogram st(1e6 - 20, 1e6 + 20, 40);
                                             for (std::size_t i = b.begin; i < b.end; ++i) st.add(x[i] * (1 + 1e-9 * i));
                                             return st;
                                         }));
        };
        INFO(n << " blocks");
        const auto a = v(policy), b = v(serial);
        REQUIRE(same_bits(a.var(), b.var()));
        REQUIRE(same_bits(a.mean(), b.mean()));
        REQUIRE(hist(policy).counts() == hist(serial).counts());
    }
    test::still_usable(policy);
}
