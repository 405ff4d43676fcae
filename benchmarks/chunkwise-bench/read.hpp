#pragma once
// chunkwise-bench read: the reference workload against the floors and a hand-written HDF5 C
// loop, on one file, in one run (issue 12; docs/performance.md "Reading at the hardware's limit").
//
//   chunkwise-bench read --file FILE.h5 [--threads 1,2] [--repeats 3] [--every 200]
//                        [--block-mib 4] [--big-block-mib 128] [--json]
//
// Prints, in seconds (R rounds after one warm-up round, each reader once per round in the order
// below, the best round of each; page cache warm), with the CPU (model, L3) they were measured on:
//   cat        read(2) of the whole file through a 1 MiB buffer
//   floor      the pread floor (floor.hpp): the same stored bytes chunkwise reads, at the same file
//              offsets, with plain pread into buffers allocated and touched once, at each thread
//              count with 4 MiB blocks and at 1 thread with 128 MiB blocks
//   decode     (filtered files) the decode floor (decode_floor.hpp): the dataset's pipeline (shuffle
//              included) on every stored chunk from memory, at each thread count; and the floor of
//              the read alone, pread + decode, at each thread count
//   inflate    (deflate-filtered files) libdeflate inflate of every chunk alone, from memory, 1 thread
//   c_loop     the same RMSD with plain HDF5: H5Dread of each chunk's frames (contiguous: of each
//              block's frames) into one reused buffer, 1 thread
//   chunkwise  map_blocks over h5::partition(ds, block_bytes{4 MiB}) read into read_buffers, at each
//              thread count; and 1 thread with 128 MiB blocks; and the same reads without the RMSD
//              (the read alone), each also as "x of floor" (pread + decode where filtered)
//   lock       of the read alone at each thread count: seconds waiting for and holding a lock of
//              the read path, their share of the read time, and the Amdahl bound the held share
//              implies at 16, 64 and 1024 workers
//   peak RSS   of the chunkwise pass at the most threads (VmHWM, reset before the pass), with
//              its bound workers x (block + 2 chunks) + 64 MiB; and the RSS after the pass
// --json adds one line "json {...}" with every figure (benchmarks/read-layouts.py reads it).
#include "../common/cli.hpp"
#include "decode_floor.hpp"
#include "floor.hpp"
#include "h5md.hpp"
#include "passes.hpp"
#include "rmsd_workload.hpp"

#include <chunkwise/bench/machine.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <fcntl.h>
#include <unistd.h>
#if defined(CHUNKWISE_USE_LIBDEFLATE)
#include <libdeflate.h>
#else
#include <zlib.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_read {

/// Seconds since t0.
inline double since(chunkwise::clock::time_point t0) { return chunkwise::seconds_since(t0); }

/// Best of `repeats` timed calls of f after one untimed call.
template <class F>
double best_of(std::size_t repeats, F&& f) {
    f();
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < repeats; ++k) {
        const auto t0 = chunkwise::clock::now();
        f();
        best = std::min(best, since(t0));
    }
    return best;
}

/// read(2) of the whole file through a 1 MiB buffer (what `cat FILE > /dev/null` does).
inline void cat_file(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + file.string());
    std::vector<char> buf(1 << 20);
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
    ::close(fd);
}

/// A kilobyte-counting line of /proc/self/status ("VmHWM", "VmRSS"), in MiB.
inline double status_mib(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string k = std::string(key) + ":";
    while (std::getline(in, line)) {
        if (line.rfind(k, 0) == 0) return std::strtod(line.c_str() + k.size(), nullptr) / 1024.0;
    }
    return std::nan("");
}

/// Resets VmHWM to the current RSS (Linux >= 4.0); false where it cannot.
inline bool reset_peak_rss() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

using bench_floor::load_stored;
using bench_floor::stored_chunks;

/// What plain HDF5 sees of the dataset, and the C loop over it.
struct plain_hdf5 {
    std::vector<hsize_t> dims, chunk;  // chunk empty: contiguous
    bool deflate = false, shuffle = false;
    std::size_t chunk_bytes = 0;

    /// The RMSD per frame with H5Dread of `frames_per_read` frames at a time into one buffer.
    static std::vector<double> rmsd(const std::filesystem::path& file, const std::string& path, std::size_t every,
                                    std::size_t frames_per_read) {
        chunkwise::h5::library_lock lock;  // this thread's HDF5 calls; nothing else runs meanwhile
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0) throw std::runtime_error("H5Fopen " + file.string() + " failed");
        const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
        const hid_t fs = H5Dget_space(d);
        hsize_t dims[3];
        H5Sget_simple_extent_dims(fs, dims, nullptr);
        const std::size_t atoms = dims[1];
        const auto selection = bench_rmsd::every_nth(atoms, every);
        std::vector<float> buf(frames_per_read * atoms * 3);
        std::vector<double> x, out(dims[0]);
        bench_rmsd::reference ref;
        for (hsize_t f0 = 0; f0 < dims[0]; f0 += frames_per_read) {
            const hsize_t n = std::min<hsize_t>(frames_per_read, dims[0] - f0);
            const hsize_t start[3] = {f0, 0, 0}, count[3] = {n, dims[1], 3};
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr);
            const hid_t ms = H5Screate_simple(3, count, nullptr);
            const herr_t rc = H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf.data());
            H5Sclose(ms);
            if (rc < 0) throw std::runtime_error("H5Dread failed");
            if (f0 == 0) ref = bench_rmsd::make_reference(buf.data(), selection);
            bench_rmsd::frames_rmsd(buf.data(), n, atoms, selection, ref, x, out.data() + f0);
        }
        H5Sclose(fs);
        H5Dclose(d);
        H5Fclose(f);
        return out;
    }

    /// Dimensions, chunking and filters.
    static plain_hdf5 inspect(const std::filesystem::path& file, const std::string& path) {
        chunkwise::h5::library_lock lock;
        plain_hdf5 p;
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0) throw std::runtime_error("H5Fopen " + file.string() + " failed");
        const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
        const hid_t fs = H5Dget_space(d);
        p.dims.resize(3);
        H5Sget_simple_extent_dims(fs, p.dims.data(), nullptr);
        H5Sclose(fs);
        const hid_t dcpl = H5Dget_create_plist(d);
        if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
            p.chunk.resize(3);
            H5Pget_chunk(dcpl, 3, p.chunk.data());
            p.chunk_bytes = static_cast<std::size_t>(p.chunk[0] * p.chunk[1] * p.chunk[2]) * 4;
            for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
                unsigned flags = 0;
                std::size_t nv = 0;
                const H5Z_filter_t id =
                    H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nv, nullptr, 0, nullptr, nullptr);
                p.deflate = p.deflate || id == H5Z_FILTER_DEFLATE;
                p.shuffle = p.shuffle || id == H5Z_FILTER_SHUFFLE;
            }
        }
        H5Pclose(dcpl);
        H5Dclose(d);
        H5Fclose(f);
        return p;
    }
};

/// Inflates every stored chunk into one reused buffer of `chunk_bytes` (deflate alone: a
/// shuffled file's bytes are not unshuffled).
inline void inflate_all(const std::vector<std::vector<unsigned char>>& raw, std::size_t chunk_bytes) {
    static std::vector<unsigned char> out;
    out.resize(chunk_bytes);
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    struct freer {
        void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
    };
    static std::unique_ptr<libdeflate_decompressor, freer> d(libdeflate_alloc_decompressor());
    for (const auto& r : raw) {
        std::size_t got = 0;
        if (libdeflate_zlib_decompress(d.get(), r.data(), r.size(), out.data(), out.size(), &got) !=
            LIBDEFLATE_SUCCESS) {
            throw std::runtime_error("libdeflate: a chunk does not inflate");
        }
    }
#else
    for (const auto& r : raw) {
        uLongf got = static_cast<uLongf>(out.size());
        if (::uncompress(out.data(), &got, reinterpret_cast<const Bytef*>(r.data()), static_cast<uLong>(r.size())) !=
            Z_OK) {
            throw std::runtime_error("zlib: a chunk does not inflate");
        }
    }
#endif
}

inline const char* inflater_name() {
#if defined(CHUNKWISE_USE_LIBDEFLATE)
    return "libdeflate";
#else
    return "zlib";
#endif
}

/// The RMSD values of a chunkwise pass, flattened.
template <class Policy>
std::vector<double> chunkwise_pass(const bench_rmsd::rmsd_workload& w, Policy& policy) {
    std::vector<double> out;
    for (auto& part : chunkwise::gather(policy, w.run(policy))) out.insert(out.end(), part.begin(), part.end());
    return out;
}

/// The lock of the read path in one pass: seconds waiting and holding, of the read seconds.
struct lock_figures {
    double read = 0, held = 0, wait = 0;
    /// The Amdahl bound on the speedup at `n` workers implied by the held share (serial: only one
    /// reader holds the lock at a time).
    [[nodiscard]] double bound(double n) const {
        const double f = read > 0 ? held / read : 0;
        return 1.0 / (f + (1 - f) / n);
    }
    [[nodiscard]] static lock_figures of(const chunkwise::run_stats& st) {
        const auto sum = chunkwise::summarize(st);
        return lock_figures{sum.total_read, sum.total_lock_held, sum.total_lock_wait};
    }
};

inline int cmd_read(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"file", "dataset", "threads", "repeats", "every", "block-mib", "big-block-mib"},
                      {"json"});
    const std::filesystem::path file = a.required("file");
    const std::string path = a.text("dataset", bench_h5md::positions_path);
    const auto threads = a.counts("threads", {1, 2}, 1);
    const std::size_t repeats = a.count("repeats", 3, 1), every = a.count("every", 200, 1);
    const std::size_t block = a.count("block-mib", 4, 1) << 20, big = a.count("big-block-mib", 128, 1) << 20;
    const std::size_t most = *std::max_element(threads.begin(), threads.end());
    if (!std::filesystem::is_regular_file(file)) throw std::invalid_argument("--file: no file " + file.string());
    if (std::find(threads.begin(), threads.end(), std::size_t{1}) == threads.end())
        throw std::invalid_argument("--threads: must include 1 (the figures are against 1 thread)");

    // The stored chunks for the inflate floor, with plain HDF5 before chunkwise opens the file.
    const plain_hdf5 plain = plain_hdf5::inspect(file, path);
    std::size_t per_read = plain.chunk.empty() ? 0 : static_cast<std::size_t>(plain.chunk[0]);
    const std::size_t frame_bytes = static_cast<std::size_t>(plain.dims[1] * plain.dims[2]) * 4;
    if (per_read == 0) per_read = std::max<std::size_t>(1, block / frame_bytes);  // contiguous: a block's frames

    bench_rmsd::rmsd_workload small(file, path, every, block), large(file, path, every, big);
    bench_floor::floor_reader floor_small(file, path, small.block_list()), floor_big(file, path, large.block_list());
    for (std::size_t n : threads) floor_small.prepare(n);
    floor_big.prepare(1);
    // The decode floor (decode_floor.hpp) of a filtered dataset, at each thread count; its stored
    // chunks are the inflate figure's too.
    std::unique_ptr<bench_floor::decode_floor> decoders;
    if (!chunkwise::h5::dataset(file, path).filters().empty()) {
        decoders = std::make_unique<bench_floor::decode_floor>(file, path);
        for (std::size_t n : threads) decoders->prepare(n);
    }
    const std::size_t raw_bytes = decoders ? decoders->stored_bytes() : 0;
    std::vector<std::unique_ptr<chunkwise::thread_policy>> pools;
    for (std::size_t n : threads) pools.push_back(std::make_unique<chunkwise::thread_policy>(n));
    chunkwise::thread_policy one(1);  // the calling thread alone: no pool thread

    // Every reader once per round, one untimed round first, the best of the timed rounds each:
    // a slow spell of the machine touches the readers of one round alike, not one reader's repeats.
    std::vector<double> c_values, cw_values;
    round_robin rounds;
    const std::size_t i_cat = rounds.add([&] { cat_file(file); });
    const std::size_t i_inflate =
        plain.deflate ? rounds.add([&] { inflate_all(decoders->chunks().bytes, plain.chunk_bytes); }) : 0;
    std::vector<std::size_t> i_floor;
    for (std::size_t n : threads) i_floor.push_back(rounds.add([&, n] { floor_small.pass(n); }));
    const std::size_t i_floor_big = rounds.add([&] { floor_big.pass(1); });
    std::vector<std::size_t> i_decode;
    for (std::size_t n : threads) {
        if (decoders) i_decode.push_back(rounds.add([&, n] { decoders->pass(n); }));
    }
    const std::size_t i_c = rounds.add([&] { c_values = plain_hdf5::rmsd(file, path, every, per_read); });
    std::vector<std::size_t> i_cw, i_alone;
    for (std::size_t k = 0; k < threads.size(); ++k) {
        i_cw.push_back(rounds.add([&, k] { cw_values = chunkwise_pass(small, *pools[k]); }));
    }
    const std::size_t i_big = rounds.add([&] { (void)chunkwise_pass(large, one); });
    for (std::size_t k = 0; k < threads.size(); ++k) {
        i_alone.push_back(rounds.add([&, k] {
            (void)chunkwise::gather(threads[k] == 1 ? one : *pools[k],
                                    small.read_only(threads[k] == 1 ? one : *pools[k]));
        }));
    }
    const std::size_t i_read_big = rounds.add([&] { (void)chunkwise::gather(one, large.read_only(one)); });
    rounds.run(repeats);
    const double cat = rounds.best(i_cat), c_loop = rounds.best(i_c);
    const double inflate = plain.deflate ? rounds.best(i_inflate) : std::nan("");
    std::vector<double> cw_seconds, alone, floor_seconds;
    for (std::size_t i : i_cw) cw_seconds.push_back(rounds.best(i));
    for (std::size_t i : i_alone) alone.push_back(rounds.best(i));
    for (std::size_t i : i_floor) floor_seconds.push_back(rounds.best(i));
    // The floor of the read alone at each thread count: the pread floor, plus the decode floor
    // where the chunks are filtered.
    std::vector<double> decode_seconds, both;
    for (std::size_t i : i_decode) decode_seconds.push_back(rounds.best(i));
    for (std::size_t i = 0; i < threads.size(); ++i)
        both.push_back(floor_seconds[i] + (decoders ? decode_seconds[i] : 0.0));
    const double big_seconds = rounds.best(i_big), read_big = rounds.best(i_read_big),
                 floor_big_seconds = rounds.best(i_floor_big);
    const std::size_t k1 = static_cast<std::size_t>(std::find(threads.begin(), threads.end(), 1) - threads.begin());
    // The lock of the read path, one more pass of the read alone at each thread count.
    std::vector<lock_figures> locks;
    for (std::size_t k = 0; k < threads.size(); ++k) {
        auto& policy = threads[k] == 1 ? one : *pools[k];
        auto partial = small.read_only(policy);
        locks.push_back(lock_figures::of(partial.stats()));
    }
    pools.clear();
    floor_small.release();
    floor_big.release();
    if (decoders) decoders->release();

    double peak = 0, bound = 0, after = 0;
    const double before_big = status_mib("VmRSS");
    bool have_peak = false;
    {
        chunkwise::thread_policy pool(most);
        (void)chunkwise_pass(large, pool);  // buffers at their size
        have_peak = reset_peak_rss();
        (void)chunkwise_pass(large, pool);
        peak = status_mib("VmHWM");
    }
    after = status_mib("VmRSS");
    // The largest block of the big partition, and 2 stored chunks.
    std::size_t largest = 0;
    for (const auto& b : large.block_list()) largest = std::max(largest, b.size() * frame_bytes);
    const double chunk_mib = static_cast<double>(plain.chunk_bytes) / (1 << 20);
    bound = static_cast<double>(most) * (static_cast<double>(largest) / (1 << 20) + 2 * chunk_mib) + 64;

    double diff = 0;
    for (std::size_t i = 0; i < c_values.size() && i < cw_values.size(); ++i)
        diff = std::max(diff, std::abs(c_values[i] - cw_values[i]));
    const bool same = c_values.size() == cw_values.size() && diff == 0;

    std::string chunk_text = "contiguous";
    if (!plain.chunk.empty()) {
        chunk_text = "chunks (" + std::to_string(plain.chunk[0]) + ", " + std::to_string(plain.chunk[1]) + ", " +
                     std::to_string(plain.chunk[2]) + ")" + (plain.shuffle ? " + shuffle" : "") +
                     (plain.deflate ? " + deflate" : "");
    }
    const auto machine = chunkwise::bench::machine_info::here();
    const auto plural = [](std::size_t n) { return n == 1 ? "" : "s"; };
    std::printf("# %s: %llu frames x %llu atoms x 3 float32, %s; best of %zu, page cache warm\n", file.c_str(),
                static_cast<unsigned long long>(plain.dims[0]), static_cast<unsigned long long>(plain.dims[1]),
                chunk_text.c_str(), repeats);
    std::printf("# CPU: %s\n", machine.text().c_str());
    std::printf("%-46s %9.4f s\n", "cat (read(2), 1 MiB buffer)", cat);
    char label[96];
    for (std::size_t i = 0; i < threads.size(); ++i) {
        std::snprintf(label, sizeof label, "pread floor, %zu thread%s, %zu MiB blocks", threads[i], plural(threads[i]),
                      block >> 20);
        std::printf("%-46s %9.4f s  (%.2fx of 1 thread)\n", label, floor_seconds[i],
                    floor_seconds[k1] / floor_seconds[i]);
    }
    std::snprintf(label, sizeof label, "pread floor, 1 thread, %zu MiB blocks", big >> 20);
    std::printf("%-46s %9.4f s  (%.2fx of %zu MiB blocks)\n", label, floor_big_seconds,
                floor_big_seconds / floor_seconds[k1], block >> 20);
    for (std::size_t i = 0; i < decode_seconds.size(); ++i) {
        std::snprintf(label, sizeof label, "decode floor, %zu thread%s", threads[i], plural(threads[i]));
        std::printf("%-46s %9.4f s  (%.2fx of 1 thread; the dataset's pipeline from memory)\n", label,
                    decode_seconds[i], decode_seconds[k1] / decode_seconds[i]);
    }
    for (std::size_t i = 0; i < decode_seconds.size(); ++i) {
        std::snprintf(label, sizeof label, "floor, %zu thread%s (pread + decode)", threads[i], plural(threads[i]));
        std::printf("%-46s %9.4f s  (%.2fx of 1 thread)\n", label, both[i], both[k1] / both[i]);
    }
    if (plain.deflate) {
        std::printf("%-46s %9.4f s  (%.0f MiB stored)\n",
                    (std::string(inflater_name()) + " inflate alone, 1 thread").c_str(), inflate,
                    static_cast<double>(raw_bytes) / (1 << 20));
    }
    std::printf("%-46s %9.4f s  (H5Dread of %zu frames at a time)\n", "HDF5 C loop, 1 thread", c_loop, per_read);
    for (std::size_t i = 0; i < threads.size(); ++i) {
        std::snprintf(label, sizeof label, "chunkwise, %zu thread%s, %zu MiB blocks", threads[i], plural(threads[i]),
                      block >> 20);
        std::printf("%-46s %9.4f s  (%.2fx of the C loop, %.2fx of 1 thread)\n", label, cw_seconds[i],
                    cw_seconds[i] / c_loop, cw_seconds[k1] / cw_seconds[i]);
    }
    std::snprintf(label, sizeof label, "chunkwise, 1 thread, %zu MiB blocks", big >> 20);
    std::printf("%-46s %9.4f s  (%.2fx of %zu MiB blocks)\n", label, big_seconds, big_seconds / cw_seconds[k1],
                block >> 20);
    for (std::size_t i = 0; i < threads.size(); ++i) {
        std::snprintf(label, sizeof label, "  the read alone, %zu thread%s, %zu MiB blocks", threads[i],
                      plural(threads[i]), block >> 20);
        std::printf("%-46s %9.4f s  (%.2fx of the floor; %.2fx of 1 thread, the floor %.2fx)\n", label, alone[i],
                    alone[i] / both[i], alone[k1] / alone[i], both[k1] / both[i]);
    }
    std::snprintf(label, sizeof label, "  the read alone, 1 thread, %zu MiB blocks", big >> 20);
    std::printf("%-46s %9.4f s  (%.2fx of the floor; %.2fx of %zu MiB blocks, the floor %.2fx)\n", label, read_big,
                read_big / floor_big_seconds, read_big / alone[k1], block >> 20, floor_big_seconds / floor_seconds[k1]);
    {
        const chunkwise::h5::copy_method m = chunkwise::h5::large_read_copies();
        const char* how = m.method == "mapped copies" ? "mapped copies" : "pread";
        if (m.pread_ms > 0) {
            std::printf(
                "  blocks of %zu MiB or more copied by %s (measured on the first: pread %.3f ms, mapped %.3f ms)\n",
                m.min_bytes >> 20, how, m.pread_ms, m.mapped_ms);
        } else {
            std::printf("  large blocks copied by %s (CHUNKWISE_HDF5_MMAP)\n", how);
        }
    }
    for (std::size_t i = 0; i < threads.size(); ++i) {
        const lock_figures& l = locks[i];
        std::printf(
            "lock of the read path, %zu thread%s: held %.5f s, waited %.5f s of %.4f s read (%.2f%% held): Amdahl "
            "bound S(16) %.1f, S(64) %.1f, S(1024) %.0f\n",
            threads[i], plural(threads[i]), l.held, l.wait, l.read, l.read > 0 ? 100 * l.held / l.read : 0.0,
            l.bound(16), l.bound(64), l.bound(1024));
    }
    if (have_peak) {
        std::printf(
            "peak RSS of a %zu-thread pass of %zu MiB blocks: %.0f MiB (bound %.0f MiB); RSS %.0f MiB before, %.0f MiB "
            "after\n",
            most, big >> 20, peak, bound, before_big, after);
    }
    std::printf("same RMSD values as the C loop: %s\n",
                same ? "yes, bit for bit" : ("NO, max difference " + std::to_string(diff)).c_str());
    if (a.flag("json")) {
        const auto list = [](const std::vector<double>& v) {
            std::string t = "[";
            for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
            return t + "]";
        };
        std::vector<double> held, wait, read;
        for (const auto& l : locks) {
            held.push_back(l.held);
            wait.push_back(l.wait);
            read.push_back(l.read);
        }
        std::vector<double> threads_d(threads.begin(), threads.end());
        std::printf(
            "json {\"file\": \"%s\", \"layout\": \"%s\", \"cpu\": \"%s\", \"cat\": %.6f, \"inflate\": %s, "
            "\"c_loop\": %.6f, \"threads\": %s, \"floor\": %s, \"floor_big\": %.6f, \"chunkwise\": %s, "
            "\"read_alone_threads\": %s, \"decode_floor\": %s, \"floor_sum\": %s, \"lock_held\": %s, "
            "\"lock_wait\": %s, \"lock_read\": %s, ",
            file.filename().c_str(), chunk_text.c_str(), machine.text().c_str(), cat,
            plain.deflate ? std::to_string(inflate).c_str() : "null", c_loop, list(threads_d).c_str(),
            list(floor_seconds).c_str(), floor_big_seconds, list(cw_seconds).c_str(), list(alone).c_str(),
            decoders ? list(decode_seconds).c_str() : "null", list(both).c_str(), list(held).c_str(),
            list(wait).c_str(), list(read).c_str());
        std::printf(
            "\"block_mib\": %zu, \"big_block_mib\": %zu, \"big_block\": %.6f, \"peak_rss_mib\": %s, "
            "\"rss_bound_mib\": %.1f, \"rss_after_mib\": %.1f, \"same_values\": %s, \"read_alone\": %.6f, "
            "\"read_alone_big\": %.6f}\n",
            block >> 20, big >> 20, big_seconds, have_peak ? std::to_string(peak).c_str() : "null", bound, after,
            same ? "true" : "false", alone[k1], read_big);
    }
    return same ? 0 : 1;
}

}  // namespace bench_read
