// The policy contract (<chunkwise/policy.hpp>): which types are execution policies, which are
// distributed, and that the library's hooks are not part of any policy's public surface.
#include "catch.hpp"

#include <chunkwise/chunkwise.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace {

// A policy that wraps thread_policy, as the docs suggest writing one.
class logging_policy {
public:
    [[nodiscard]] std::size_t workers() const noexcept { return inner_.workers(); }
    [[nodiscard]] int rank() const noexcept { return 0; }
    [[nodiscard]] bool is_root() const noexcept { return true; }
    std::size_t calls = 0;

private:
    friend struct chunkwise::detail::policy_access;
    template <class Body>
    chunkwise::detail::exec_result execute_range(std::size_t first, std::size_t last, Body& body,
                                                 chunkwise::on_error mode, int rank) {
        ++calls;
        return chunkwise::detail::policy_access::execute_range(inner_, first, last, body, mode, rank);
    }
    chunkwise::thread_policy inner_{2};
};

// Looks distributed but misspells one hook (gather_result): not a distributed_policy, so it
// cannot be mistaken for one and silently take the single-process path.
struct misspelt {
    std::size_t workers() const { return 1; }
    int rank() const { return 0; }
    bool is_root() const { return true; }
    int size() const { return 1; }
    int communicator() const { return 0; }
    template <class Body>
    chunkwise::detail::exec_result execute_range(std::size_t, std::size_t, Body&, chunkwise::on_error, int) {
        return {};
    }
    template <class Body>
    chunkwise::detail::exec_result execute(std::size_t, Body&, chunkwise::on_error) {
        return {};
    }
    template <class R>
    std::vector<double> gather_result(R&);  // sic
    template <class R>
    std::vector<double> all_gather_results(R&);
    template <class R, class Op>
    std::optional<double> reduce_results(R&, Op&);
    template <class R>
    std::vector<chunkwise::failure> gather_failures(const R&);
    void broadcast_value(double&);
    bool begin_progress(bool);
    std::size_t add_progress(std::size_t);
    void end_progress();
};

template <class P>
constexpr bool executor_is_public = requires(P& p, chunkwise::detail::probe_body& body) {
    p.execute_range(std::size_t{}, std::size_t{}, body, chunkwise::on_error::fail_fast, 0);
};

}  // namespace

static_assert(chunkwise::execution_policy<chunkwise::serial_policy>);
static_assert(chunkwise::execution_policy<chunkwise::thread_policy>);
static_assert(chunkwise::execution_policy<logging_policy>);
static_assert(!chunkwise::execution_policy<int>);
static_assert(!chunkwise::distributed_policy<chunkwise::serial_policy>);
static_assert(!chunkwise::distributed_policy<chunkwise::thread_policy>);
static_assert(chunkwise::execution_policy<misspelt>);
static_assert(!chunkwise::distributed_policy<misspelt>);
static_assert(!executor_is_public<chunkwise::serial_policy>, "the executor is a library detail");
static_assert(!executor_is_public<chunkwise::thread_policy>, "the executor is a library detail");

TEST_CASE("a policy that wraps a bundled one runs map_blocks, gather and reduce", "[policy]") {
    logging_policy policy;
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{17});
    auto values = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, [](const chunkwise::block& b) {
                                        return static_cast<double>(b.size());
                                    }));
    REQUIRE(values.size() == 17);
    REQUIRE(policy.calls == 1);
    const double total = chunkwise::reduce(
        policy,
        chunkwise::map_blocks(policy, blocks, [](const chunkwise::block& b) { return static_cast<double>(b.size()); }),
        [](double a, double b) { return a + b; });
    REQUIRE(total == 1000.0);
}
