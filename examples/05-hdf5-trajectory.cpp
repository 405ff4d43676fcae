// 05: the H5MD study end to end on a generated file. A trajectory (frames x atoms x 3 float32) is
// written with h5py's automatic chunk shape; RMSD per frame is computed reading frame by frame
// (as MDAnalysis does) and reading whole chunk-aligned blocks; the file is rechunked to
// (1, atoms, 3) in parallel and read frame by frame again. All results must agree to the bit.
//
//   05-hdf5-trajectory [--frames N] [--atoms N] [--threads N] [--dir DIR] [--keep]
//
// --keep leaves the two files in DIR (chunkwise-example-auto.h5, chunkwise-example-rows.h5).
#include "rechunk.hpp"
#include "trajectory.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

// h5py's guess_chunk (h5py/_hl/filters.py): halve axes in turn until a chunk is near a target
// size that grows with the dataset (16 KiB base, 8 KiB to 1 MiB).
std::vector<std::size_t> h5py_auto_chunk(std::vector<std::size_t> shape, std::size_t type_size) {
    std::vector<double> chunks(shape.begin(), shape.end());
    double total = type_size;
    for (double c : chunks) total *= c;
    double target = 16.0 * 1024 * std::pow(2.0, std::log10(total / (1024.0 * 1024)));
    target = std::clamp(target, 8.0 * 1024, 1024.0 * 1024);
    for (std::size_t idx = 0;; ++idx) {
        double bytes = type_size;
        for (double c : chunks) bytes *= c;
        if ((bytes < target || std::abs(bytes - target) / target < 0.5) && bytes < 1024.0 * 1024) break;
        double elems = 1;
        for (double c : chunks) elems *= c;
        if (elems == 1) break;
        chunks[idx % chunks.size()] = std::ceil(chunks[idx % chunks.size()] / 2.0);
    }
    return {chunks.begin(), chunks.end()};
}


// RMSD of every frame to `ref`, reading `ds` one frame at a time or one block at a time.
std::vector<double> rmsd_all(chunkwise::thread_policy& pool, const chunkwise::h5::dataset& ds,
                             const std::vector<float>& ref, bool frame_by_frame, chunkwise::run_stats& stats) {
    const std::size_t atoms = ds.shape()[1];
    const auto blocks = chunkwise::h5::partition(ds, chunkwise::parts{pool.workers() * 8});
    auto partial = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
        std::vector<double> out;
        std::vector<float> buf;
        if (frame_by_frame) {
            buf.resize(atoms * 3);
            for (std::size_t f = b.begin; f < b.end; ++f) {
                ds.read_into(chunkwise::block{0, f, f + 1}, std::span<float>(buf));
                out.push_back(example::rmsd(buf.data(), ref.data(), atoms));
            }
        } else {
            buf.resize(b.size() * atoms * 3);
            ds.read_into(b, std::span<float>(buf));
            for (std::size_t f = 0; f < b.size(); ++f)
                out.push_back(example::rmsd(buf.data() + f * atoms * 3, ref.data(), atoms));
        }
        return out;
    });
    stats = partial.stats();
    std::vector<double> all;
    for (auto& v : chunkwise::gather(pool, std::move(partial))) all.insert(all.end(), v.begin(), v.end());
    return all;
}

void print_layout(const chunkwise::h5::layout_report& r) {
    std::string c = "(";
    for (std::size_t d = 0; d < r.chunk.size(); ++d) c += (d ? ", " : "") + std::to_string(r.chunk[d]);
    std::printf("  layout: chunks %s) -> %zu chunks, %.1f KiB decoded per %.1f KiB frame (%.1fx)\n", c.c_str(),
                r.chunks_per_row, double(r.bytes_decoded_per_row) / 1024, double(r.row_bytes) / 1024, r.amplification);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t frames = example::arg(argc, argv, "--frames", 20000);
    const std::size_t atoms = example::arg(argc, argv, "--atoms", 1000);
    const std::size_t threads = example::arg(argc, argv, "--threads", chunkwise::thread_policy::default_workers());
    const std::string dir = example::text_arg(argc, argv, "--dir", std::filesystem::temp_directory_path().string());
    if (frames == 0 || atoms == 0 || threads == 0) {
        std::fprintf(stderr, "05-hdf5-trajectory: --frames, --atoms and --threads must be positive\n");
        return 2;
    }
    const std::string auto_file = dir + "/chunkwise-example-auto.h5", row_file = dir + "/chunkwise-example-rows.h5";
    std::filesystem::remove(auto_file);
    std::filesystem::remove(row_file);

    try {
        // 1. Write the trajectory the way h5py would chunk it by default.
        const example::trajectory t = example::make_trajectory(frames, atoms);
        xt::xtensor<float, 3> xyz = xt::xtensor<float, 3>::from_shape({frames, atoms, 3});
        std::copy(t.xyz.begin(), t.xyz.end(), xyz.data());
        chunkwise::h5::write_options opt;
        opt.chunk = h5py_auto_chunk({frames, atoms, 3}, sizeof(float));
        chunkwise::h5::write(auto_file, "/particles/all/position/value", xyz, opt);
        std::printf("wrote %s: %zu frames x %zu atoms x 3 float32 (%.1f MiB)\n", auto_file.c_str(), frames, atoms,
                    double(frames * atoms * 12) / (1 << 20));

        chunkwise::thread_policy pool(threads);
        chunkwise::run_stats stats;
        const std::vector<float> ref(t.frame(0), t.frame(0) + atoms * 3);
        std::vector<double> by_frame, by_block, after;
        double t_frame = 0, t_block = 0, t_after = 0, t_rechunk = 0;
        {
            const chunkwise::h5::dataset ds(auto_file, "/particles/all/position/value");
            std::printf("\nh5py's automatic chunks:\n");
            print_layout(chunkwise::h5::analyze_layout(ds));
            auto t0 = std::chrono::steady_clock::now();
            by_frame = rmsd_all(pool, ds, ref, true, stats);
            t_frame = example::seconds_since(t0);
            std::printf("  frame by frame:          %7.3f s  (read %.3f s of %.3f s busy)\n", t_frame,
                        stats.total(&chunkwise::worker_stats::read), stats.total(&chunkwise::worker_stats::busy));
            t0 = std::chrono::steady_clock::now();
            by_block = rmsd_all(pool, ds, ref, false, stats);
            t_block = example::seconds_since(t0);
            std::printf("  chunk-aligned blocks:    %7.3f s  (read %.3f s of %.3f s busy)\n", t_block,
                        stats.total(&chunkwise::worker_stats::read), stats.total(&chunkwise::worker_stats::busy));

            // 2. Rechunk to one frame per chunk, in parallel.
            t0 = std::chrono::steady_clock::now();
            example::rechunk_options ro;
            ro.threads = threads;
            (void)example::rechunk<float>(ds, row_file, "/particles/all/position/value", ro);
            t_rechunk = example::seconds_since(t0);
        }
        const chunkwise::h5::dataset rows(row_file, "/particles/all/position/value");
        std::printf("\nrechunked to (1, %zu, 3) in %.3f s:\n", atoms, t_rechunk);
        print_layout(chunkwise::h5::analyze_layout(rows));
        const auto t0 = std::chrono::steady_clock::now();
        after = rmsd_all(pool, rows, ref, true, stats);
        t_after = example::seconds_since(t0);
        std::printf("  frame by frame:          %7.3f s  (read %.3f s of %.3f s busy)\n", t_after,
                    stats.total(&chunkwise::worker_stats::read), stats.total(&chunkwise::worker_stats::busy));

        const bool same = by_frame == by_block && by_frame == after;
        std::printf(
            "\nframe-by-frame reads after rechunking: %.1fx faster; chunk-aligned blocks on the original: %.1fx\n",
            t_frame / t_after, t_frame / t_block);
        std::printf("rmsd[%zu] = %.6f; all three agree to the bit: %s (%zu threads)\n", frames - 1, by_frame.back(),
                    same ? "yes" : "NO", threads);
        if (!example::flag(argc, argv, "--keep")) {
            std::filesystem::remove(auto_file);
            std::filesystem::remove(row_file);
        }
        return same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "05-hdf5-trajectory: %s\n", e.what());
        return 1;
    }
}
