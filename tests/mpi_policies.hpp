#pragma once
// The MPI policies the MPI tests run over, each made fresh by make() on MPI_COMM_WORLD.
#include <chunkwise/mpi.hpp>

#include <string>

namespace test {

struct mpi_contiguous {
    static chunkwise::mpi_policy make() { return chunkwise::mpi_policy({}, chunkwise::mpi_schedule::contiguous); }
    static std::string name() { return "mpi"; }
};
struct mpi_dynamic {
    static chunkwise::mpi_policy make() { return chunkwise::mpi_policy({}, chunkwise::mpi_schedule::dynamic); }
    static std::string name() { return "mpi dynamic"; }
};
struct hybrid_contiguous {
    static chunkwise::hybrid_policy make() { return chunkwise::hybrid_policy({}, 2); }
    static std::string name() { return "hybrid(2)"; }
};
struct hybrid_dynamic {
    static chunkwise::hybrid_policy make() { return chunkwise::hybrid_policy({}, 3, chunkwise::mpi_schedule::dynamic); }
    static std::string name() { return "hybrid(3) dynamic"; }
};

}  // namespace test

#define CHUNKWISE_MPI_POLICIES test::mpi_contiguous, test::mpi_dynamic, test::hybrid_contiguous, test::hybrid_dynamic
