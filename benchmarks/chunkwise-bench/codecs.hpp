#pragma once
// chunkwise-bench codecs: one compressed dataset read by chunkwise at each thread count, against
// the codec alone and HDF5 itself, in one run:
//
//   chunkwise-bench codecs --file FILE.h5 [--dataset PATH] [--threads 1,2] [--repeats 3] [--block-mib 4]
//                          [--json]
//
// Prints, in seconds (each reader once per round, R rounds after a warm-up round, the best round
// of each; page cache warm), with the CPU:
//   decode alone   every stored chunk (read into memory first) decoded by chunkwise's codec for the
//                  filter, at each thread count at once (the decode floor, decode_floor.hpp): the
//                  codec library's own decode (LZ4, Zstandard, Blosc, bzip2) or chunkwise's (LZF,
//                  bitshuffle) plus size checks; no I/O, no HDF5
//   pread floor    the stored bytes of the same blocks read with plain pread (floor.hpp), at each
//                  thread count; and the floor of the read, pread + decode, at each thread count
//   HDF5 C loop    H5Dread of each chunk's rows into one buffer, 1 thread (through the installed
//                  plugin; left out where none is installed)
//   chunkwise      map_blocks over h5::partition(ds, block_bytes{4 MiB}) read into reused buffers
//                  at each thread count: x of the floor at that count, x of decode alone at 1
//                  thread times the threads, and the speedup over 1 thread
#include "../common/cli.hpp"
#include "../common/io.hpp"
#include "decode_floor.hpp"
#include "floor.hpp"
#include "read.hpp"

#include <chunkwise/bench/machine.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

namespace bench_codecs {

inline int cmd_codecs(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"file", "dataset", "threads", "repeats", "block-mib"}, {"json"});
    const std::filesystem::path file = a.required("file");
    const std::string path = a.text("dataset", "/data");
    const auto threads = a.counts("threads", {1, 2}, 1);
    const std::size_t repeats = a.count("repeats", 3, 1), block = a.count("block-mib", 4, 1) << 20;
    if (!std::filesystem::is_regular_file(file)) throw std::invalid_argument("--file: no file " + file.string());
    if (std::find(threads.begin(), threads.end(), std::size_t{1}) == threads.end())
        throw std::invalid_argument("--threads: must include 1 (the speedups are against 1 thread)");

    // The filters' own decoders, chunk by chunk from memory (the dataset's pipeline, as reads run
    // it), and the pread floor of the blocks chunkwise reads, at each thread count.
    bench_floor::decode_floor decoders(file, path);
    const bench_floor::stored_chunks& raw = decoders.chunks();
    chunkwise::h5::dataset ds(file, path);
    const auto blocks = chunkwise::h5::partition(ds, chunkwise::h5::block_bytes{block});
    bench_floor::floor_reader preads(file, path, blocks);
    for (std::size_t n : threads) {
        decoders.prepare(n);
        preads.prepare(n);
    }
    const std::size_t stored = decoders.stored_bytes();
    const std::vector<std::size_t> shape = ds.shape(), chunk = ds.chunk_shape().value_or(shape);
    std::size_t row_elements = 1;
    for (std::size_t d = 1; d < shape.size(); ++d) row_elements *= shape[d];
    std::vector<std::unique_ptr<chunkwise::thread_policy>> pools;
    for (std::size_t n : threads) pools.push_back(std::make_unique<chunkwise::thread_policy>(n));
    const auto pass = [&](chunkwise::thread_policy& pool) { (void)bench_read::read_pass<float>(pool, ds, blocks); };
    const auto c_loop = [&] {
        chunkwise::h5::library_lock lock;
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
        const hid_t fs = H5Dget_space(d);
        std::vector<hsize_t> dims(shape.begin(), shape.end()), start(dims.size(), 0), count = dims;
        std::vector<float> buf(chunk[0] * row_elements);
        for (hsize_t r = 0; r < dims[0]; r += chunk[0]) {
            start[0] = r;
            count[0] = std::min<hsize_t>(chunk[0], dims[0] - r);
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
            const hid_t ms = H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr);
            const herr_t rc = H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf.data());
            H5Sclose(ms);
            if (rc < 0) throw std::runtime_error("H5Dread failed (no plugin for this filter?)");
        }
        H5Sclose(fs);
        H5Dclose(d);
        H5Fclose(f);
    };
    bool have_plugin = false;
    {
        chunkwise::h5::library_lock lock;
        for (const chunkwise::h5::filter_info& f : chunkwise::h5::known_filters()) {
            for (const std::string& name : ds.filters())
                have_plugin = have_plugin || (name == f.name && H5Zfilter_avail(f.id) > 0);
        }
    }
    bench_read::round_robin rounds;
    std::vector<std::size_t> i_cw, i_decode, i_pread;
    for (std::size_t k = 0; k < threads.size(); ++k) {
        i_decode.push_back(rounds.add([&, k] { decoders.pass(threads[k]); }));
        i_pread.push_back(rounds.add([&, k] { preads.pass(threads[k]); }));
        i_cw.push_back(rounds.add([&, k] { pass(*pools[k]); }));
    }
    const std::size_t i_c = have_plugin ? rounds.add(c_loop) : 0;
    rounds.run(repeats);
    const std::size_t k1 = static_cast<std::size_t>(std::find(threads.begin(), threads.end(), 1) - threads.begin());
    const double alone = rounds.best(i_decode[k1]);

    std::string filters;
    for (const std::string& f : ds.filters()) filters += (filters.empty() ? "" : " + ") + f;
    std::printf("# %s:%s: %s float32, chunks %s, %s; %.1f MiB stored of %.1f MiB; best of %zu, page cache warm\n",
                file.c_str(), path.c_str(), bench_io::shape_text(ds.shape()).c_str(),
                bench_io::shape_text(ds.chunk_shape().value_or(std::vector<std::size_t>{})).c_str(), filters.c_str(),
                static_cast<double>(stored) / (1 << 20),
                static_cast<double>(raw.chunk_bytes * raw.bytes.size()) / (1 << 20), repeats);
    std::printf("# CPU: %s\n", chunkwise::bench::machine_info::here().text().c_str());
    std::printf("decoded in the worker: %s\n", ds.decodes_in_worker<float>() ? "yes" : "no (H5Dread under the lock)");
    // The values chunkwise read, on the most threads, against the stored chunks decoded alone:
    // where chunks hold whole rows of little-endian float32, the dataset is its decoded chunks in
    // order. A wrong value fails the run (exit status 1).
    int status = 0;
    bool whole_rows = ds.type_name() == "32-bit float, little-endian";
    for (std::size_t d = 1; d < shape.size(); ++d) whole_rows = whole_rows && chunk[d] == shape[d];
    whole_rows = whole_rows && raw.bytes.size() == (shape[0] + chunk[0] - 1) / chunk[0];
    if (whole_rows) {
        const std::vector<float> got = bench_read::read_values<float>(*pools.back(), ds, blocks);
        std::vector<unsigned char> one(raw.chunk_bytes);
        const auto* bytes = reinterpret_cast<const unsigned char*>(got.data());
        const std::size_t total = got.size() * sizeof(float);
        bool same = true;
        for (std::size_t k = 0; k < raw.bytes.size() && same; ++k) {
            (void)chunkwise::h5::decode_chunk(ds, raw.bytes[k], raw.masks[k], one);
            const std::size_t at = k * raw.chunk_bytes, n = std::min(raw.chunk_bytes, total - at);
            same = std::memcmp(bytes + at, one.data(), n) == 0;
        }
        std::printf("same values as its chunks decoded alone (%zu threads): %s\n", threads.back(),
                    same ? "yes, bit for bit" : "NO");
        if (!same) status = 1;
    }
    char label[64];
    std::vector<double> floor_seconds;
    for (std::size_t k = 0; k < threads.size(); ++k) {
        const char* s = threads[k] == 1 ? "" : "s";
        const double d = rounds.best(i_decode[k]), p = rounds.best(i_pread[k]);
        floor_seconds.push_back(d + p);
        std::snprintf(label, sizeof label, "decode alone, %zu thread%s", threads[k], s);
        std::printf("%-40s %9.4f s  (%.2fx of 1 thread; codec, from memory)\n", label, d, alone / d);
        std::snprintf(label, sizeof label, "pread floor, %zu thread%s", threads[k], s);
        std::printf("%-40s %9.4f s  (the stored bytes of the same blocks)\n", label, p);
        std::snprintf(label, sizeof label, "floor, %zu thread%s (pread + decode)", threads[k], s);
        std::printf("%-40s %9.4f s\n", label, d + p);
    }
    if (have_plugin)
        std::printf("%-40s %9.4f s  (H5Dread of each chunk's rows)\n", "HDF5 C loop, 1 thread", rounds.best(i_c));
    for (std::size_t k = 0; k < threads.size(); ++k) {
        std::snprintf(label, sizeof label, "chunkwise, %zu thread%s", threads[k], threads[k] == 1 ? "" : "s");
        const double t = rounds.best(i_cw[k]);
        std::printf("%-40s %9.4f s  (%.2fx of the floor; %.2fx of decode alone; %.2fx of 1 thread)\n", label, t,
                    t / floor_seconds[k], t * static_cast<double>(threads[k]) / alone, rounds.best(i_cw[k1]) / t);
    }
    if (a.flag("json")) {
        std::string j =
            "json {\"file\": \"" + file.filename().string() + "\", \"filters\": \"" + filters + "\", \"threads\": [";
        std::string cw, dec, pre;
        for (std::size_t k = 0; k < threads.size(); ++k) {
            const char* sep = k ? ", " : "";
            j += sep + std::to_string(threads[k]);
            cw += sep + std::to_string(rounds.best(i_cw[k]));
            dec += sep + std::to_string(rounds.best(i_decode[k]));
            pre += sep + std::to_string(rounds.best(i_pread[k]));
        }
        j += "], \"chunkwise\": [" + cw + "], \"decode_floor\": [" + dec + "], \"pread_floor\": [" + pre + "]";
        j += ", \"stored_mib\": " + std::to_string(static_cast<double>(stored) / (1 << 20));
        j += std::string(", \"same_values\": ") + (!whole_rows ? "null" : status == 0 ? "true" : "false") + "}";
        std::printf("%s\n", j.c_str());
    }
    return status;
}

}  // namespace bench_codecs
