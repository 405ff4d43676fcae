#pragma once
// Internal: agreeing across ranks on a problem that may have arisen on some of them only, before
// the next collective call (plain MPI: used by the MPI policies and by the MPI-IO writer).
#include <mpi.h>

#include <climits>
#include <string>

namespace chunkwise::detail {

/// "" when no rank has a problem; else the lowest such rank's problem, on every rank, with
/// " (rank R)" appended. Collective.
inline std::string agree_on_problem(MPI_Comm comm, const std::string& mine) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const int me = mine.empty() ? INT_MAX : rank;
    int lowest = INT_MAX;
    MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, comm);
    if (lowest == INT_MAX) return {};
    unsigned long long length = rank == lowest ? mine.size() : 0;
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, lowest, comm);
    std::string text(static_cast<std::size_t>(length), '\0');
    if (rank == lowest) text = mine;
    MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, lowest, comm);
    return text + " (rank " + std::to_string(lowest) + ")";
}

}  // namespace chunkwise::detail
