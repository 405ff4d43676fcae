// libchunkwise_mpi: the mpi component's functions that are not templates, compiled once
// (CMake: CHUNKWISE_BUILD_LIBRARIES=ON, target chunkwise::mpi_compiled). A program that copies
// include/ compiles this file, or its one line, with CHUNKWISE_MPI_SEPARATE_COMPILATION.
#include <chunkwise/mpi/src.hpp>
