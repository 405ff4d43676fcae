#pragma once
/// \file
/// `chunkwise::h5::error`: what every problem with an HDF5 file or dataset throws; and
/// `chunkwise::hdf5`, the namespace's name as its folder and component say it.

#include <chunkwise/error.hpp>

#include <string>

namespace chunkwise::h5 {

/// A problem with an HDF5 file or dataset: missing, wrong type or rank, corrupted, truncated,
/// unwritable (a chunkwise::error).
///
/// `what()` reads "[chunkwise.h5] FILE:DATASET: what is wrong" and names the file and the dataset
/// path; `file()` and `dataset()` give them apart.
class error : public chunkwise::error {
public:
    /// \param file the file's path; \param dataset the dataset's path in it (may be empty);
    /// \param message what is wrong
    error(const std::string& file, const std::string& dataset, const std::string& message)
            : chunkwise::error("[chunkwise.h5] " + file + (dataset.empty() ? "" : ":" + dataset) + ": " + message),
              file_(file),
              dataset_(dataset) {}

    /// The file's path.
    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    /// The dataset's path inside the file; empty when the problem is the file itself.
    [[nodiscard]] const std::string& dataset() const noexcept { return dataset_; }

private:
    std::string file_;
    std::string dataset_;
};

}  // namespace chunkwise::h5

namespace chunkwise {
/// The HDF5 layer's namespace under the name of its folder and CMake component (chunkwise::hdf5):
/// `h5` is the short name the docs use; both name the same things.
namespace hdf5 = h5;
}  // namespace chunkwise
