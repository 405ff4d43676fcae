#pragma once
// Internal: MPI calls checked (an mpi_error naming the call), MPI initialised, MPI datatypes of
// arithmetic types, and the fault points tests use to make one step of one collective fail on
// one rank.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/mpi/error.hpp>

#include <boost/mpi/datatype.hpp>
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace chunkwise::detail {

/// Throws mpi_error naming `what` and MPI's message when rc is not MPI_SUCCESS.
CHUNKWISE_MPI_DECL void check_mpi(int rc, const char* what);

/// std::logic_error unless MPI is initialised and not yet finalised.
CHUNKWISE_MPI_DECL void require_mpi(const char* who);

template <class T>
MPI_Datatype mpi_type() {
    return boost::mpi::get_mpi_datatype<T>(T{});
}

/// Fault injection for tests: the step `step` of the collective `collective` throws on `rank`.
/// Every collective's local steps (serialize, agree, transfer, deserialize, combine) call
/// fault_point inside the code that may fail there; nothing happens unless a test set a plan.
struct mpi_fault_plan {
    int rank = -1;
    std::string collective, step;
};
inline mpi_fault_plan mpi_fault;

/// The collective this thread is running (for fault points and messages).
inline thread_local const char* current_collective = "";

/// Names the collective running on this thread for its lifetime.
class collective_scope {
public:
    explicit collective_scope(const char* name) noexcept : previous_(current_collective) { current_collective = name; }
    ~collective_scope() { current_collective = previous_; }
    collective_scope(const collective_scope&) = delete;
    collective_scope& operator=(const collective_scope&) = delete;

private:
    const char* previous_;
};

CHUNKWISE_MPI_DECL void fault_point(int rank, const char* step);

}  // namespace chunkwise::detail

#if CHUNKWISE_MPI_HEADER_ONLY
#include <chunkwise/detail/mpi/check.ipp>
#endif
