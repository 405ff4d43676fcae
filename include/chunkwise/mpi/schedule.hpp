#pragma once
/// \file
/// `chunkwise::mpi_schedule`: how mpi_policy and hybrid_policy assign blocks to ranks (CMake
/// component `mpi`; brought by <chunkwise/mpi.hpp>).

namespace chunkwise {

/// How an MPI policy assigns blocks to ranks.
enum class mpi_schedule {
    contiguous,  ///< rank r gets the r-th of size() balanced contiguous runs of blocks (default)
    dynamic,     ///< ranks take blocks on demand from a shared counter (MPI-3 fetch-and-add on
                 ///< rank 0's memory); for blocks of uneven cost. Every rank computes.
};

}  // namespace chunkwise
