#pragma once
/// \file
/// `chunkwise::h5::library_lock`: the one lock around every HDF5 call chunkwise makes, for
/// programs that call the HDF5 C API themselves while chunkwise reads from other threads.

#include <chunkwise/detail/hdf5/library.hpp>

namespace chunkwise::h5 {

/// Holds chunkwise's process-wide HDF5 mutex (recursive) for its lifetime and silences HDF5's
/// error printing on this thread. Hold one around your own HDF5 calls in a program whose other
/// threads read through h5::dataset: Debian's parallel HDF5 build is not thread-safe at all,
/// and the serial build's own lock does not make sequences of calls atomic.
using library_lock = detail::library_lock;

/// HDF5's description of the last failure on this thread (hold a library_lock), and clears it.
inline std::string last_hdf5_error() { return detail::last_error(); }

}  // namespace chunkwise::h5
