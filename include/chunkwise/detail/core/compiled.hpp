#pragma once
// Internal: header-only (the default) or compiled, per component. The functions of the hdf5, zarr
// and mpi components that are not templates (and not a few lines long) are defined in .ipp files
// beside their headers: included at the end of each header (header-only: CHUNKWISE_<C>_DECL is
// `inline`), or compiled once into the component's library where
// CHUNKWISE_<C>_SEPARATE_COMPILATION is defined (CHUNKWISE_SEPARATE_COMPILATION defines all
// three): the headers then only declare them, and <chunkwise/<c>/src.hpp>, compiled in a file of
// its own, defines them (docs/installing.md, "Header-only or compiled").

#if defined(CHUNKWISE_SEPARATE_COMPILATION)
#if !defined(CHUNKWISE_HDF5_SEPARATE_COMPILATION)
#define CHUNKWISE_HDF5_SEPARATE_COMPILATION 1
#endif
#if !defined(CHUNKWISE_ZARR_SEPARATE_COMPILATION)
#define CHUNKWISE_ZARR_SEPARATE_COMPILATION 1
#endif
#if !defined(CHUNKWISE_MPI_SEPARATE_COMPILATION)
#define CHUNKWISE_MPI_SEPARATE_COMPILATION 1
#endif
#endif

#if defined(CHUNKWISE_HDF5_SEPARATE_COMPILATION)
#define CHUNKWISE_HDF5_HEADER_ONLY 0
#define CHUNKWISE_HDF5_DECL
#else
#define CHUNKWISE_HDF5_HEADER_ONLY 1
#define CHUNKWISE_HDF5_DECL inline
#endif

#if defined(CHUNKWISE_ZARR_SEPARATE_COMPILATION)
#define CHUNKWISE_ZARR_HEADER_ONLY 0
#define CHUNKWISE_ZARR_DECL
#else
#define CHUNKWISE_ZARR_HEADER_ONLY 1
#define CHUNKWISE_ZARR_DECL inline
#endif

#if defined(CHUNKWISE_MPI_SEPARATE_COMPILATION)
#define CHUNKWISE_MPI_HEADER_ONLY 0
#define CHUNKWISE_MPI_DECL
#else
#define CHUNKWISE_MPI_HEADER_ONLY 1
#define CHUNKWISE_MPI_DECL inline
#endif

/// X(T) for each arithmetic type but bool: the element types whose read and write paths a
/// component's library compiles once, in compiled mode (programs then declare them extern).
// clang-format off
#define CHUNKWISE_ARITHMETIC_TYPES(X)                                                                  \
    X(float) X(double) X(long double) X(signed char) X(char) X(unsigned char) X(short)               \
    X(unsigned short) X(int) X(unsigned) X(long) X(unsigned long) X(long long) X(unsigned long long)
// clang-format on
