# Finds what the component chunkwise::mpi needs: MPI (C++ compiler wrappers or flags) and
# Boost.MPI. Sets chunkwise_mpi_FOUND and, when not found, chunkwise_mpi_NOT_FOUND_MESSAGE.
# Used by chunkwise's own build and by the installed chunkwiseConfig.cmake.
set(chunkwise_mpi_FOUND FALSE)
find_package(MPI QUIET COMPONENTS CXX)
if(NOT MPI_CXX_FOUND)
  set(chunkwise_mpi_NOT_FOUND_MESSAGE
      "MPI for C++ was not found (Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin)")
  return()
endif()
find_package(Boost 1.71 QUIET CONFIG COMPONENTS mpi serialization)
if(NOT Boost_FOUND OR NOT TARGET Boost::mpi)
  set(chunkwise_mpi_NOT_FOUND_MESSAGE "Boost.MPI was not found (Debian/Ubuntu: apt-get install libboost-mpi-dev)")
  return()
endif()
set(chunkwise_mpi_FOUND TRUE)
