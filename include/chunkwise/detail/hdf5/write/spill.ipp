// The definitions of chunkwise/detail/hdf5/write/spill.hpp's functions: included at the end of that header
// (header-only, the default), or compiled once into the hdf5 library (CHUNKWISE_HDF5_SEPARATE_COMPILATION;
// docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::string spill_path(const std::string& file, std::size_t rank) {
    return file + ".chunkwise-spill-" + std::to_string(rank);
}

CHUNKWISE_HDF5_DECL spill_file::spill_file(std::string path, std::string file, std::string dataset)
        : path_(std::move(path)), file_(std::move(file)), dataset_(std::move(dataset)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) failed("cannot create it");
}

CHUNKWISE_HDF5_DECL spill_file::~spill_file() {
    if (fd_ >= 0) ::close(fd_);
}

CHUNKWISE_HDF5_DECL void spill_file::failed(const std::string& what) const {
    throw error(file_, dataset_, "stream_writer: the spill file " + path_ + ": " + what + ": " + std::strerror(errno));
}

CHUNKWISE_HDF5_DECL void spill_file::put(std::uint64_t kind, const std::uint64_t* numbers, std::size_t count,
                                         const void* bytes, std::size_t size) {
    std::vector<std::uint64_t> head{kind, count, size};
    head.insert(head.end(), numbers, numbers + count);
    if (fd_ < 0) {
        errno = EBADF;
        failed("written after it was closed");
    }
    if (!chunkwise::detail::posix::write_all(fd_, head.data(), head.size() * sizeof(std::uint64_t)) ||
        !chunkwise::detail::posix::write_all(fd_, bytes, size))
        failed("writing " + std::to_string(size) + " bytes failed");
}

CHUNKWISE_HDF5_DECL void spill_file::put_chunk(const std::uint64_t* offset, std::size_t axes, const void* bytes,
                                               std::size_t size) {
    const std::lock_guard<std::mutex> lock(guard_);
    put(0, offset, axes, bytes, size);
}

CHUNKWISE_HDF5_DECL void spill_file::put_rows(std::size_t first_row, std::size_t rows, std::size_t row_bytes,
                                              const void* values) {
    const std::size_t per = row_bytes == 0 ? rows : std::max<std::size_t>(spill_rows_bytes / row_bytes, 1);
    const auto* at = static_cast<const unsigned char*>(values);
    const std::lock_guard<std::mutex> lock(guard_);
    for (std::size_t done = 0; done < rows; done += per) {
        const std::size_t n = std::min(per, rows - done);
        const std::uint64_t numbers[2] = {first_row + done, n};
        put(1, numbers, 2, at + done * row_bytes, n * row_bytes);
    }
}

CHUNKWISE_HDF5_DECL void spill_file::finish() {
    const std::lock_guard<std::mutex> lock(guard_);
    if (fd_ < 0) return;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) failed("closing it failed");
}

CHUNKWISE_HDF5_DECL void replay_spill(const std::string& path, const std::string& file, const std::string& dataset,
                                      const std::function<void(const spill_record&)>& take) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        throw error(file, dataset, "stream_writer: the spill file " + path + ": " + what + ": " + reason);
    };
    if (fd < 0) fail("cannot open it");
    std::vector<unsigned char> bytes;
    spill_record r;
    std::uint64_t at = 0;
    for (;;) {
        std::uint64_t head[3];
        const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(fd, head, sizeof head, at);
        if (got == 0) break;
        if (got != static_cast<std::ptrdiff_t>(sizeof head) || head[0] > 1 || head[1] > 64) {
            errno = got < 0 ? errno : EIO;
            fail("a record at byte " + std::to_string(at) + " is cut short or not a record");
        }
        at += sizeof head;
        r.chunk = head[0] == 0;
        r.offset.resize(head[1]);
        r.size = head[2];
        bytes.resize(r.size);
        if (!chunkwise::detail::posix::pread_all(fd, r.offset.data(), r.offset.size() * sizeof(std::uint64_t), at) ||
            !chunkwise::detail::posix::pread_all(fd, bytes.data(), r.size, at + r.offset.size() * 8)) {
            errno = errno == 0 ? EIO : errno;
            fail("the record at byte " + std::to_string(at - sizeof head) + " is cut short");
        }
        at += r.offset.size() * sizeof(std::uint64_t) + r.size;
        r.bytes = bytes.data();
        try {
            take(r);
        } catch (...) {
            ::close(fd);
            throw;
        }
    }
    ::close(fd);
}

}  // namespace chunkwise::h5::detail
