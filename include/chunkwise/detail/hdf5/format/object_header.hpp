#pragma once
// Internal: a look at a dataset's layout message before HDF5 opens the dataset. HDF5 1.10
// divides by the chunk dimensions while opening a chunked dataset (H5D__chunk_set_info), so a
// damaged layout message with a chunk dimension of 0 kills the process with SIGFPE inside
// H5Dopen2 (h5py's too). chunkwise reads the object header itself (bounded preads, versions 1
// and 2, continuation blocks) and refuses such a dataset with an h5::error instead. Anything it
// cannot parse is left to HDF5 as before: this check only ever adds an error, never hides data.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/library.hpp>

#include <hdf5.h>

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// Bounded little-endian reads from one file.
class header_reader {
public:
    header_reader(int fd, std::uint64_t base, unsigned sizeof_addr, unsigned sizeof_size)
            : fd_(fd), base_(base), addr_size_(sizeof_addr), len_size_(sizeof_size) {}

    /// `size` bytes at relative address `addr` (false when the file is shorter).
    bool read(std::uint64_t addr, std::size_t size, std::vector<unsigned char>& out) const {
        out.resize(size);
        return chunkwise::detail::posix::pread_all(fd_, out.data(), size, base_ + addr);
    }
    [[nodiscard]] unsigned addr_size() const noexcept { return addr_size_; }
    [[nodiscard]] unsigned len_size() const noexcept { return len_size_; }

private:
    int fd_;
    std::uint64_t base_;
    unsigned addr_size_, len_size_;
};

CHUNKWISE_HDF5_DECL std::uint64_t le(const unsigned char* p, std::size_t n);

/// "" if the layout message is usable as far as HDF5's open needs, else what is wrong.
CHUNKWISE_HDF5_DECL std::string layout_defect(const unsigned char* m, std::size_t size, const header_reader& r);

/// Calls fn(type, body, size) for each message of the object header at `addr` (versions 1 and 2,
/// continuation blocks followed) until fn returns true; false when nothing stopped the walk
/// (the end, or a header this walk cannot read: bounded, it never throws).
template <class Fn>
bool for_each_message(const header_reader& r, std::uint64_t addr, Fn&& fn) {
    constexpr unsigned continuation_type = 0x0010;
    std::vector<unsigned char> buf;
    struct block {
        std::uint64_t addr, length;
    };
    std::vector<block> todo;
    if (!r.read(addr, 16, buf)) return false;
    int version = 0;
    if (std::memcmp(buf.data(), "OHDR", 4) == 0) {
        version = 2;
        const unsigned flags = buf[5];
        std::size_t at = 6 + ((flags & 0x20) != 0 ? 16 : 0) + ((flags & 0x10) != 0 ? 4 : 0);
        const std::size_t width = std::size_t{1} << (flags & 3);
        std::vector<unsigned char> prefix;
        if (!r.read(addr, at + width, prefix)) return false;
        const std::uint64_t chunk0 = le(prefix.data() + at, width);
        todo.push_back({addr + at + width, chunk0});
    } else if (buf[0] == 1) {
        version = 1;
        todo.push_back({addr + 16, le(buf.data() + 8, 4)});
    } else {
        return false;
    }
    for (std::size_t b = 0; b < todo.size() && b < 64; ++b) {
        std::uint64_t start = todo[b].addr, length = todo[b].length;
        if (length > (std::uint64_t{1} << 24)) return false;  // implausible
        if (version == 2 && b > 0) {                          // continuation blocks: "OCHK", messages, checksum
            if (length < 8) return false;
            start += 4;
            length -= 8;
        }
        if (!r.read(start, static_cast<std::size_t>(length), buf)) return false;
        std::size_t at = 0;
        while (true) {
            unsigned type = 0;
            std::size_t size = 0, head = 0;
            if (version == 1) {
                if (at + 8 > buf.size()) break;
                type = static_cast<unsigned>(le(&buf[at], 2));
                size = static_cast<std::size_t>(le(&buf[at + 2], 2));
                head = 8;
            } else {
                if (at + 4 > buf.size()) break;
                type = buf[at];
                size = static_cast<std::size_t>(le(&buf[at + 1], 2));
                head = 4 + ((buf[at + 3] & 0x04) != 0 ? 2 : 0);
            }
            if (at + head + size > buf.size()) break;
            const unsigned char* body = buf.data() + at + head;
            if (fn(type, body, size)) return true;
            if (type == continuation_type && size >= r.addr_size() + r.len_size()) {
                todo.push_back({le(body, r.addr_size()), le(body + r.addr_size(), r.len_size())});
            }
            at += head + size;
        }
    }
    return false;
}

/// The dataset's layout message (type 0x0008) at object header `addr`; empty where none is found.
CHUNKWISE_HDF5_DECL std::vector<unsigned char> layout_message(const header_reader& r, std::uint64_t addr);

/// Walks the messages of the object header at `addr`; "" or what is wrong with its layout.
inline std::string header_layout_defect(const header_reader& r, std::uint64_t addr) {
    const auto m = layout_message(r, addr);
    return m.empty() ? std::string() : layout_defect(m.data(), m.size(), r);
}

/// The object header address, type and file number of the object at `path` (false if unknown).
CHUNKWISE_HDF5_DECL bool object_address(hid_t file, const std::string& path, haddr_t& addr, H5O_type_t& type,
                                        unsigned long& fileno);

/// What is wrong with the layout of the dataset at `path` of `file` that would crash HDF5 when
/// opening it ("" if nothing found). Call with the lock held, `fd` the file's descriptor.
CHUNKWISE_HDF5_DECL std::string dataset_layout_defect(hid_t file, const std::string& path, int fd);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/format/object_header.ipp>
#endif
