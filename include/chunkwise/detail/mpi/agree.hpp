#pragma once
// Internal: the agreement protocol every collective is built from. A collective is a sequence of
// local steps (serialize, allocate, deserialize, combine: code that may throw on some ranks only)
// and MPI transfers (which every rank must enter together). Each local step runs inside
// `attempt`, which turns an exception into a problem text; before the next transfer the ranks
// `settle` the problems: every rank learns the lowest rank's problem and throws the same
// chunkwise::error, so none waits forever in a transfer the others left.
//
// A collective call starts with `agree_on_call`: every rank says which collective it makes (by
// name, so any layer can add its own, as the HDF5 writer adds "h5::write_blocks"), on the results
// of which map_blocks call, of how many blocks; a mismatch is a usage error every rank reports.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/block_identity.hpp>  // fnv1a
#include <chunkwise/detail/core/execute.hpp>
#include <chunkwise/detail/mpi/check.hpp>
#include <chunkwise/error.hpp>

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::detail {

/// "" when no rank has a problem; else the lowest such rank's problem, on every rank, with
/// " (rank R)" appended. Collective.
CHUNKWISE_MPI_DECL std::string agree_on_problem(MPI_Comm comm, const std::string& mine);

/// Runs the local step `step` of the current collective; returns "" or what it threw. The
/// step's fault point fires inside, as a real failure there would.
template <class Step>
std::string attempt(int rank, const char* step, Step&& f) noexcept {
    try {
        fault_point(rank, step);
        f();
        return {};
    } catch (...) {
        try {
            return describe_exception(std::current_exception());
        } catch (...) {
            return "an exception (its message could not be copied)";
        }
    }
}

/// Agrees on the problems of a local step: every rank throws the same chunkwise::error naming the
/// collective, `what` failed ("serializing a result failed"), the message and the rank, if any
/// rank had one. Collective.
CHUNKWISE_MPI_DECL void settle(MPI_Comm comm, const std::string& mine, const char* what);

/// The root's outcome of a step only it runs, on every rank (one broadcast): every rank throws the
/// same chunkwise::error if it failed. Collective.
CHUNKWISE_MPI_DECL void settle_root(MPI_Comm comm, int rank, int root, std::string mine, const char* what);

/// The start of every collective: all ranks make the collective `name` on the results of
/// map_blocks call `call` (0: none), of `blocks` blocks, with `detail` (map_blocks: the on_error
/// mode). One allreduce of one fixed shape for every collective, so two different collectives
/// meet here instead of deadlocking; on a difference every rank throws the same
/// std::invalid_argument naming what each rank did. Two flags ride along, combined by "any rank",
/// and `problem` (this rank could not start the call): then every rank throws that problem.
/// Collective.
CHUNKWISE_MPI_DECL std::pair<bool, bool> agree_on_call(MPI_Comm comm, const char* name, std::uint64_t call,
                                                       std::uint64_t blocks, long long detail, bool flag_a = false,
                                                       bool flag_b = false, const std::string& problem = {});

/// Checks that every rank passes the same `value` for the argument `what` of the current
/// collective (a file name, a shape, options). On a difference every rank throws the same
/// std::invalid_argument naming each rank's value. Collective.
CHUNKWISE_MPI_DECL void check_same(MPI_Comm comm, const char* what, const std::string& value);

}  // namespace chunkwise::detail

#if CHUNKWISE_MPI_HEADER_ONLY
#include <chunkwise/detail/mpi/agree.ipp>
#endif
