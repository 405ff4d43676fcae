#pragma once
/// \file
/// `chunkwise::mpi_error`: an MPI call that failed (CMake component `mpi`).

#include <chunkwise/error.hpp>

namespace chunkwise {

/// An MPI call chunkwise made failed (a chunkwise::error; what() starts with "[chunkwise.mpi]" and
/// names the call and MPI's own message). Problems the ranks agree on (a block or a result that
/// failed on one rank) are chunkwise::error or block_error; this one means MPI itself refused.
class mpi_error : public error {
public:
    using error::error;
};

}  // namespace chunkwise
