#pragma once
/// \file
/// `chunkwise::error`: the base of every exception chunkwise reports itself.

#include <stdexcept>
#include <string>

namespace chunkwise {

/// Base of everything chunkwise reports: block_error, mpi_error, h5::error, zarr::error,
/// checkpoint_error, manifest_error. Catch it for "anything chunkwise reported"; `what()` starts with
/// "[chunkwise.<area>]". (Invalid arguments are std::invalid_argument, misuse of MPI
/// std::logic_error, as the standard library does.)
class error : public std::runtime_error {
public:
    /// \param message the whole message, "[chunkwise.<area>] ..." by convention
    explicit error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace chunkwise
