// The statistics of chunkwise::acc at the edges of double: ±inf, NaN, ±1e308 and ±DBL_MAX,
// subnormals, signed zeros and values on bin edges, for every statistic, against references from
// exact rational arithmetic, math.fsum and numpy (tests/support/acc_edges.py, run here), unmerged
// and merged at every split (halves, every value alone, empty states between), and for variance
// through add_rows too.
#include "catch.hpp"
#include "test_util.hpp"

#include <chunkwise/accumulate.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace acc = chunkwise::acc;

namespace {

struct expectation {
    std::string name, mode;
    double value = 0, tol = 0;
};

struct edge_case {
    std::string stat, line;
    std::vector<double> params, x, y;
    std::vector<expectation> expects;
};

double number(const std::string& t) {
    if (t == "nan") return std::nan("");
    return std::strtod(t.c_str(), nullptr);  // hex floats, inf, -inf
}

std::vector<edge_case> load_cases() {
    const auto dir = test::scratch("acc-edges");
    const auto file = dir / "cases.txt";
    const std::string cmd = std::string(CHUNKWISE_TEST_PYTHON) + " " + CHUNKWISE_TEST_SUPPORT_DIR +
                            "/acc_edges.py " + file.string() + " > " + (dir / "py.log").string() + " 2>&1";
    if (std::system(cmd.c_str()) != 0) FAIL("acc_edges.py failed: " << test::read_text(dir / "py.log"));
    std::ifstream in(file);
    std::vector<edge_case> out;
    for (std::string line; std::getline(in, line);) {
        std::istringstream s(line);
        edge_case c;
        c.line = line;
        std::size_t n = 0;
        std::string t;
        s >> c.stat >> n;
        for (std::size_t i = 0; i < n && s >> t; ++i) c.params.push_back(number(t));
        s >> n;
        for (std::size_t i = 0; i < n && s >> t; ++i) c.x.push_back(number(t));
        s >> n;
        for (std::size_t i = 0; i < n && s >> t; ++i) c.y.push_back(number(t));
        s >> n;
        for (std::size_t i = 0; i < n; ++i) {
            expectation e;
            std::string v, tol;
            s >> e.name >> e.mode >> v >> tol;
            e.value = number(v);
            e.tol = number(tol);
            c.expects.push_back(e);
        }
        out.push_back(std::move(c));
    }
    return out;
}

bool meets(const expectation& e, double got) {
    if (std::isnan(e.value)) return std::isnan(got);
    if (e.mode == "exact") return got == e.value;
    if (e.mode == "tol_or_nan" && !std::isfinite(got)) return true;
    if ((e.mode == "tol_or_inf" || e.mode == "tol_or_nan") && std::isinf(got)) return true;
    if (std::isinf(e.value)) return got == e.value;
    return std::isfinite(got) && std::fabs(got - e.value) <= e.tol;
}

std::string text(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}

/// A 1-d array of scalars for add_rows: one value per row.
struct rows1 {
    using value_type = double;
    using shape_type = std::array<std::size_t, 1>;
    shape_type dims{};
    std::vector<double> v;
    const shape_type& shape() const { return dims; }
    const double* data() const { return v.data(); }
    std::size_t size() const { return v.size(); }
};

/// Every way the test combines a statistic over values [0, n): `make(lo, hi)` builds the state of
/// values [lo, hi); `check(state, how)` checks it.
template <class S, class Make, class Check>
void every_way(std::size_t n, Make make, Check check) {
    check(make(0, n), "unmerged");
    for (std::size_t s = 0; s <= n; ++s) {  // two halves, with empty states around
        S a = make(0, s);
        a.merge(S{});
        a.merge(make(s, n));
        check(a, "split at " + std::to_string(s));
    }
    S each{};  // every value alone, merged in order
    for (std::size_t i = 0; i < n; ++i) each.merge(make(i, i + 1));
    check(each, "every value alone");
    if (n >= 3) {  // a tree: (first, (middle, last))
        S right = make(1, n - 1);
        right.merge(make(n - 1, n));
        S tree = make(0, 1);
        tree.merge(right);
        check(tree, "tree");
    }
}

}  // namespace

TEST_CASE("statistics at the edges of double agree with exact arithmetic, math.fsum and numpy", "[acc][edges]") {
    const auto cases = load_cases();
    REQUIRE(cases.size() > 1500);
    std::map<std::string, std::size_t> checked;
    for (const auto& c : cases) {
        const std::size_t n = c.x.size();
        auto verify = [&](const std::string& how, const std::function<double(const expectation&)>& get) {
            for (const auto& e : c.expects) {
                const double got = get(e);
                INFO(c.stat << " (" << how << "), " << e.name << ": got " << text(got) << ", expected " << text(e.value)
                            << " (" << e.mode << " " << text(e.tol) << ")\n  case: " << c.line);
                CHECK(meets(e, got));
                ++checked[c.stat];
            }
        };
        if (c.stat == "sum" || c.stat == "exact_sum") {
            const bool exact = c.stat == "exact_sum";
            every_way<acc::sum<>>(
                n,
                [&](std::size_t lo, std::size_t hi) {
                    acc::sum<> s = exact ? acc::sum<>(acc::exact) : acc::sum<>();
                    for (std::size_t i = lo; i < hi; ++i) s.add(c.x[i]);
                    return s;
                },
                [&](const acc::sum<>& s, const std::string& how) {
                    verify(how, [&](const expectation&) { return s.value(); });
                    // the state survives its bytes (checkpoints, MPI)
                    std::string b;
                    s.save_bytes(b);
                    const auto back = acc::sum<>::load_bytes(b).value();
                    CHECK((back == s.value() || (std::isnan(back) && std::isnan(s.value()))));
                });
        } else if (c.stat == "mean") {
            every_way<acc::mean<>>(
                n,
                [&](std::size_t lo, std::size_t hi) {
                    acc::mean<> m;
                    for (std::size_t i = lo; i < hi; ++i) m.add(c.x[i]);
                    return m;
                },
                [&](const acc::mean<>& m, const std::string& how) {
                    verify(how, [&](const expectation&) { return m.value(); });
                });
        } else if (c.stat == "variance") {
            auto get = [](const acc::variance<>& v) {
                return [&v](const expectation& e) { return e.name == "mean" ? v.mean() : v.var(); };
            };
            every_way<acc::variance<>>(
                n,
                [&](std::size_t lo, std::size_t hi) {
                    acc::variance<> v;
                    for (std::size_t i = lo; i < hi; ++i) v.add(c.x[i]);
                    return v;
                },
                [&](const acc::variance<>& v, const std::string& how) {
                    verify(how, get(v));
                    std::string b;
                    v.save_bytes(b);
                    const auto back = acc::variance<>::load_bytes(b);
                    verify(how + ", through its bytes", get(back));
                });
            every_way<acc::variance<>>(
                n,
                [&](std::size_t lo, std::size_t hi) {
                    acc::variance<> v;
                    rows1 r;
                    r.dims = {hi - lo};
                    r.v.assign(c.x.begin() + static_cast<std::ptrdiff_t>(lo), c.x.begin() + static_cast<std::ptrdiff_t>(hi));
                    v.add_rows(r);
                    return v;
                },
                [&](const acc::variance<>& v, const std::string& how) { verify("add_rows, " + how, get(v)); });
        } else if (c.stat == "covariance") {
            every_way<acc::covariance<>>(
                n,
                [&](std::size_t lo, std::size_t hi) {
                    acc::covariance<> v;
                    for (std::size_t i = lo; i < hi; ++i) v.add(c.x[i], c.y[i]);
                    return v;
                },
                [&](const acc::covariance<>& v, const std::string& how) {
                    verify(how, [&](const expectation& e) { return e.name == "cov" ? v.cov() : v.corr(); });
                });
        } else if (c.stat == "extrema") {
            every_way<acc::extrema<>>(
                n,
                [&](std::size_t lo, std::size_t hi) {
                    acc::extrema<> v;
                    for (std::size_t i = lo; i < hi; ++i) v.add(c.x[i], i);
                    return v;
                },
                [&](const acc::extrema<>& v, const std::string& how) {
                    verify(how, [&](const expectation& e) {
                        if (e.name == "min") return v.min();
                        if (e.name == "max") return v.max();
                        return static_cast<double>(e.name == "argmin" ? v.argmin() : v.argmax());
                    });
                    // -0.0 and 0.0: the first one seen, as its index says
                    for (const auto& e : c.expects) {
                        if (e.name == "min" && v.min() == 0) CHECK(std::signbit(v.min()) == std::signbit(e.value));
                    }
                });
        } else if (c.stat == "quantiles") {
            every_way<acc::quantiles>(
                n,
                [&](std::size_t lo, std::size_t hi) {
                    acc::quantiles q;
                    for (std::size_t i = lo; i < hi; ++i) q.add(c.x[i]);
                    return q;
                },
                [&](const acc::quantiles& q, const std::string& how) {
                    verify(how, [&](const expectation& e) { return q.quantile(number(e.name.substr(1))); });
                });
        } else if (c.stat == "histogram") {
            const double lo = c.params[0], hi = c.params[1];
            const auto bins = static_cast<std::size_t>(c.params[2]);
            auto get = [&](const acc::histogram& h) {
                return [&h](const expectation& e) {
                    if (e.name.rfind("edge", 0) == 0) return h.edges()[std::stoul(e.name.substr(4))];
                    if (e.name.rfind("count", 0) == 0) return h.counts()[std::stoul(e.name.substr(5))];
                    if (e.name == "under") return h.underflow();
                    if (e.name == "over") return h.overflow();
                    return h.nans();
                };
            };
            acc::histogram whole(lo, hi, bins);
            for (double x : c.x) whole.add(x);
            verify("unmerged", get(whole));
            acc::histogram merged;  // the identity, then one histogram per value
            for (double x : c.x) {
                acc::histogram one(lo, hi, bins);
                one.add(x);
                merged.merge(one);
            }
            verify("every value alone", get(merged));
            // every value lands in the bin whose edges hold it
            const auto e = whole.edges();
            for (double x : c.x) {
                if (!(x >= lo && x < hi)) continue;
                acc::histogram one(lo, hi, bins);
                one.add(x);
                std::size_t bin = 0;
                while (one.counts()[bin] == 0) ++bin;
                INFO("x = " << text(x) << " in bin " << bin << " [" << text(e[bin]) << ", " << text(e[bin + 1]) << ")");
                CHECK((e[bin] <= x && x < e[bin + 1]));
            }
        } else {
            FAIL("unknown statistic in the cases: " << c.stat);
        }
    }
    for (const char* stat : {"sum", "exact_sum", "mean", "variance", "covariance", "extrema", "quantiles", "histogram"}) {
        INFO(stat);
        CHECK(checked[stat] > 100);
    }
}

TEST_CASE("every statistic value-initialises from {}, so structs of statistics are mergeable", "[acc]") {
    struct many {
        acc::count c;
        acc::sum<> s;
        acc::mean<> m;
        acc::variance<> v;
        acc::covariance<> cv;
        acc::extrema<> e;
        acc::histogram h;
        acc::quantiles q;
        void merge(const many& o) {
            c.merge(o.c);
            s.merge(o.s);
            m.merge(o.m);
            v.merge(o.v);
            cv.merge(o.cv);
            e.merge(o.e);
            h.merge(o.h);
            q.merge(o.q);
        }
    };
    STATIC_REQUIRE(chunkwise::mergeable<many>);
    many a{}, b{};
    b.q = acc::quantiles(50);
    b.q.add(3);
    b.h = acc::histogram(0, 10, 5);
    b.h.add(3);
    a.merge(b);
    REQUIRE(a.q.k() == 50);  // the empty sketch took the other's k
    REQUIRE(a.q.quantile(0.5) == 3);
    REQUIRE(a.h.counts()[1] == 1);
    acc::quantiles other(64);
    other.add(1);
    other.merge(acc::quantiles{});  // and an empty one of another k merges into it
    REQUIRE(other.k() == 64);
    REQUIRE(other.count() == 1);
    acc::quantiles full(200);
    full.add(2);
    REQUIRE_THROWS_WITH(full.merge(other), Catch::Matchers::Contains("k = 200 and k = 64"));
}

TEST_CASE("histogram: a range the double cannot span, and merge errors that show every digit", "[acc]") {
    acc::histogram h(-1e308, 1e308, 2);
    REQUIRE(h.edges() == std::vector<double>{-1e308, 0.0, 1e308});
    h.add(-5);
    h.add(5);
    h.add(0);
    REQUIRE(h.counts() == std::vector<double>{1, 2});
    acc::histogram a(0.1, 1, 2), b(0.1000001, 1, 2);
    a.add(0.5);
    b.add(0.5);
    REQUIRE_THROWS_WITH(a.merge(b), Catch::Matchers::Contains("[0.10000000000000001, 1)") &&
                                        Catch::Matchers::Contains("[0.10000009999999999, 1)"));
    acc::histogram f(0, 1, 49);
    f.add(f.edges()[1]);
    REQUIRE(f.counts()[1] == 1);  // numpy's bin: [edges[1], edges[2])
    acc::quantiles q;
    q.add(1);
    REQUIRE_THROWS_WITH(q.quantile(-1e-300), Catch::Matchers::Contains("quantile(-1e-300)"));
}
