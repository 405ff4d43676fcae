#pragma once
// What the benchmarks share besides their options: whole preads (a floor must not contain the
// code it measures, so not chunkwise's own), and shapes as text.
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bench_io {

/// Reads all `n` bytes at `offset` of `fd` into buf (retrying short reads and EINTR); false where
/// the file ends first or a read fails.
inline bool pread_all(int fd, void* buf, std::size_t n, std::uint64_t offset) {
    auto* p = static_cast<char*>(buf);
    while (n > 0) {
        const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got;
        n -= static_cast<std::size_t>(got);
        offset += static_cast<std::uint64_t>(got);
    }
    return true;
}

/// "(240, 111815, 3)".
template <class Extents>
std::string shape_text(const Extents& shape) {
    std::string t = "(";
    std::size_t d = 0;
    for (const auto e : shape) t += (d++ ? ", " : "") + std::to_string(e);
    return t + (d == 1 ? ",)" : ")");
}

}  // namespace bench_io
