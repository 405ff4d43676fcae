#pragma once
// Zarr groups: where an array or group may be made (never inside an array), and the consolidated metadata
// (.zmetadata) of the groups above a node kept current when the node is written.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/json_fields.hpp>
#include <chunkwise/detail/zarr/open.hpp>
#include <chunkwise/detail/zarr/write.hpp>
#include <chunkwise/zarr/error.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <system_error>

namespace chunkwise::zarr::detail {

/// An exclusive lock (flock) of a directory, held while it lives: writers of the same metadata file, in this
/// process or another, take their turns. One lock of a directory at a time per thread (a second blocks).
class dir_lock {
public:
    explicit dir_lock(const std::filesystem::path& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY)) {
        if (fd_ >= 0) ::flock(fd_, LOCK_EX);
    }
    ~dir_lock() {
        if (fd_ >= 0) ::close(fd_);  // closing releases the lock
    }
    dir_lock(const dir_lock&) = delete;
    dir_lock& operator=(const dir_lock&) = delete;

private:
    int fd_;
};

/// Refuses to make a node at `store` where a directory above it holds a Zarr array.
/// \throws zarr::error naming `store` and the array
CHUNKWISE_ZARR_DECL void refuse_inside_array(const std::string& store);

/// For the node at `store` (its metadata files by name: ".zarray" or ".zgroup", and ".zattrs"), sets its entries in
/// every .zmetadata that lists nodes beneath it: its own (keys ".zgroup", ".zattrs") and those of the directories
/// above it (keys "NAME/.zarray", ...), each read, changed and replaced whole under an exclusive lock of its directory
/// (flock), so that writers of two members at once both land.
/// \throws zarr::error naming the .zmetadata that could not be updated
CHUNKWISE_ZARR_DECL void consolidate(const std::string& store, const std::map<std::string, json>& files);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/groups.ipp>
#endif
