#pragma once
// Internal: the one place chunkwise talks to POSIX file descriptors in loops: whole writes and
// whole positioned reads that survive EINTR and short counts, data syncs, and opening a file only
// when it is a regular one (a FIFO or a device named like a log must never block a run). Used by
// the checkpoint log, the run log, the HDF5 reads and the HDF5 probe driver.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace chunkwise::detail::posix {

/// Writes all `n` bytes of `p` to `fd` (retrying after EINTR and short writes). False on failure,
/// with errno set.
inline bool write_all(int fd, const void* p, std::size_t n) noexcept {
    const auto* bytes = static_cast<const unsigned char*>(p);
    while (n > 0) {
        const ssize_t w = ::write(fd, bytes, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return false;
        }
        bytes += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

/// Reads up to `n` bytes at `offset` of `fd` into `p`, as many as the file holds (retrying after
/// EINTR and short reads). Returns the bytes read (fewer than n only where the file ends), or -1
/// on an error (errno set).
inline std::ptrdiff_t pread_full(int fd, void* p, std::size_t n, std::uint64_t offset) noexcept {
    auto* bytes = static_cast<unsigned char*>(p);
    std::size_t done = 0;
    while (done < n) {
        const ssize_t got = ::pread(fd, bytes + done, n - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return static_cast<std::ptrdiff_t>(done);
}

/// True when all `n` bytes at `offset` were read.
inline bool pread_all(int fd, void* p, std::size_t n, std::uint64_t offset) noexcept {
    return pread_full(fd, p, n, offset) == static_cast<std::ptrdiff_t>(n);
}

/// Flushes a file's data to stable storage (fdatasync; fsync where there is none).
inline bool sync_data(int fd) noexcept {
#if defined(__APPLE__)
    return ::fsync(fd) == 0;
#else
    return ::fdatasync(fd) == 0;
#endif
}

/// Makes a rename or creation inside `dir` durable (fsync of the folder). Best effort.
inline void sync_dir(const std::filesystem::path& dir) noexcept {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
}

/// How open_regular ended.
enum class open_outcome { opened, missing, not_regular, failed };

/// Opens `path` with `flags` (O_CLOEXEC added) only if it is a regular file or, with O_CREAT,
/// does not exist yet: never blocks on a FIFO or a device, whatever the flags. Returns the fd,
/// or -1 with `outcome` saying why (errno set for `failed`).
inline int open_regular(const std::filesystem::path& path, int flags, mode_t mode, open_outcome& outcome) noexcept {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK, mode);
    if (fd < 0) {
        // A FIFO opened for writing without a reader: ENXIO. Tell it apart from a missing file.
        const int err = errno;
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
            outcome = open_outcome::not_regular;
        } else {
            outcome = err == ENOENT ? open_outcome::missing : open_outcome::failed;
        }
        errno = err;
        return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        outcome = open_outcome::not_regular;
        return -1;
    }
    const int fl = ::fcntl(fd, F_GETFL);
    if (fl >= 0) (void)::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    outcome = open_outcome::opened;
    return fd;
}

/// What a path that is not a regular file is, for messages ("a FIFO", "a folder", ...).
inline const char* file_kind(const std::filesystem::path& path) noexcept {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return "missing";
    if (S_ISFIFO(st.st_mode)) return "a FIFO";
    if (S_ISDIR(st.st_mode)) return "a folder";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
    if (S_ISLNK(st.st_mode)) return "a link to something that is not a regular file";
    return S_ISREG(st.st_mode) ? "a regular file" : "not a regular file";
}

}  // namespace chunkwise::detail::posix
