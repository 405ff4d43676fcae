// The definitions of chunkwise/detail/mpi/check.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the mpi library
// (CHUNKWISE_MPI_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::detail {

CHUNKWISE_MPI_DECL void check_mpi(int rc, const char* what) {
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        throw mpi_error(std::string("[chunkwise.mpi] ") + what +
                        " failed: " + std::string(text, static_cast<std::size_t>(len)));
    }
}

CHUNKWISE_MPI_DECL void require_mpi(const char* who) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        throw std::logic_error(std::string("[chunkwise.mpi] ") + who +
                               ": MPI is not initialized; create a boost::mpi::environment in main first");
    }
}

CHUNKWISE_MPI_DECL void fault_point(int rank, const char* step) {
    if (mpi_fault.rank != rank) return;
    if (mpi_fault.collective == current_collective && mpi_fault.step == step) {
        throw std::runtime_error(std::string("injected fault in the ") + step + " step of " + current_collective);
    }
}

}  // namespace chunkwise::detail
