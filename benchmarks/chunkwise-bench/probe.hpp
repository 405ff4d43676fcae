#pragma once
// A short read probe of a file's file system: the aggregate bandwidth several threads get reading
// disjoint parts of the file with pread (the shared bandwidth B of the scaling model: a file in
// the page cache gives memory's speed, a file on NFS or Lustre the network's or the servers').
#include <chunkwise/clock.hpp>

#include "../common/io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace bench_probe {

struct probe_result {
    double bandwidth = 0;  // bytes/s, all threads together
    std::string text;      // how it was measured
};

/// Reads up to `max_bytes` of `file` with `threads` threads (4 MiB preads, disjoint ranges).
inline probe_result probe_file(const std::filesystem::path& file, std::size_t threads,
                               std::uint64_t max_bytes = std::uint64_t{256} << 20) {
    probe_result r;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return r;
    std::error_code ec;
    const std::uint64_t size = std::min<std::uint64_t>(std::filesystem::file_size(file, ec), max_bytes);
    if (ec || size == 0 || threads == 0) {
        ::close(fd);
        return r;
    }
    constexpr std::size_t piece = std::size_t{4} << 20;
    const auto t0 = chunkwise::clock::now();
    std::vector<std::thread> readers;
    for (std::size_t t = 0; t < threads; ++t) {
        readers.emplace_back([&, t] {
            std::vector<unsigned char> buf(piece);
            const std::uint64_t lo = size * t / threads, hi = size * (t + 1) / threads;
            for (std::uint64_t at = lo; at < hi; at += piece) {
                (void)bench_io::pread_all(fd, buf.data(),
                                          static_cast<std::size_t>(std::min<std::uint64_t>(piece, hi - at)), at);
            }
        });
    }
    for (auto& t : readers) t.join();
    const double seconds = chunkwise::seconds_since(t0);
    ::close(fd);
    r.bandwidth = static_cast<double>(size) / seconds;
    r.text = "pread of " + std::to_string(size >> 20) + " MiB of " + file.filename().string() + " by " +
             std::to_string(threads) + " threads";
    return r;
}

}  // namespace bench_probe
