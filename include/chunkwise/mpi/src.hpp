#pragma once
/// \file
/// The mpi component's library: compile this header in a source file of its own (as
/// src/chunkwise_mpi.cpp does) and link the object, or libchunkwise_mpi, into a program whose other
/// files define CHUNKWISE_MPI_SEPARATE_COMPILATION (or CHUNKWISE_SEPARATE_COMPILATION). It defines
/// the component's functions that are not templates once, where header-only programs compile them
/// in every file (docs/installing.md, "Header-only or compiled").
#if !defined(CHUNKWISE_MPI_SEPARATE_COMPILATION)
/// Compiled mode for the mpi component: its headers declare, this file defines.
#define CHUNKWISE_MPI_SEPARATE_COMPILATION 1
#endif
#include <chunkwise/detail/core/compiled.hpp>
#if CHUNKWISE_MPI_HEADER_ONLY
#error "chunkwise/mpi/src.hpp: a chunkwise header came first, header-only: include src.hpp first, in a file of its own"
#endif

#include <chunkwise/mpi.hpp>
#include <chunkwise/detail/mpi/agree.hpp>
#include <chunkwise/detail/mpi/backend.hpp>
#include <chunkwise/detail/mpi/block_counter.hpp>
#include <chunkwise/detail/mpi/check.hpp>
#include <chunkwise/detail/mpi/values.hpp>

#include <chunkwise/detail/mpi/agree.ipp>
#include <chunkwise/detail/mpi/backend.ipp>
#include <chunkwise/detail/mpi/block_counter.ipp>
#include <chunkwise/detail/mpi/check.ipp>
#include <chunkwise/detail/mpi/values.ipp>
