#pragma once
// chunkwise-bench select: RMSD per frame of a selection of atoms (the H5MD study's 564
// C-alpha atoms of 111,815: here every --stride-th atom from the first, --select of them), read
// two ways over the same chunk-aligned blocks of --block-mib MiB of whole frames (docs/hdf5.md
// "Selected indices"; docs/performance.md):
//   whole frames  ds.read(block, read_buffer), then the selection picked out (what a user did
//                 before h5::indices: every chunk of every frame decoded)
//   indices       ds.read_into(block, h5::indices{1, selection}, buffer): only the chunks holding
//                 a selected atom are read and decoded
// Prints seconds (best of R after one warm-up) per thread count, the ratio, and the chunks per
// frame each way; the two RMSD series must be equal to the bit.
//
//   chunkwise-bench select --file FILE.h5 [--dataset PATH] [--select 564] [--stride 16]
//                          [--threads 1,2] [--repeats 3] [--block-mib 4]
#include "../common/cli.hpp"
#include "h5md.hpp"
#include "qcp.hpp"
#include "read.hpp"
#include "rmsd_workload.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_select {

inline int cmd_select(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"file", "dataset", "select", "stride", "threads", "repeats", "block-mib"}, {});
    const std::filesystem::path file = a.required("file");
    const std::string path = a.text("dataset", bench_h5md::positions_path);
    const auto threads = a.counts("threads", {1, 2}, 1);
    const std::size_t repeats = a.count("repeats", 3, 1), count = a.count("select", 564, 1),
                      stride = a.count("stride", 16, 1), block = a.count("block-mib", 4, 1) << 20;
    if (!std::filesystem::is_regular_file(file)) throw std::invalid_argument("--file: no file " + file.string());
    const chunkwise::h5::dataset ds(file, path);
    const auto shape = ds.shape();
    if (ds.rank() != 3 || shape[2] != 3 || shape[0] == 0) {
        throw std::invalid_argument(file.string() + ":" + path + " is not (frames, atoms, 3)");
    }
    const std::size_t atoms = shape[1];
    std::vector<std::size_t> selection;
    for (std::size_t k = 0; k < count && k * stride < atoms; ++k) selection.push_back(k * stride);
    std::vector<std::size_t> own(selection.size());  // the selection within what indices return
    std::iota(own.begin(), own.end(), std::size_t{0});
    const auto blocks = chunkwise::h5::partition(ds, chunkwise::h5::block_bytes{block});
    const auto first = ds.read<float, 3>(chunkwise::block{0, 0, 1});
    const bench_rmsd::reference ref = bench_rmsd::make_reference(first.data(), selection);

    auto whole_frames = [&](const chunkwise::block& b) {
        thread_local chunkwise::h5::read_buffer<float> buffer;
        thread_local std::vector<double> x;
        const auto frames = ds.read<float, 3>(b, buffer);
        std::vector<double> out(b.size());
        bench_rmsd::frames_rmsd(frames.data(), b.size(), atoms, selection, ref, x, out.data());
        return out;
    };
    auto indexed = [&](const chunkwise::block& b) {
        thread_local std::vector<float> buffer;
        thread_local std::vector<double> x;
        buffer.resize(b.size() * selection.size() * 3);
        ds.read_into(b, chunkwise::h5::indices{1, selection}, std::span<float>(buffer));
        std::vector<double> out(b.size());
        bench_rmsd::frames_rmsd(buffer.data(), b.size(), selection.size(), own, ref, x, out.data());
        return out;
    };

    // Chunks per frame each way (along the atom axis; one chunk row of frames).
    std::size_t per_frame_all = 1, per_frame_sel = 1;
    if (const auto chunk = ds.chunk_shape()) {
        const std::size_t across = (atoms + (*chunk)[1] - 1) / (*chunk)[1], along = (3 + (*chunk)[2] - 1) / (*chunk)[2];
        std::vector<bool> hit(across, false);
        for (std::size_t s : selection) hit[s / (*chunk)[1]] = true;
        per_frame_all = across * along;
        per_frame_sel = static_cast<std::size_t>(std::count(hit.begin(), hit.end(), true)) * along;
    }
    std::printf("%s: %zu frames x %zu atoms; %zu selected atoms (every %zu-th from atom 0); %zu blocks of ~%zu MiB\n",
                file.c_str(), shape[0], atoms, selection.size(), stride, blocks.size(), block >> 20);
    std::printf("chunks holding the selection: %zu of %zu per chunk row of frames\n", per_frame_sel, per_frame_all);
    std::printf("%8s %14s %12s %8s\n", "threads", "whole frames", "indices", "ratio");
    bool same = true;
    for (std::size_t n : threads) {
        chunkwise::thread_policy pool(n);
        std::vector<std::vector<double>> a_values, b_values;
        const double a_s = bench_read::best_of(
            repeats, [&] { a_values = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, whole_frames)); });
        const double b_s = bench_read::best_of(
            repeats, [&] { b_values = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, indexed)); });
        same = same && a_values == b_values;
        std::printf("%8zu %12.3f s %10.3f s %7.2fx\n", n, a_s, b_s, a_s / b_s);
    }
    std::printf("RMSD equal to the bit both ways: %s\n", same ? "yes" : "NO");
    return same ? 0 : 1;
}

}  // namespace bench_select
