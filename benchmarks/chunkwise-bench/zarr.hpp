#pragma once
// chunkwise-bench zarr and zarr-write: a Zarr array read by chunkwise at each thread count against
// its floor, and written from threads (or MPI ranks) against 1, in one run.
//
//   chunkwise-bench zarr --store DIR [--threads 1,2] [--repeats 3] [--block-mib 4]
//   chunkwise-bench zarr-write --store DIR --out DIR [--threads 1,2] [--repeats 3] [--codec C]
//                              [--level L] [--shuffle] [--format 2|3] [--shard-rows N] [--mode mpi]
//
// zarr prints, in seconds (each reader once per round, R rounds after a warm-up round, the best of
// each; page cache warm), with the CPU:
//   pread floor    every chunk file read whole into memory with pread, 1 thread
//   decode alone   every chunk decoded from memory by the store's codecs (chunkwise's codec table),
//                  1 thread; no I/O
//   chunkwise      map_blocks over zarr::partition(a, bytes{4 MiB}) read into reused float buffers
//                  at each thread count: x of (pread floor + decode alone) per thread, and the
//                  speedup over 1 thread
// zarr-write reads the array into memory once, then writes it to --out with zarr::write_blocks
// (blocks aligned to the chunk or shard rows) at each thread count; with --mode mpi under an MPI
// launcher, across the ranks (each rank holding its blocks), the time between two barriers.
#include "../common/cli.hpp"
#include "../common/io.hpp"
#include "passes.hpp"

#include <chunkwise/bench/machine.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/zarr.hpp>
#if defined(CHUNKWISE_BENCH_MPI)
#include <chunkwise/mpi.hpp>
#endif

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_zarr {

namespace zarr = chunkwise::zarr;

/// Every chunk file of the store, by path: not its metadata (zarr.json, .zarray, .zattrs, ...) nor other files
/// whose names start with a dot (chunk keys never do), such as the writers' lock file .chunkwise-lock.
inline std::vector<std::string> chunk_files(const std::filesystem::path& store) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(store)) {
        const std::string name = e.path().filename().string();
        if (e.is_regular_file() && name != "zarr.json" && name.rfind('.', 0) != 0) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

inline std::vector<unsigned char> pread_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    struct stat st {};
    ::fstat(fd, &st);
    std::vector<unsigned char> b(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < b.size()) {
        const ssize_t got = ::pread(fd, b.data() + done, b.size() - done, static_cast<off_t>(done));
        if (got <= 0) break;
        done += static_cast<std::size_t>(got);
    }
    ::close(fd);
    return b;
}

inline int cmd_zarr(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"store", "threads", "repeats", "block-mib"}, {});
    const std::filesystem::path store = a.required("store");
    const auto threads = a.counts("threads", {1, 2}, 1);
    const std::size_t repeats = a.count("repeats", 3, 1), block = a.count("block-mib", 4, 1) << 20;
    if (std::find(threads.begin(), threads.end(), std::size_t{1}) == threads.end())
        throw std::invalid_argument("--threads: must include 1 (the speedups are against 1 thread)");
    const zarr::array arr(store);
    const auto files = chunk_files(store);
    std::vector<std::vector<unsigned char>> stored;
    std::size_t stored_bytes = 0;
    for (const auto& f : files) {
        stored.push_back(pread_file(f));
        stored_bytes += stored.back().size();
    }
    const auto blocks = zarr::partition(arr, zarr::bytes{block});
    // The codecs alone: each chunk file decoded from memory (unsharded stores).
    const bool sharded = arr.sharded();
    const auto decode_all = [&] {
        for (const auto& b : stored) (void)arr.decode_chunk(b);
    };
    const auto read_all = [&] {
        for (const auto& f : files) (void)pread_file(f);
    };
    std::vector<std::unique_ptr<chunkwise::thread_policy>> pools;
    for (std::size_t n : threads) pools.push_back(std::make_unique<chunkwise::thread_policy>(n));
    const auto pass = [&](chunkwise::thread_policy& pool) { (void)bench_read::read_pass<float>(pool, arr, blocks); };
    bench_read::round_robin rounds;
    const std::size_t i_read = rounds.add(read_all);
    const std::size_t i_alone = sharded ? 0 : rounds.add(decode_all);
    std::vector<std::size_t> i_cw;
    for (std::size_t k = 0; k < threads.size(); ++k) i_cw.push_back(rounds.add([&, k] { pass(*pools[k]); }));
    rounds.run(repeats);
    const double floor_read = rounds.best(i_read), alone = sharded ? 0.0 : rounds.best(i_alone);
    const double floor = floor_read + alone;
    std::string codecs;
    for (const auto& c : arr.codecs()) codecs += (codecs.empty() ? "" : " + ") + c;
    std::printf("# %s: Zarr v%d, %s %s, chunks %s, %s; %.1f MiB stored in %zu files; best of %zu, page cache warm\n",
                store.c_str(), arr.format(), bench_io::shape_text(arr.shape()).c_str(), arr.dtype().c_str(),
                bench_io::shape_text(arr.chunks()).c_str(), codecs.empty() ? "no codec" : codecs.c_str(),
                static_cast<double>(stored_bytes) / (1 << 20), files.size(), repeats);
    std::printf("# CPU: %s\n", chunkwise::bench::machine_info::here().text().c_str());
    std::printf("%-40s %9.4f s\n", "pread floor (stored bytes), 1 thread", floor_read);
    if (!sharded) std::printf("%-40s %9.4f s\n", "decode alone (codecs, from memory)", alone);
    const std::size_t k1 = static_cast<std::size_t>(std::find(threads.begin(), threads.end(), 1) - threads.begin());
    for (std::size_t k = 0; k < threads.size(); ++k) {
        char label[64];
        std::snprintf(label, sizeof label, "chunkwise, %zu thread%s", threads[k], threads[k] == 1 ? "" : "s");
        const double t = rounds.best(i_cw[k]);
        if (sharded) {
            std::printf("%-40s %9.4f s  (%.2fx of 1 thread)\n", label, t, rounds.best(i_cw[k1]) / t);
        } else {
            std::printf("%-40s %9.4f s  (%.2fx of the floor: pread + decode alone; %.2fx of 1 thread)\n", label, t,
                        t * static_cast<double>(threads[k]) / floor, rounds.best(i_cw[k1]) / t);
        }
    }
    return 0;
}

inline int cmd_zarr_write(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2,
                      {"store", "out", "threads", "repeats", "codec", "level", "format", "shard-rows", "mode"},
                      {"shuffle"});
    const std::filesystem::path store = a.required("store"), out = a.required("out");
    const auto threads = a.counts("threads", {1, 2}, 1);
    const std::size_t repeats = a.count("repeats", 3, 1);
    const zarr::array arr(store);
    zarr::write_options o;
    o.chunk = arr.chunks();
    o.codec = a.text("codec", "zstd");
    o.level = static_cast<int>(a.count("level", 0));
    o.shuffle = a.flag("shuffle");
    o.format = static_cast<int>(a.count("format", 2));
    o.mode = chunkwise::write_mode::replace;  // every repeat writes the store again
    if (a.has("shard-rows")) {
        o.shard = o.chunk;
        o.shard[0] = a.count("shard-rows", o.chunk[0], 1);
    }
    const std::size_t rows = arr.shape()[0];
    const auto blocks = zarr::partition(rows, o, chunkwise::parts{64});
    const auto write_with = [&](auto& policy) {
        auto parts =
            chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) { return arr.read<float>(b); });
        chunkwise::synchronize(policy);
        const auto t0 = chunkwise::clock::now();
        zarr::write_blocks(policy, out, std::move(parts), o);
        chunkwise::synchronize(policy);
        return std::chrono::duration<double>(chunkwise::clock::now() - t0).count();
    };
    if (a.text("mode", "threads") == "mpi") {
#if defined(CHUNKWISE_BENCH_MPI)
        chunkwise::mpi_policy mpi;
        double best = 1e300;
        for (std::size_t r = 0; r <= repeats; ++r) {
            const double t = write_with(mpi);
            if (r > 0) best = std::min(best, t);
        }
        if (mpi.is_root())
            std::printf("zarr-write %s: %d rank%s, %9.4f s (best of %zu)\n", o.codec.c_str(), mpi.size(),
                        mpi.size() == 1 ? "" : "s", best, repeats);
        return 0;
#else
        throw std::invalid_argument("--mode mpi: chunkwise-bench was built without MPI");
#endif
    }
    std::printf("# %s -> %s: Zarr v%d, codec %s%s, chunks %s%s; best of %zu\n", store.c_str(), out.c_str(), o.format,
                o.codec.c_str(), o.shuffle ? " + shuffle" : "", bench_io::shape_text(o.chunk).c_str(),
                o.shard.empty() ? "" : (", shards " + bench_io::shape_text(o.shard)).c_str(), repeats);
    std::printf("# CPU: %s\n", chunkwise::bench::machine_info::here().text().c_str());
    double one = 0;
    for (std::size_t n : threads) {
        chunkwise::thread_policy pool(n);
        double best = 1e300;
        for (std::size_t r = 0; r <= repeats; ++r) {
            const double t = write_with(pool);
            if (r > 0) best = std::min(best, t);
        }
        if (n == threads.front()) one = best;
        std::printf("zarr-write, %zu thread%s %9.4f s  (%.2fx of %zu)\n", n, n == 1 ? ": " : "s:", best, one / best,
                    threads.front());
    }
    return 0;
}

}  // namespace bench_zarr
