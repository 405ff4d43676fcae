#pragma once
// Internal: the one door through which chunkwise's algorithms reach a policy's library hooks.
// Policies keep these members private and befriend policy_access, so their public surface is
// what users call (workers, rank, is_root, and for MPI size and communicator). The concepts in
// <chunkwise/policy.hpp> name every hook through this door: a policy that misspells one fails
// the concept instead of silently taking the single-process path.
#include <chunkwise/detail/core/execute.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace chunkwise::detail {

struct policy_access {
    // ---- every policy: the executor ----

    /// Runs body(i) for i in [first, last) on this process's workers; failures tagged with `rank`;
    /// under fail_fast no block starts after a failure is seen. What every policy implements.
    template <class P, class Body>
    static auto execute_range(P& p, std::size_t first, std::size_t last, Body& body, on_error mode, int rank)
        -> decltype(p.execute_range(first, last, body, mode, rank)) {
        return p.execute_range(first, last, body, mode, rank);
    }
    /// Runs all n blocks of a map_blocks call: a distributed policy's own collective execute
    /// (its schedule across ranks), else execute_range(0, n) on this process. The one place
    /// execute is derived.
    template <class P, class Body>
    static exec_result execute(P& p, std::size_t n, Body& body, on_error mode) {
        if constexpr (requires { p.execute(n, body, mode); }) {
            return p.execute(n, body, mode);
        } else {
            return p.execute_range(std::size_t{0}, n, body, mode, 0);
        }
    }

    // ---- distributed policies: the collective hooks (every rank calls them together) ----

    /// Runs a map_blocks call's n blocks across the ranks (the policy's schedule). Collective.
    template <class P, class Body>
    static auto execute_distributed(P& p, std::size_t n, Body& body, on_error mode)
        -> decltype(p.execute(n, body, mode)) {
        return p.execute(n, body, mode);
    }

    template <class P, class Results>
    static auto gather_results(P& p, Results& r) -> decltype(p.gather_results(r)) {
        return p.gather_results(r);
    }
    template <class P, class Results>
    static auto all_gather_results(P& p, Results& r) -> decltype(p.all_gather_results(r)) {
        return p.all_gather_results(r);
    }
    template <class P, class Results, class Op>
    static auto reduce_results(P& p, Results& r, Op& op) -> decltype(p.reduce_results(r, op)) {
        return p.reduce_results(r, op);
    }
    template <class P, class Results, class Op>
    static auto all_reduce_results(P& p, Results& r, Op& op) -> decltype(p.all_reduce_results(r, op)) {
        return p.all_reduce_results(r, op);
    }
    /// Every rank makes the collective `name` on the results of map_blocks call `call`, of
    /// `blocks` blocks (any layer names its own collectives, e.g. "h5::write_blocks").
    template <class P>
    static auto agree_on_call(P& p, const char* name, std::uint64_t call, std::uint64_t blocks)
        -> decltype(p.agree_on_call(name, call, blocks, 0)) {
        return p.agree_on_call(name, call, blocks, 0);
    }
    /// "" when no rank has a problem, else the lowest rank's problem on every rank.
    template <class P>
    static auto agree_on_problem(P& p, const std::string& mine) -> decltype(p.agree_on_problem(mine)) {
        return p.agree_on_problem(mine);
    }
    /// Every rank passes the same `value` for the argument `what`, or every rank throws
    /// std::invalid_argument naming each rank's value.
    template <class P>
    static auto check_same(P& p, const char* what, const std::string& value) -> decltype(p.check_same(what, value)) {
        return p.check_same(what, value);
    }
    template <class P, class Results>
    static auto gather_failures(P& p, const Results& r) -> decltype(p.gather_failures(r)) {
        return p.gather_failures(r);
    }
    template <class P, class Value>
    static auto broadcast_value(P& p, Value& v) -> decltype(p.broadcast_value(v)) {
        return p.broadcast_value(v);
    }
    template <class P, class Stats>
    static auto gather_stats(P& p, const Stats& s) -> decltype(p.gather_stats(s)) {
        return p.gather_stats(s);
    }
    template <class P>
    static auto begin_map_blocks(P& p, std::size_t n, on_error mode, bool progress, const std::string& problem)
        -> decltype(p.begin_map_blocks(n, mode, progress, problem)) {
        return p.begin_map_blocks(n, mode, progress, problem);
    }
    template <class P>
    static auto add_progress(P& p, std::size_t delta) -> decltype(p.add_progress(delta)) {
        return p.add_progress(delta);
    }
    template <class P>
    static auto end_map_blocks(P& p) -> decltype(p.end_map_blocks()) {
        return p.end_map_blocks();
    }
};

/// A body used only to check, in the concepts, that execute() accepts bodies.
struct probe_body {
    void operator()(std::size_t) const {}
};

/// A reduction used only to check, in distributed_policy, that reduce_results accepts ops.
struct probe_op {
    double operator()(double a, double b) const { return a + b; }
};

}  // namespace chunkwise::detail
