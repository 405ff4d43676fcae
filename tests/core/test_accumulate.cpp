// Mergeable statistics (<chunkwise/accumulate.hpp>): against a serial two-pass reference in long
// double, on random uneven block layouts (empty blocks, one-element blocks, one block), a
// cancellation case and NaN; bit-identical across policies and 1-8 threads; element-wise over
// tensors; bad input; checkpoints; concatenate; blocks with halos; a user's own mergeable type.
#include "catch.hpp"
#include "policies.hpp"
#include "test_util.hpp"

#include <chunkwise/chunkwise.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using Catch::Matchers::Contains;
using chunkwise::block;
namespace acc = chunkwise::acc;

namespace {

/// A minimal tensor (what chunkwise needs of xtensor: shape(), data(), size(), from_shape).
template <std::size_t N>
struct tensor {
    using value_type = double;
    using shape_type = std::array<std::size_t, N>;
    shape_type dims{};
    std::vector<double> v;
    static tensor from_shape(const shape_type& s) {
        tensor t;
        t.dims = s;
        std::size_t n = 1;
        for (std::size_t e : s) n *= e;
        t.v.assign(n, 0.0);
        return t;
    }
    const shape_type& shape() const { return dims; }
    const double* data() const { return v.data(); }
    double* data() { return v.data(); }
    std::size_t size() const { return v.size(); }
};

/// Random uneven blocks over [0, n): empty ones, one-element ones, large ones.
std::vector<block> uneven_blocks(std::size_t n, std::mt19937_64& rng) {
    std::vector<block> out;
    std::size_t at = 0;
    while (at < n) {
        const std::size_t kind = rng() % 4;
        const std::size_t len = kind == 0 ? 0 : kind == 1 ? 1 : 1 + rng() % (n / 5 + 1);
        const std::size_t end = std::min(n, at + len);
        out.push_back(block{out.size(), at, end});
        at = end;
    }
    out.push_back(block{out.size(), n, n});  // an empty one at the end too
    return out;
}

std::vector<double> data_of(std::size_t n, std::uint64_t seed, double offset = 0) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 3.0);
    std::vector<double> x(n);
    for (double& v : x) v = offset + normal(rng);
    return x;
}

template <class Stat, class Add>
Stat reduce_over(auto& policy, const std::vector<block>& blocks, Add add) {
    return chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) {
                                 Stat s;
                                 for (std::size_t i = b.begin; i < b.end; ++i) add(s, i);
                                 return s;
                             }));
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEMPLATE_TEST_CASE("moments against a two-pass long double reference, the same bits on every policy",
                   "[accumulate]", CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        for (double offset : {0.0, 1e9}) {  // 1e9 + small values: the cancellation case
            std::mt19937_64 rng(seed);
            const std::size_t n = 2000 + rng() % 3000;
            const auto x = data_of(n, seed, offset);
            const auto y = data_of(n, seed + 100, offset / 2);
            const auto blocks = seed == 3 ? std::vector<block>{block{0, 0, n}} : uneven_blocks(n, rng);
            INFO("seed " << seed << ", offset " << offset << ", " << blocks.size() << " blocks");
            long double mean = 0, my = 0;
            for (std::size_t i = 0; i < n; ++i) {
                mean += x[i];
                my += y[i];
            }
            mean /= n;
            my /= n;
            long double m2 = 0, cxy = 0, m2y = 0;
            for (std::size_t i = 0; i < n; ++i) {
                m2 += (x[i] - mean) * (x[i] - mean);
                cxy += (x[i] - mean) * (y[i] - my);
                m2y += (y[i] - my) * (y[i] - my);
            }
            auto var = reduce_over<acc::variance<>>(policy, blocks, [&](auto& s, std::size_t i) { s.add(x[i]); });
            auto ref = reduce_over<acc::variance<>>(serial, blocks, [&](auto& s, std::size_t i) { s.add(x[i]); });
            REQUIRE(var.count() == n);
            const double scale = std::fabs(offset) + 3.0;  // the data's magnitude: rounding is relative to it
            REQUIRE(var.mean() == Approx(static_cast<double>(mean)).margin(1e-14 * scale));
            REQUIRE(var.var() == Approx(static_cast<double>(m2 / n)).epsilon(1e-10));
            REQUIRE(var.var(1) == Approx(static_cast<double>(m2 / (n - 1))).epsilon(1e-10));
            REQUIRE(var.std() == Approx(std::sqrt(static_cast<double>(m2 / n))).epsilon(1e-10));
            REQUIRE(same_bits(var.var(), ref.var()));
            REQUIRE(same_bits(var.mean(), ref.mean()));
            auto m = reduce_over<acc::mean<>>(policy, blocks, [&](auto& s, std::size_t i) { s.add(x[i]); });
            REQUIRE(m.value() == Approx(static_cast<double>(mean)).margin(1e-14 * scale));
            REQUIRE(m.count() == n);
            REQUIRE(same_bits(m.value(),
                              reduce_over<acc::mean<>>(serial, blocks, [&](auto& s, std::size_t i) { s.add(x[i]); })
                                  .value()));
            auto c = reduce_over<acc::covariance<>>(policy, blocks, [&](auto& s, std::size_t i) { s.add(x[i], y[i]); });
            REQUIRE(c.cov() == Approx(static_cast<double>(cxy / n)).epsilon(1e-9));
            REQUIRE(c.corr() == Approx(static_cast<double>(cxy / std::sqrt(m2 * m2y))).epsilon(1e-9));
            auto s = reduce_over<acc::sum<>>(policy, blocks, [&](auto& st, std::size_t i) { st.add(x[i]); });
            REQUIRE(s.value() == Approx(static_cast<double>(mean * n)).margin(1e-13 * scale * std::sqrt(double(n))));
            auto cnt = reduce_over<acc::count>(policy, blocks, [&](auto& st, std::size_t) { st.add(); });
            REQUIRE(cnt.value() == n);
        }
    }
}

TEST_CASE("a weighted mean of uneven blocks is the mean of the data, not of the block means", "[accumulate]") {
    chunkwise::thread_policy pool(3);
    // Blocks of 1, 10 and 1000 values: the mean of block means would be far off.
    const std::vector<block> blocks{block{0, 0, 1}, block{1, 1, 11}, block{2, 11, 1011}};
    auto m = reduce_over<acc::mean<>>(pool, blocks, [](auto& s, std::size_t i) { s.add(i < 1 ? 1000.0 : 1.0); });
    REQUIRE(m.value() == Approx((1000.0 + 1010.0) / 1011.0));
    acc::mean<> w;
    w.add(1.0, 3.0);
    w.add(5.0, 1.0);
    REQUIRE(w.value() == 2.0);
    REQUIRE(w.weight() == 4.0);
    REQUIRE(w.count() == 2);
    REQUIRE(std::isnan(acc::mean<>{}.value()));
}

TEST_CASE("an exact sum: the correctly rounded sum whatever the order", "[accumulate]") {
    std::vector<double> x{1e100, 1.0, -1e100, 1e-30, 3.0, -2.0};
    acc::sum<> exact(acc::exact), compensated;
    for (double v : x) {
        exact.add(v);
        compensated.add(v);
    }
    REQUIRE(exact.value() == 2.0 + 1e-30);
    REQUIRE(exact.is_exact());
    // Merged in another split: the same bits.
    acc::sum<> a(acc::exact), b(acc::exact);
    for (std::size_t i = 0; i < x.size(); ++i) (i % 2 ? a : b).add(x[i]);
    b.merge(a);
    REQUIRE(same_bits(b.value(), exact.value()));
    acc::sum<> identity;
    identity.merge(exact);  // the identity takes the mode of what it merges
    REQUIRE(identity.is_exact());
    REQUIRE_THROWS_WITH(compensated.merge(exact), Contains("an exact sum with a compensated one"));
    chunkwise::thread_policy pool(4);
    const auto blocks = chunkwise::partition(x.size(), chunkwise::parts{3});
    auto r = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, [&](const block& bl) {
                                   acc::sum<> s(acc::exact);
                                   for (std::size_t i = bl.begin; i < bl.end; ++i) s.add(x[i]);
                                   return s;
                               }));
    REQUIRE(r.value() == 2.0 + 1e-30);
}

TEST_CASE("NaN: moments propagate it, extrema, histogram and quantiles skip and count it", "[accumulate]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    acc::variance<> v;
    acc::mean<> m;
    acc::extrema<> e;
    acc::histogram h(0, 10, 10);
    acc::quantiles q;
    const std::vector<double> x{1.0, nan, 3.0, 2.0};
    for (std::size_t i = 0; i < x.size(); ++i) {
        v.add(x[i]);
        m.add(x[i]);
        e.add(x[i], i);
        h.add(x[i]);
        q.add(x[i]);
    }
    REQUIRE(std::isnan(v.var()));
    REQUIRE(std::isnan(m.value()));
    REQUIRE(e.min() == 1.0);
    REQUIRE(e.max() == 3.0);
    REQUIRE(e.argmax() == 2);
    REQUIRE(e.nans() == 1);
    REQUIRE(h.nans() == 1);
    REQUIRE(q.nans() == 1);
    REQUIRE(q.count() == 3);
    REQUIRE(q.quantile(0.5) == 2.0);
    acc::quantiles only_nan;
    only_nan.add(nan);
    REQUIRE_THROWS_WITH(only_nan.quantile(0.5), Contains("empty") && Contains("only NaN"));
}

TEMPLATE_TEST_CASE("extrema: global indices, ties to the lowest index, the same on every split", "[accumulate]",
                   CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    std::mt19937_64 rng(7);
    const std::size_t n = 5000;
    std::vector<double> x(n);
    for (double& v : x) v = static_cast<double>(rng() % 50);  // many ties
    const auto blocks = uneven_blocks(n, rng);
    auto e = reduce_over<acc::extrema<>>(policy, blocks, [&](auto& s, std::size_t i) { s.add(x[i], i); });
    const auto lo = std::min_element(x.begin(), x.end()), hi = std::max_element(x.begin(), x.end());
    REQUIRE(e.min() == *lo);
    REQUIRE(e.max() == *hi);
    REQUIRE(e.argmin() == static_cast<std::uint64_t>(lo - x.begin()));  // the first of the equal ones
    REQUIRE(e.argmax() == static_cast<std::uint64_t>(hi - x.begin()));
    REQUIRE_THROWS_WITH(acc::extrema<>{}.argmin(), Contains("no value was added"));
}

TEMPLATE_TEST_CASE("histogram and quantiles: counts exact, quantiles within their bound, the same bits everywhere",
                   "[accumulate]", CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    chunkwise::serial_policy serial;
    for (int dist = 0; dist < 3; ++dist) {
        std::mt19937_64 rng(100 + dist);
        const std::size_t n = 60000;
        std::vector<double> x(n);
        std::normal_distribution<double> normal(5, 2);
        std::exponential_distribution<double> expo(0.5);
        for (double& v : x) v = dist == 0 ? static_cast<double>(rng() % 100000) : dist == 1 ? normal(rng) : expo(rng);
        const auto blocks = uneven_blocks(n, rng);
        INFO("distribution " << dist << ", " << blocks.size() << " blocks");
        auto q = chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) {
                                       acc::quantiles s(200, b.index);
                                       for (std::size_t i = b.begin; i < b.end; ++i) s.add(x[i]);
                                       return s;
                                   }));
        auto qs = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, [&](const block& b) {
                                        acc::quantiles s(200, b.index);
                                        for (std::size_t i = b.begin; i < b.end; ++i) s.add(x[i]);
                                        return s;
                                    }));
        std::vector<double> sorted = x;
        std::sort(sorted.begin(), sorted.end());
        REQUIRE(q.count() == n);
        REQUIRE(q.rank_error() > 0);
        REQUIRE(q.held() < 2000);  // bounded memory, not n
        for (double p : {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0}) {
            const double v = q.quantile(p);
            REQUIRE(same_bits(v, qs.quantile(p)));
            const double rank = static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
            const double rank_hi = static_cast<double>(std::upper_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
            const double want = p * static_cast<double>(n);
            const double err = want < rank ? rank - want : want > rank_hi ? want - rank_hi : 0.0;
            REQUIRE(err / static_cast<double>(n) <= q.rank_error());
        }
        auto h = reduce_over<acc::histogram>(policy, blocks, [&](auto& s, std::size_t i) {
            if (s.counts().empty()) s = acc::histogram(0, 10, 20);
            s.add(x[i]);
        });
        double total = h.underflow() + h.overflow();
        for (double c : h.counts()) total += c;
        REQUIRE(total == static_cast<double>(n));
        std::size_t in_bin_3 = 0;
        for (double v : x) in_bin_3 += v >= 1.5 && v < 2.0;
        REQUIRE(h.counts()[3] == static_cast<double>(in_bin_3));
    }
    acc::quantiles small;
    for (int i = 0; i < 100; ++i) small.add(i);
    REQUIRE(small.rank_error() == 0);  // exact until the first compaction
    REQUIRE(small.quantile(0.5) == 49);
}

TEST_CASE("bad input: shapes and bins that differ, an empty sketch, a halo larger than the data", "[accumulate]") {
    acc::variance<tensor<2>> v;
    v.add(tensor<2>::from_shape({3, 4}));
    REQUIRE_THROWS_WITH(v.add(tensor<2>::from_shape({3, 5})), Contains("shape (3, 5)") && Contains("shape (3, 4)"));
    acc::variance<tensor<2>> other;
    other.add(tensor<2>::from_shape({2, 2}));
    REQUIRE_THROWS_WITH(v.merge(other), Contains("shape (3, 4)") && Contains("shape (2, 2)"));
    acc::histogram a(0, 1, 10), b(0, 2, 10);
    a.add(0.5);
    b.add(0.5);
    REQUIRE_THROWS_WITH(a.merge(b), Contains("10 bins over [0, 1)") && Contains("10 bins over [0, 2)"));
    REQUIRE_THROWS_AS(acc::histogram(1, 1, 3), std::invalid_argument);
    REQUIRE_THROWS_AS(acc::histogram(0, 1, 0), std::invalid_argument);
    REQUIRE_THROWS_WITH(acc::histogram{}.add(1.0), Contains("has no bins"));
    REQUIRE_THROWS_WITH(acc::quantiles{}.quantile(0.5), Contains("empty"));
    acc::quantiles q;
    q.add(1);
    REQUIRE_THROWS_WITH(q.quantile(1.5), Contains("must lie in [0, 1]"));
    acc::quantiles k100(100);
    k100.add(2);
    REQUIRE_THROWS_WITH(q.merge(k100), Contains("k = 200 and k = 100"));
    q.merge(acc::quantiles(100));  // an empty sketch is the identity, whatever its k
    REQUIRE(q.count() == 1);
    REQUIRE_THROWS_AS(acc::quantiles(4), std::invalid_argument);
    REQUIRE_THROWS_WITH(chunkwise::partition(10, chunkwise::parts{2}, chunkwise::halo{11}),
                        Contains("halo{11}: larger than the data (10 items)"));
}

TEST_CASE("element-wise over tensors: each element its own statistic", "[accumulate]") {
    chunkwise::thread_policy pool(3);
    const std::size_t frames = 500;
    auto frame = [](std::size_t f) {
        auto t = tensor<2>::from_shape({4, 3});
        for (std::size_t i = 0; i < t.size(); ++i) t.v[i] = std::sin(double(f * 13 + i)) * double(i + 1) + 1e6;
        return t;
    };
    const auto blocks = chunkwise::partition(frames, chunkwise::parts{7});
    auto v = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                   acc::variance<tensor<2>> s;
                                   for (std::size_t f = b.begin; f < b.end; ++f) s.add(frame(f));
                                   return s;
                               }));
    const auto var = v.var();
    REQUIRE(var.shape() == std::array<std::size_t, 2>{4, 3});
    for (std::size_t i = 0; i < 12; ++i) {
        long double mean = 0, m2 = 0;
        for (std::size_t f = 0; f < frames; ++f) mean += frame(f).v[i];
        mean /= frames;
        for (std::size_t f = 0; f < frames; ++f) m2 += (frame(f).v[i] - mean) * (frame(f).v[i] - mean);
        REQUIRE(var.v[i] == Approx(static_cast<double>(m2 / frames)).epsilon(1e-9));
    }
    acc::extrema<tensor<2>> e;
    for (std::size_t f = 0; f < frames; ++f) e.add(frame(f), f);
    REQUIRE(e.argmax().size() == 12);
}

namespace {
/// Frames stacked along axis 0, as float (what add_rows reads: shape(), data(), size()).
struct float_rows {
    std::array<std::size_t, 3> dims{};
    std::vector<float> v;
    const std::array<std::size_t, 3>& shape() const { return dims; }
    const float* data() const { return v.data(); }
    std::size_t size() const { return v.size(); }
};
}  // namespace

TEST_CASE("add_rows: a block's rows at once, against the reference, the same bits on every policy", "[accumulate]") {
    for (const std::size_t atoms : {37u, 400u}) {  // one tile of elements, then several (512 a tile)
        const std::size_t frames = 203, m = atoms * 3;
        float_rows all{{frames, atoms, 3}, std::vector<float>(frames * m)};
        std::mt19937_64 rng(atoms);
        std::normal_distribution<float> normal(0.0f, 2.0f);
        for (std::size_t i = 0; i < all.v.size(); ++i) all.v[i] = 1000.0f + float(i % m) + normal(rng);
        auto rows_of = [&](std::size_t b, std::size_t e) {
            return float_rows{{e - b, atoms, 3}, std::vector<float>(all.v.begin() + b * m, all.v.begin() + e * m)};
        };
        const auto blocks = uneven_blocks(frames, rng);
        auto run = [&](auto& policy) {
            return chunkwise::reduce(policy, chunkwise::map_blocks(policy, blocks, [&](const block& b) {
                                         acc::variance<tensor<2>> s;
                                         const std::size_t half = b.begin + b.size() / 2;  // twice: the merge path
                                         s.add_rows(rows_of(b.begin, half));
                                         s.add_rows(rows_of(half, b.end));
                                         return s;
                                     }));
        };
        chunkwise::serial_policy serial;
        chunkwise::thread_policy pool(3);
        const auto v = run(pool);
        const auto ref = run(serial);
        REQUIRE(v.count() == frames);
        const auto var = v.var(1), mean = v.mean(), var_ref = ref.var(1);
        REQUIRE(var.shape() == std::array<std::size_t, 2>{atoms, 3});
        for (std::size_t i = 0; i < m; ++i) {
            long double mu = 0, m2 = 0;
            for (std::size_t f = 0; f < frames; ++f) mu += all.v[f * m + i];
            mu /= frames;
            for (std::size_t f = 0; f < frames; ++f) m2 += (all.v[f * m + i] - mu) * (all.v[f * m + i] - mu);
            INFO("atoms " << atoms << ", element " << i);
            REQUIRE(mean.v[i] == Approx(static_cast<double>(mu)).epsilon(1e-12));
            REQUIRE(var.v[i] == Approx(static_cast<double>(m2 / (frames - 1))).epsilon(1e-9));
            REQUIRE(same_bits(var.v[i], var_ref.v[i]));
        }
    }
    // Scalars: rows of rank 1, one value each.
    acc::variance<> by_rows, by_value;
    float_rows line{{5, 1, 1}, {1.f, 2.f, 4.f, 8.f, 16.f}};
    struct vec1 {
        std::array<std::size_t, 1> dims;
        std::vector<float> v;
        const std::array<std::size_t, 1>& shape() const { return dims; }
        const float* data() const { return v.data(); }
        std::size_t size() const { return v.size(); }
    };
    by_rows.add_rows(vec1{{5}, line.v});
    for (float x : line.v) by_value.add(x);
    REQUIRE(by_rows.var() == Approx(by_value.var()).epsilon(1e-15));
    REQUIRE_THROWS_WITH(by_rows.add_rows(line), Contains("values of shape (1, 1) added to a statistic of scalars"));
    acc::variance<tensor<2>> t;
    t.add_rows(float_rows{{2, 4, 3}, std::vector<float>(24, 1.f)});
    REQUIRE_THROWS_WITH(t.add_rows(float_rows{{2, 5, 3}, std::vector<float>(30, 1.f)}),
                        Contains("shape (5, 3)") && Contains("shape (4, 3)"));
}

TEMPLATE_TEST_CASE("add_rows: the AVX2 kernel gives the generic kernel's bits", "[accumulate]", float, double) {
#ifdef CHUNKWISE_ROW_SUMS_AVX2
    if (!chunkwise::detail::acc::cpu_has_avx2()) SUCCEED("this CPU has no AVX2: one kernel only");
    else {
        std::mt19937_64 rng(7);
        std::normal_distribution<double> normal(5.0, 3.0);
        for (std::size_t k = 1; k <= 9; ++k) {  // 4 rows a pass and the rest
            const std::size_t m = 700;
            std::vector<TestType> p(k * m);
            for (auto& x : p) x = static_cast<TestType>(normal(rng));
            std::vector<double> a(3 * m), b(3 * m);
            for (std::size_t t0 : {std::size_t{0}, std::size_t{512}}) {
                const std::size_t len = std::min<std::size_t>(512, m - t0);
                chunkwise::detail::acc::row_sums_generic(p.data(), k, m, t0, len, a.data(), a.data() + m, a.data() + 2 * m);
                chunkwise::detail::acc::row_sums_avx2(p.data(), k, m, t0, len, b.data(), b.data() + m, b.data() + 2 * m);
            }
            INFO("k = " << k);
            REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
        }
    }
#else
    SUCCEED("not x86-64: one kernel only");
#endif
}

TEST_CASE("scalar statistics are plain memory; a tensor's state is refused as a scalar's", "[accumulate]") {
    static_assert(std::is_trivially_copyable_v<acc::mean<>>);
    static_assert(std::is_trivially_copyable_v<acc::variance<>>);
    static_assert(std::is_trivially_copyable_v<acc::covariance<>>);
    static_assert(std::is_trivially_copyable_v<acc::extrema<>>);
    acc::mean<tensor<1>> m;
    m.add(tensor<1>::from_shape({3}));
    std::string bytes;
    m.save_bytes(bytes);
    REQUIRE_THROWS_AS(acc::mean<>::load_bytes(bytes), chunkwise::detail::codec_error);
    acc::mean<> s;
    s.add(2.5);
    std::string sb;
    s.save_bytes(sb);
    REQUIRE(acc::mean<>::load_bytes(sb).value() == 2.5);
}

namespace {
/// A user's own mergeable statistic: a count of even values and odd values.
struct parity {
    std::uint64_t even = 0, odd = 0;
    void add(std::uint64_t v) { (v % 2 ? odd : even) += 1; }
    void merge(const parity& o) {
        even += o.even;
        odd += o.odd;
    }
    static std::string type_name() { return "parity/1"; }
    void save_bytes(std::string& out) const {
        out.append(reinterpret_cast<const char*>(&even), 8);
        out.append(reinterpret_cast<const char*>(&odd), 8);
    }
    static parity load_bytes(std::string_view in) {
        if (in.size() != 16) throw std::runtime_error("not a parity");
        parity p;
        std::memcpy(&p.even, in.data(), 8);
        std::memcpy(&p.odd, in.data() + 8, 8);
        return p;
    }
};
static_assert(chunkwise::mergeable<parity>);
static_assert(chunkwise::mergeable<acc::variance<>>);
static_assert(chunkwise::mergeable<acc::quantiles>);
static_assert(!chunkwise::mergeable<int>);
}  // namespace

TEST_CASE("a user's mergeable type and every statistic are checkpointed and resumed with the same bits",
          "[accumulate][checkpoint]") {
    const auto dir = test::scratch("acc-ckpt");
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{9});
    std::atomic<int> calls{0};
    auto run = [&] {
        return chunkwise::reduce(pool, chunkwise::map_blocks(
                                           pool, blocks,
                                           [&](const block& b) {
                                               ++calls;
                                               parity p;
                                               for (std::size_t i = b.begin; i < b.end; ++i) p.add(i * i);
                                               return p;
                                           },
                                           opt));
    };
    const parity first = run();
    calls = 0;
    const parity again = run();
    REQUIRE(calls == 0);
    REQUIRE(again.even == first.even);
    REQUIRE(again.odd == 500);
    // Statistics through their own bytes, with the same bits after a load.
    auto var = [&](const block& b) {
        acc::variance<> s;
        for (std::size_t i = b.begin; i < b.end; ++i) s.add(std::sqrt(double(i)));
        return s;
    };
    const auto v1 = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, var, opt));
    const auto v2 = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, var, opt));
    REQUIRE(same_bits(v1.var(), v2.var()));
    auto quant = [&](const block& b) {
        acc::quantiles q(64, b.index);
        for (std::size_t i = b.begin; i < b.end; ++i) q.add(double((i * 7919) % 1000));
        return q;
    };
    const auto q1 = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, quant, opt));
    const auto q2 = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, quant, opt));
    REQUIRE(same_bits(q1.quantile(0.37), q2.quantile(0.37)));
    // Bytes that are not a state are refused.
    std::string bytes;
    v1.save_bytes(bytes);
    REQUIRE(same_bits(acc::variance<>::load_bytes(bytes).var(), v1.var()));
    REQUIRE_THROWS_AS(acc::variance<>::load_bytes(bytes.substr(0, bytes.size() - 3)), chunkwise::error);
    REQUIRE_THROWS_AS(acc::mean<>::load_bytes(bytes), chunkwise::error);
    std::filesystem::remove_all(dir);
}

TEST_CASE("concatenate joins gathered vectors in block order", "[accumulate]") {
    chunkwise::thread_policy pool(3);
    const auto blocks = chunkwise::partition(1001, chunkwise::parts{13});
    const auto all = chunkwise::concatenate(chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [](const block& b) {
        std::vector<std::size_t> v;
        for (std::size_t i = b.begin; i < b.end; ++i) v.push_back(i * 2);
        return v;
    })));
    REQUIRE(all.size() == 1001);
    for (std::size_t i = 0; i < all.size(); ++i) REQUIRE(all[i] == i * 2);
    REQUIRE(chunkwise::concatenate(std::vector<std::vector<int>>{}).empty());
}

TEMPLATE_TEST_CASE("blocks with halos: own ranges cover the data once, reads overlap, results have no duplicates",
                   "[accumulate][halo]", CHUNKWISE_LOCAL_POLICIES) {
    auto policy = TestType::make();
    const std::size_t n = 1000, window = 7;
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::cos(double(i));
    // A running mean over the next `window` items: needs the next block's first items.
    std::vector<double> expect(n);
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0;
        std::size_t k = 0;
        for (std::size_t j = i; j < std::min(n, i + window); ++j, ++k) s += x[j];
        expect[i] = s / double(k);
    }
    for (std::size_t parts : {1u, 3u, 17u, 200u}) {
        const auto blocks = chunkwise::partition(n, chunkwise::parts{parts}, chunkwise::halo{window});
        std::size_t covered = 0;
        for (const auto& b : blocks) {
            REQUIRE(b.read_begin <= b.begin);
            REQUIRE(b.read_end >= b.end);
            REQUIRE(b.read_end <= n);
            REQUIRE(b.read_end - b.end == std::min(window, n - b.end));
            covered += b.size();
        }
        REQUIRE(covered == n);
        auto running = [&](const chunkwise::halo_block& b) {
            std::vector<double> over;  // one per item read
            for (std::size_t i = b.read_begin; i < b.read_end; ++i) {
                double s = 0;
                std::size_t k = 0;
                for (std::size_t j = i; j < std::min(b.read_end, i + window); ++j, ++k) s += x[j];
                over.push_back(s / double(k));
            }
            return b.own(over);
        };
        const auto got = chunkwise::concatenate(chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, running)));
        REQUIRE(got == expect);
    }
    const auto dir = test::scratch("halo-ckpt");
    chunkwise::run_options opt;
    opt.checkpoint = dir;
    std::atomic<int> calls{0};
    auto sizes = [&](const chunkwise::halo_block& b) {
        ++calls;
        return b.read_end - b.read_begin;
    };
    (void)chunkwise::map_blocks(policy, chunkwise::partition(n, chunkwise::parts{5}, chunkwise::halo{3}), sizes, opt);
    calls = 0;
    (void)chunkwise::map_blocks(policy, chunkwise::partition(n, chunkwise::parts{5}, chunkwise::halo{3}), sizes, opt);
    REQUIRE(calls == 0);
    // Another halo is another block: never loaded as this one.
    (void)chunkwise::map_blocks(policy, chunkwise::partition(n, chunkwise::parts{5}, chunkwise::halo{9}), sizes, opt);
    REQUIRE(calls == 5);
    REQUIRE_THROWS_WITH(chunkwise::halo_block{}.own(std::vector<int>(3)), Contains("3 values for the 0 items"));
    std::filesystem::remove_all(dir);
}
