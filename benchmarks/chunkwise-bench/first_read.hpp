#pragma once
// chunkwise-bench first-read: the first read of a freshly opened dataset, the way a real analysis
// reads each chunk of a large file once: nothing learnt before, so whatever chunkwise must find
// out about the chunks (where they are) is part of the read.
//
//   chunkwise-bench first-read --file FILE.h5 [--dataset /data] [--threads 1,2] [--repeats 3]
//                              [--block-mib 4] [--make ROWSxCOLS [--gzip] [--index TYPE]] [--json]
//
// --make writes FILE.h5 first: /data, ROWS x COLS float32 in chunks of one row (100000x256: 10^5
// chunks of 1 KiB), gzip level 1 with --gzip, its chunks indexed by --index: btree1 (the default
// file format), fixed (a fixed array: the newest format, libver='latest'), extensible (the newest
// format with an unlimited first axis, as SWMR writers make), btree2 (both axes unlimited),
// single (one chunk of the whole dataset) or implicit (allocated when created, no filter). For each thread count (best
// of R, a fresh open each time): the first block alone after opening (its latency), and a whole pass of map_blocks over
// h5::partition(ds, block_bytes{4 MiB}) after another fresh open, with the seconds spent waiting
// for and holding a lock of the read path, their share of the read time, the Amdahl bound the
// held share implies at 16, 64 and 1024 workers, and the speedup over 1 thread; beside it the
// floor at each thread count: the pread floor of the same blocks (floor.hpp), plus, where the
// dataset is filtered, the decode floor of its stored chunks (decode_floor.hpp).
#include "../common/cli.hpp"
#include "../common/io.hpp"
#include "decode_floor.hpp"
#include "floor.hpp"

#include <chunkwise/bench/machine.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_first_read {

/// The chunk index types --index names.
inline const std::vector<std::string>& index_names() {
    static const std::vector<std::string> v{"btree1", "fixed", "extensible", "btree2", "single", "implicit"};
    return v;
}

/// Writes /data of rows x cols float32 in chunks of one row (gzip level 1 where asked), its chunks
/// indexed by `index` (index_names()).
inline void make(const std::filesystem::path& file, std::size_t rows, std::size_t cols, bool gzip,
                 const std::string& index) {
    chunkwise::h5::library_lock lock;
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (index != "btree1") H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0) throw std::runtime_error("first-read: cannot create " + file.string());
    const hsize_t dims[2] = {rows, cols};
    hsize_t chunk[2] = {1, cols}, maxdims[2] = {rows, cols};
    if (index == "extensible") maxdims[0] = H5S_UNLIMITED;
    if (index == "btree2") maxdims[0] = maxdims[1] = H5S_UNLIMITED;
    if (index == "single") chunk[0] = rows;
    const hid_t space = H5Screate_simple(2, dims, maxdims);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    if (gzip) H5Pset_deflate(dcpl, 1);
    if (index == "implicit") H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    const hid_t d = H5Dcreate2(f, "/data", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    std::vector<float> v(rows * cols);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 2654435761u) % 10007) * 0.01f;
    const herr_t rc = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    if (d >= 0) H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
    if (rc < 0) throw std::runtime_error("first-read: cannot write " + file.string());
}

struct first_pass {
    double open = 0, first_block = 0, pass = 0, read = 0, held = 0, wait = 0;
};

inline int cmd_first_read(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"file", "dataset", "threads", "repeats", "block-mib", "make", "index"},
                      {"gzip", "json"});
    const std::filesystem::path file = a.required("file");
    const std::string path = a.text("dataset", "/data");
    const auto threads = a.counts("threads", {1, 2}, 1);
    const std::size_t repeats = a.count("repeats", 3, 1), block = a.count("block-mib", 4, 1) << 20;
    if (std::find(threads.begin(), threads.end(), std::size_t{1}) == threads.end())
        throw std::invalid_argument("--threads: must include 1 (the speedups are against 1 thread)");
    const std::string shape = a.text("make", "");
    if (!shape.empty()) {
        const auto x = shape.find('x');
        std::size_t rows = 0, cols = 0;
        try {
            rows = std::stoul(shape.substr(0, x));
            cols = x == std::string::npos ? 0 : std::stoul(shape.substr(x + 1));
        } catch (const std::exception&) {
            rows = 0;
        }
        if (rows == 0 || cols == 0) throw std::invalid_argument("--make: '" + shape + "' is not ROWSxCOLS");
        const std::string index = a.text("index", "btree1");
        if (std::find(index_names().begin(), index_names().end(), index) == index_names().end())
            throw std::invalid_argument("--index: '" + index +
                                        "' is none of btree1, fixed, extensible, btree2, single, implicit");
        if (index == "implicit" && a.flag("gzip"))
            throw std::invalid_argument(
                "--index implicit: HDF5 allocates implicit chunks unfiltered; --gzip cannot go with it");
        make(file, rows, cols, a.flag("gzip"), index);
    } else if (!a.text("index", "").empty()) {
        throw std::invalid_argument("--index: only with --make (it says how the file is written)");
    }
    if (!std::filesystem::is_regular_file(file)) throw std::invalid_argument("--file: no file " + file.string());

    std::vector<first_pass> best(threads.size());
    for (std::size_t k = 0; k < threads.size(); ++k) {
        first_pass b{1e300, 1e300, 1e300, 0, 0, 0};
        chunkwise::thread_policy pool(threads[k]);
        for (std::size_t r = 0; r < repeats; ++r) {
            first_pass p;
            {  // the first block after a fresh open
                auto t0 = chunkwise::clock::now();
                chunkwise::h5::dataset ds(file, path);
                p.open = chunkwise::seconds_since(t0);
                const auto blocks = chunkwise::h5::partition(ds, chunkwise::h5::block_bytes{block});
                chunkwise::h5::read_buffer<float> buf;
                t0 = chunkwise::clock::now();
                (void)ds.read<float, 2>(blocks.front(), buf);
                p.first_block = chunkwise::seconds_since(t0);
            }
            {  // a whole pass after another fresh open
                chunkwise::h5::dataset ds(file, path);
                const auto blocks = chunkwise::h5::partition(ds, chunkwise::h5::block_bytes{block});
                const auto t0 = chunkwise::clock::now();
                auto partial = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& bl) {
                    thread_local chunkwise::h5::read_buffer<float> buf;
                    return ds.read<float, 2>(bl, buf)(0, 0);
                });
                p.pass = chunkwise::seconds_since(t0);
                const auto sum = chunkwise::summarize(partial.stats());
                p.read = sum.total_read;
                p.held = sum.total_lock_held;
                p.wait = sum.total_lock_wait;
            }
            b.open = std::min(b.open, p.open);
            b.first_block = std::min(b.first_block, p.first_block);
            if (p.pass < b.pass) {
                b.pass = p.pass;
                b.read = p.read;
                b.held = p.held;
                b.wait = p.wait;
            }
        }
        best[k] = b;
    }

    chunkwise::h5::dataset ds(file, path);
    // The pread floor of the same blocks (read.hpp's), each thread count the best of R.
    std::vector<double> floor_seconds;
    {
        bench_floor::floor_reader floor(file, path, chunkwise::h5::partition(ds, chunkwise::h5::block_bytes{block}));
        for (std::size_t n : threads) {
            floor.prepare(n);
            double b = 1e300;
            for (std::size_t r = 0; r <= repeats; ++r) {
                const auto t0 = chunkwise::clock::now();
                floor.pass(n);
                if (r > 0) b = std::min(b, chunkwise::seconds_since(t0));
            }
            floor_seconds.push_back(b);
        }
    }
    // The decode floor of a filtered dataset (decode_floor.hpp), each thread count the best of R;
    // the floor of the pass is then pread + decode.
    std::vector<double> decode_seconds(threads.size(), 0.0);
    if (!ds.filters().empty()) {
        bench_floor::decode_floor decoders(file, path);
        for (std::size_t k = 0; k < threads.size(); ++k) {
            decoders.prepare(threads[k]);
            double b = 1e300;
            for (std::size_t r = 0; r <= repeats; ++r) {
                const auto t0 = chunkwise::clock::now();
                decoders.pass(threads[k]);
                if (r > 0) b = std::min(b, chunkwise::seconds_since(t0));
            }
            decode_seconds[k] = b;
        }
    }
    std::string text = bench_io::shape_text(ds.shape()) + " " + ds.type_name();
    std::size_t chunks = 0;
    if (const auto c = ds.chunk_shape()) {
        chunks = 1;
        for (std::size_t d = 0; d < c->size(); ++d) chunks *= (ds.shape()[d] + (*c)[d] - 1) / (*c)[d];
        text += ", chunks " + bench_io::shape_text(*c) + " (" + std::to_string(chunks) + ")";
    }
    for (const auto& f : ds.filters()) text += " + " + f;
    std::printf("# %s:%s: %s; first read after a fresh open, best of %zu, page cache warm\n", file.c_str(),
                path.c_str(), text.c_str(), repeats);
    std::printf("# CPU: %s\n", chunkwise::bench::machine_info::here().text().c_str());
    const std::size_t k1 = static_cast<std::size_t>(std::find(threads.begin(), threads.end(), 1) - threads.begin());
    for (std::size_t k = 0; k < threads.size(); ++k) {
        const first_pass& p = best[k];
        const double f = p.read > 0 ? p.held / p.read : 0;
        const auto bound = [f](double n) { return 1.0 / (f + (1 - f) / n); };
        const double floor = floor_seconds[k] + decode_seconds[k], floor1 = floor_seconds[k1] + decode_seconds[k1];
        std::printf(
            "%zu thread%s: open %.2f ms, first block %.2f ms, whole pass %.4f s (%.2fx of 1 thread; %.2fx of the "
            "floor, "
            "%.4f s = pread %.4f s + decode %.4f s, whose own is %.2fx); lock held %.5f s (%.2f%% of %.4f s read), "
            "waited %.5f s: Amdahl bound S(16) %.1f, S(64) %.1f, S(1024) %.0f\n",
            threads[k], threads[k] == 1 ? "" : "s", 1e3 * p.open, 1e3 * p.first_block, p.pass, best[k1].pass / p.pass,
            p.pass / floor, floor, floor_seconds[k], decode_seconds[k], floor1 / floor, p.held, 100 * f, p.read, p.wait,
            bound(16), bound(64), bound(1024));
    }
    const std::string index = chunkwise::h5::chunk_index_type(ds);
    std::printf("chunk locations: %s%s\n", chunkwise::h5::describe(chunkwise::h5::chunk_locations(ds)).c_str(),
                index.empty() ? "" : (" (" + index + " index)").c_str());
    if (a.flag("json")) {
        std::string t, pass, pre, dec;
        for (std::size_t k = 0; k < threads.size(); ++k) {
            const char* sep = k ? ", " : "";
            t += sep + std::to_string(threads[k]);
            pass += sep + std::to_string(best[k].pass);
            pre += sep + std::to_string(floor_seconds[k]);
            dec += sep + std::to_string(decode_seconds[k]);
        }
        std::printf(
            "json {\"file\": \"%s\", \"layout\": \"%s\", \"chunks\": %zu, \"threads\": [%s], \"chunkwise\": [%s], "
            "\"pread_floor\": [%s], \"decode_floor\": [%s]}\n",
            file.filename().c_str(), text.c_str(), chunks, t.c_str(), pass.c_str(), pre.c_str(), dec.c_str());
    }
    return 0;
}

}  // namespace bench_first_read
