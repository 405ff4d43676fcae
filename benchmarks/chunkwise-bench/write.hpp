#pragma once
// chunkwise-bench write: a generated float32 array written by chunkwise's streaming writers at each thread count,
// against the floor of that write, in one run:
//
//   chunkwise-bench write --store h5|zarr2|zarr3 --out PATH --shape ROWSxCOLS --chunk ROWSxCOLS
//                         --codec none|lz4|zstd|gzip|blosc [--level L] [--shuffle] [--shard-rows N]
//                         [--threads 1,2] [--repeats 3] [--block-mib 16] [--write-blocks] [--mode mpi]
//                         [--json FILE]
//
// The values: a pool of two blocks' rows (smooth sines plus a little noise, generated once, before any timing);
// row r of the array is row r mod (pool rows) of the pool, so that what is timed is the write, not the making of
// values, and the pool, not the array, sits in memory. Blocks of --block-mib MiB, whole chunk rows (shard rows).
// Prints, best of --repeats rounds after one untimed round (each round the floor, then chunkwise), at each thread
// count N (each count's rounds, and its write_blocks passes, starting after sync()):
//   floor       every chunk copied out of the pool, encoded alone (the same codec pipeline the store runs) and
//               written with pwrite into one file, by N threads taking chunks in turn: no store, no metadata
//   chunkwise   map_blocks on N threads, each block given to h5::stream_writer / zarr::stream_writer
//               (write(block, values)), then close(): x of the floor, S(N) against the first thread count
//   write_blocks   (--write-blocks) the same blocks as results held in memory (copies of the pool's rows),
//               written by h5::write_blocks / zarr::write_blocks: x of the streaming write
// and the peak resident memory of the process during the chunkwise writes at that count (VmHWM, reset first).
// With --mode mpi, under mpiexec with N ranks: the same at 1 worker, by the root alone, then at N ranks (one worker
// each): the floor with every rank encoding every N-th chunk into a file of its own, chunkwise with the collective
// stream_writer (map_blocks on mpi_policy); S(N) against the root alone; the peak memory the largest of any rank.
// It reads every value back through the store's reader: WRONG VALUES and exit status 1 where one differs.
#include "../common/cli.hpp"

#include <chunkwise/bench/machine.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/zarr.hpp>
#if defined(CHUNKWISE_BENCH_MPI)
#include <chunkwise/mpi.hpp>
#endif

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_write {

namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;

/// "ROWSxCOLS" as two numbers. \throws std::invalid_argument naming the option
inline std::vector<std::size_t> two_numbers(const std::string& option, const std::string& text) {
    const auto x = text.find('x');
    const auto number = [&](const std::string& t) {
        if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 12)
            throw std::invalid_argument("--" + option + ": '" + text + "' is not ROWSxCOLS");
        const std::size_t v = std::stoull(t);
        if (v == 0) throw std::invalid_argument("--" + option + ": '" + text + "' has an extent of 0");
        return v;
    };
    if (x == std::string::npos) throw std::invalid_argument("--" + option + ": '" + text + "' is not ROWSxCOLS");
    return {number(text.substr(0, x)), number(text.substr(x + 1))};
}

/// The peak resident memory since the last reset, in MiB (VmHWM); reset_peak starts it again from now.
inline double peak_mib() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    return std::nan("");
}
inline void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

/// Best of `repeats` timed calls of f after one untimed call (none when `repeats` is 0: then the one call is
/// timed), each after an untimed call of `prepare`.
template <class P, class F>
double best_of(std::size_t repeats, P&& prepare, F&& f) {
    if (repeats > 0) {
        prepare();
        f();
    }
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < std::max<std::size_t>(repeats, 1); ++k) {
        prepare();
        const auto t0 = chunkwise::clock::now();
        f();
        best = std::min(best, chunkwise::seconds_since(t0));
    }
    return best;
}

struct result {
    std::size_t workers = 0;
    double seconds = 0, floor_seconds = 0, x_floor = 0, speedup = 0, peak_rss_mib = 0, write_blocks_seconds = 0;
    bool same_values = false;
};

inline int cmd_write(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2,
                      {"store", "out", "shape", "chunk", "codec", "level", "shard-rows", "threads", "repeats",
                       "block-mib", "mode", "json"},
                      {"shuffle", "write-blocks"});
    const std::string kind = a.required("store");
    if (kind != "h5" && kind != "zarr2" && kind != "zarr3")
        throw std::invalid_argument("--store: '" + kind + "' is not h5, zarr2 or zarr3");
    const std::string mode = a.text("mode", "threads");
    if (mode != "threads" && mode != "mpi") throw std::invalid_argument("--mode: '" + mode + "' is not threads or mpi");
#if !defined(CHUNKWISE_BENCH_MPI)
    if (mode == "mpi") throw std::invalid_argument("--mode mpi: this chunkwise-bench was built without MPI");
#endif
    const std::filesystem::path out = a.required("out");
    const auto shape = two_numbers("shape", a.required("shape")), chunk = two_numbers("chunk", a.required("chunk"));
    const std::string codec_arg = a.text("codec", "none");
    const std::string codec = codec_arg == "none" ? "" : codec_arg;
    const int level = static_cast<int>(a.count("level", 0));
    const bool shuffle = a.flag("shuffle");
    const auto threads = a.counts("threads", {1, 2}, 1);
    const std::size_t repeats = a.count("repeats", 3, 1), block_mib = a.count("block-mib", 16, 1);
    const std::size_t rows = shape[0], cols = shape[1];

    // The options of the store, checked by it (unit: the rows a block is a multiple of).
    h5::write_options ho{
        .chunk = chunk, .shuffle = shuffle, .codec = codec, .level = level, .mode = chunkwise::write_mode::replace};
    zarr::write_options zo{.chunk = chunk,
                           .shuffle = shuffle,
                           .codec = codec,
                           .level = level,
                           .format = kind == "zarr3" ? 3 : 2,
                           .mode = chunkwise::write_mode::replace};
    std::size_t unit = chunk[0];
    if (a.has("shard-rows")) {
        if (kind != "zarr3") throw std::invalid_argument("--shard-rows: shards are Zarr v3's (--store zarr3)");
        zo.shard = {a.count("shard-rows", chunk[0], 1), cols};
        zo.shard[1] = (cols + chunk[1] - 1) / chunk[1] * chunk[1];
        unit = zo.shard[0];
    }
    if (kind == "h5") {
        if (const std::string why = h5::codec_problem(ho); !why.empty()) throw std::invalid_argument("--codec: " + why);
    } else if (const std::string why = zarr::options_problem(zo); !why.empty()) {
        throw std::invalid_argument("--codec: " + why);
    }
    const std::size_t row_bytes = cols * sizeof(float);
    const std::size_t block_rows =
        std::max<std::size_t>((block_mib << 20) / row_bytes / unit, 1) * unit;  // whole chunk (shard) rows
    std::vector<chunkwise::block> blocks;                                       // block k: rows [k * block_rows, ...)
    for (std::size_t r = 0; r < rows; r += block_rows)
        blocks.push_back({blocks.size(), r, std::min(rows, r + block_rows)});

    // The pool: two blocks' rows, made once.
    const std::size_t pool_rows = std::min(rows, 2 * block_rows);
    std::vector<float> pool(pool_rows * cols);
    for (std::size_t r = 0; r < pool_rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) {
            const std::uint32_t h = static_cast<std::uint32_t>((r * 2654435761u) ^ (c * 40503u));
            pool[r * cols + c] =
                static_cast<float>(100.0 * std::sin(0.01 * static_cast<double>(r) + 0.002 * static_cast<double>(c)) +
                                   static_cast<double>(h % 64) / 256.0);
        }
    const auto rows_of = [&](const chunkwise::block& b) {  // block rows in the pool (blocks are block_rows long)
        return pool.data() + (b.begin % pool_rows) * cols;
    };

    // The floor encodes each chunk as the store does (its public chunk encoders), one encoder per thread.
    const std::size_t chunk_bytes = chunk[0] * chunk[1] * sizeof(float);
    const auto encoder = [&] {
        return kind == "h5"
                   ? std::function<std::span<const unsigned char>(std::span<const unsigned char>)>(
                         [e = std::make_shared<h5::chunk_encoder>(ho, sizeof(float))](auto c) { return e->encode(c); })
                   : std::function<std::span<const unsigned char>(std::span<const unsigned char>)>(
                         [e = std::make_shared<zarr::chunk_encoder>(zo, sizeof(float), chunk_bytes)](auto c) {
                             return e->encode(c);
                         });
    };
    const std::size_t grid_rows = (rows + chunk[0] - 1) / chunk[0], grid_cols = (cols + chunk[1] - 1) / chunk[1];
    const std::filesystem::path floor_file = out.string() + ".floor";
    // The chunks j = share, share + shares, ... (all of them by default) into `file`.
    const auto floor_pass = [&](chunkwise::thread_policy& pool_threads, std::size_t share = 0, std::size_t shares = 1,
                                const std::filesystem::path& file = {}) {
        const std::filesystem::path target = file.empty() ? floor_file : file;
        const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) throw std::runtime_error("cannot write " + target.string());
        std::atomic<std::size_t> next{share};
        std::atomic<std::uint64_t> at{0};
        const std::size_t n = pool_threads.workers();
        (void)chunkwise::map_blocks(
            pool_threads, chunkwise::partition(n, chunkwise::parts{n}), [&](const chunkwise::block&) {
                std::vector<float> box(chunk[0] * chunk[1]);
                const auto encode = encoder();
                for (std::size_t j = next.fetch_add(shares); j < grid_rows * grid_cols; j = next.fetch_add(shares)) {
                    const std::size_t g = j / grid_cols, cc = j % grid_cols;
                    std::fill(box.begin(), box.end(), 0.0f);
                    const std::size_t r_end = std::min(rows, (g + 1) * chunk[0]);
                    const std::size_t c0 = cc * chunk[1], c_end = std::min(cols, c0 + chunk[1]);
                    for (std::size_t r = g * chunk[0]; r < r_end; ++r)
                        std::memcpy(&box[(r - g * chunk[0]) * chunk[1]], &pool[(r % pool_rows) * cols + c0],
                                    (c_end - c0) * sizeof(float));
                    const auto bytes = encode(std::span<const unsigned char>(
                        reinterpret_cast<const unsigned char*>(box.data()), chunk_bytes));
                    const std::uint64_t off = at.fetch_add(bytes.size());
                    if (::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(off)) !=
                        static_cast<ssize_t>(bytes.size()))
                        throw std::runtime_error("pwrite to " + target.string() + " failed");
                }
                return 0;
            });
        ::close(fd);
    };
    const auto stream_pass = [&](chunkwise::thread_policy& pool_threads) {
        const auto give = [&](auto& w) {
            (void)chunkwise::map_blocks(pool_threads, blocks, [&](const chunkwise::block& b) {
                w.write(b.begin, std::span<const float>(rows_of(b), b.size() * cols));
                return 0;
            });
            w.close();
        };
        if (kind == "h5") {
            h5::stream_writer<float> w(out, "/data", shape, ho);
            give(w);
        } else {
            zarr::stream_writer<float> w(out, shape, zo);
            give(w);
        }
    };
    const auto clear = [&] { std::filesystem::remove_all(out); };  // untimed: each write makes its store anew
    const auto blocks_pass = [&](chunkwise::thread_policy& pool_threads) {
        clear();
        auto results = chunkwise::map_blocks(pool_threads, blocks, [&](const chunkwise::block& b) {
            xt::xtensor<float, 2> r = xt::xtensor<float, 2>::from_shape({b.size(), cols});
            std::copy(rows_of(b), rows_of(b) + b.size() * cols, r.begin());
            return r;
        });
        const auto t0 = chunkwise::clock::now();
        if (kind == "h5")
            h5::write_blocks(pool_threads, out, "/data", std::move(results), ho);
        else
            zarr::write_blocks(pool_threads, out, std::move(results), zo);
        return chunkwise::seconds_since(t0);
    };
    const auto same_values = [&] {
        for (const auto& b : blocks) {
            std::vector<float> got(b.size() * cols);
            if (kind == "h5") {
                const auto v = h5::dataset(out, "/data").read<float, 2>(b);
                got.assign(v.begin(), v.end());
            } else {
                const auto v = zarr::array(out).read<float, 2>(b);
                got.assign(v.begin(), v.end());
            }
            if (std::memcmp(got.data(), rows_of(b), got.size() * sizeof(float)) != 0) return false;
        }
        return true;
    };

    bool quiet = false;  // under MPI only the root prints
#if defined(CHUNKWISE_BENCH_MPI)
    if (mode == "mpi") quiet = boost::mpi::communicator{}.rank() != 0;
#endif
    if (!quiet)
        std::printf("# write %s: %s float32, chunks %s%s, codec %s%s%s, blocks of %zu rows (%.1f MiB); best of %zu\n",
                    kind.c_str(), a.required("shape").c_str(), a.required("chunk").c_str(),
                    zo.shard.empty() ? "" : (", shards of " + std::to_string(zo.shard[0]) + " rows").c_str(),
                    codec.empty() ? "none" : codec.c_str(), level ? (" level " + std::to_string(level)).c_str() : "",
                    shuffle ? " + shuffle" : "", block_rows, static_cast<double>(block_rows * row_bytes) / (1 << 20),
                    repeats);
    if (!quiet) std::printf("# CPU: %s\n", chunkwise::bench::machine_info::here().text().c_str());
    std::vector<result> results;
    bool all_same = true;
#if defined(CHUNKWISE_BENCH_MPI)
    if (mode == "mpi") {
        chunkwise::mpi_policy mpi;
        const std::size_t ranks = static_cast<std::size_t>(mpi.size()), me = static_cast<std::size_t>(mpi.rank());
        chunkwise::thread_policy one(1);
        result alone, all;
        alone.workers = 1;
        all.workers = ranks;
        alone.seconds = alone.floor_seconds = all.seconds = all.floor_seconds = std::numeric_limits<double>::infinity();
        const auto timed = [&](auto&& f) {  // every rank's time, from a synchronised start to a synchronised end
            chunkwise::synchronize(mpi);
            const auto t0 = chunkwise::clock::now();
            f();
            chunkwise::synchronize(mpi);
            return chunkwise::seconds_since(t0);
        };
        const std::filesystem::path mine = floor_file.string() + "." + std::to_string(me);
        double peak = 0;
        for (std::size_t k = 0; k <= repeats; ++k) {
            double f1 = 0, c1 = 0;
            if (mpi.is_root()) {
                f1 = best_of(
                    0, [&] { std::filesystem::remove(floor_file); }, [&] { floor_pass(one); });
                c1 = best_of(0, clear, [&] { stream_pass(one); });
            }
            std::filesystem::remove(mine);  // (as every write: a new file)
            chunkwise::synchronize(mpi);
            const double fn = timed([&] { floor_pass(one, me, ranks, mine); });
            if (mpi.is_root()) clear();
            ::malloc_trim(0);
            reset_peak();
            const double cn = timed([&] {
                const auto give = [&](auto& w) {
                    (void)chunkwise::map_blocks(mpi, blocks, [&](const chunkwise::block& b) {
                        w.write(b.begin, std::span<const float>(rows_of(b), b.size() * cols));
                        return 0;
                    });
                    w.close();
                };
                if (kind == "h5") {
                    h5::stream_writer<float> w(mpi, out, "/data", shape, ho);
                    give(w);
                } else {
                    zarr::stream_writer<float> w(mpi, out, shape, zo);
                    give(w);
                }
            });
            peak = std::max(peak, peak_mib());
            if (k > 0) {
                alone.floor_seconds = std::min(alone.floor_seconds, f1);
                alone.seconds = std::min(alone.seconds, c1);
                all.floor_seconds = std::min(all.floor_seconds, fn);
                all.seconds = std::min(all.seconds, cn);
            }
        }
        const auto peaks = chunkwise::all_gather(mpi, chunkwise::partial_results<double>(ranks, {me}, {peak}));
        all.peak_rss_mib = *std::max_element(peaks.begin(), peaks.end());
        std::filesystem::remove(mine);
        if (!mpi.is_root()) return 0;
        all.same_values = alone.same_values = same_values();
        all_same = all.same_values;
        alone.x_floor = alone.seconds / alone.floor_seconds;
        all.x_floor = all.seconds / all.floor_seconds;
        alone.speedup = 1.0;
        all.speedup = alone.seconds / all.seconds;
        for (const result* r : {&alone, &all})
            std::printf("%zu %s floor %8.4f s  chunkwise %8.4f s  %.2fx of the floor  S = %.2f%s%s\n", r->workers,
                        r == &alone ? "process:" : (ranks == 1 ? "rank:   " : "ranks:  "), r->floor_seconds, r->seconds,
                        r->x_floor, r->speedup,
                        r == &alone ? ""
                                    : ("  peak " + std::to_string(static_cast<long>(r->peak_rss_mib)) +
                                       " MiB (the largest of any rank)")
                                          .c_str(),
                        r->same_values ? "" : "  WRONG VALUES");
        results = {alone, all};
    }
#endif
    for (std::size_t n : mode == "mpi" ? std::vector<std::size_t>{} : threads) {
        chunkwise::thread_policy pool_threads(n);
        result r;
        r.workers = n;
        // Rounds alternate floor and chunkwise (the first untimed), so that both meet the same file system state
        // (its write-back of earlier rounds included); the peak memory is the chunkwise rounds'. Each thread count,
        // and the write_blocks passes, start after sync() (untimed): none pays for the write-back of the stores
        // that another count's rounds, or the write_blocks passes, left dirty.
        ::sync();
        r.floor_seconds = r.seconds = std::numeric_limits<double>::infinity();
        double peak = 0;
        for (std::size_t k = 0; k <= repeats; ++k) {
            const double f = best_of(
                0, [&] { std::filesystem::remove(floor_file); }, [&] { floor_pass(pool_threads); });
            ::malloc_trim(0);  // memory the allocator kept from earlier rounds (write_blocks' results) goes back
            reset_peak();
            const double c = best_of(0, clear, [&] { stream_pass(pool_threads); });
            peak = std::max(peak, peak_mib());
            if (k > 0) {
                r.floor_seconds = std::min(r.floor_seconds, f);
                r.seconds = std::min(r.seconds, c);
            }
        }
        r.peak_rss_mib = peak;
        r.same_values = same_values();
        all_same = all_same && r.same_values;
        if (a.flag("write-blocks")) {
            ::sync();
            r.write_blocks_seconds = std::numeric_limits<double>::infinity();
            for (std::size_t k = 0; k <= repeats; ++k) {
                const double t = blocks_pass(pool_threads);
                if (k > 0) r.write_blocks_seconds = std::min(r.write_blocks_seconds, t);
            }
        }
        r.x_floor = r.seconds / r.floor_seconds;
        r.speedup = results.empty() ? 1.0 : results.front().seconds / r.seconds;
        std::printf("%zu thread%s floor %8.4f s  chunkwise %8.4f s  %.2fx of the floor  S = %.2f  peak %.0f MiB%s", n,
                    n == 1 ? ": " : "s:", r.floor_seconds, r.seconds, r.x_floor, r.speedup, r.peak_rss_mib,
                    r.same_values ? "" : "  WRONG VALUES");
        if (a.flag("write-blocks"))
            std::printf("  write_blocks %8.4f s (%.2fx of the stream)", r.write_blocks_seconds,
                        r.write_blocks_seconds / r.seconds);
        std::printf("\n");
        results.push_back(r);
    }
    std::error_code ec;
    std::filesystem::remove(floor_file, ec);
    if (a.has("json")) {
        std::ofstream j(a.required("json"));
        j << "{\"command\": \"write\", \"store\": \"" << kind << "\", \"codec\": \"" << codec_arg
          << "\", \"rows\": " << rows << ", \"cols\": " << cols << ", \"results\": [";
        for (std::size_t k = 0; k < results.size(); ++k) {
            const result& r = results[k];
            j << (k ? ", " : "") << "{\"workers\": " << r.workers << ", \"seconds\": " << r.seconds
              << ", \"floor_seconds\": " << r.floor_seconds << ", \"x_floor\": " << r.x_floor
              << ", \"speedup\": " << r.speedup << ", \"peak_rss_mib\": " << r.peak_rss_mib
              << ", \"same_values\": " << (r.same_values ? "true" : "false");
            if (a.flag("write-blocks")) j << ", \"write_blocks_seconds\": " << r.write_blocks_seconds;
            j << "}";
        }
        j << "]}\n";
        if (!j) throw std::runtime_error("cannot write " + a.required("json"));
    }
    if (!all_same) std::printf("WRONG VALUES: what was read back differs from what was written\n");
    return all_same ? 0 : 1;
}

}  // namespace bench_write
