#pragma once
// Internal: the collective steps of a stream written by the processes of a policy, for both stores'
// stream_writer: every rank checked to ask for the same write, then all_gather and agree over the policy.
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/policy.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace chunkwise::detail {

/// `path` as every rank can compare it: absolute and normalised (as given where that fails).
inline std::string comparable_path(const std::filesystem::path& path) {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(path, ec).lexically_normal();
    return ec ? path.string() : absolute.string();
}

/// The collective steps of `policy` (none without MPI) in `Steps` (store.hpp's stream_collective: rank, root,
/// all_gather, agree), after checking that every rank passes the same value of each of `same` (what, value), else
/// every rank throws std::invalid_argument naming each rank's value.
template <class Steps, class Policy>
Steps collective_steps(Policy& policy, const std::vector<std::pair<const char*, std::string>>& same) {
    Steps c;
    if constexpr (distributed_policy<Policy>) {
        c.rank = static_cast<std::size_t>(policy.rank());
        c.root = policy.is_root();
        const std::size_t ranks = static_cast<std::size_t>(policy.size()), me = c.rank;
        c.all_gather = [&policy, ranks, me](std::vector<unsigned char> mine) {
            partial_results<std::vector<unsigned char>> part(ranks, {me}, {std::move(mine)});
            return chunkwise::all_gather(policy, std::move(part));
        };
        c.agree = [&policy](const std::string& mine) { return policy_access::agree_on_problem(policy, mine); };
        for (const auto& [what, value] : same) policy_access::check_same(policy, what, value);
    } else {
        (void)policy, (void)same;
    }
    return c;
}

}  // namespace chunkwise::detail
