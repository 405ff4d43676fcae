#pragma once
// Shared by the MPI + HDF5 examples: the generated trajectory written to an HDF5 file, fast and
// saying how far it got. Its chunks are generated and compressed by all cores at once
// (h5::chunk_writer: each worker encodes its own chunks), a tenth of the frames at a time
// reported with the time so far.
#include "trajectory.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace example {

// Writes make_trajectory(frames, atoms) to file:path as float32 [frames, atoms, 3] in chunks of
// chunk_frames x chunk_atoms x 3, deflate 1 and shuffle. Throws what h5::chunk_writer throws.
inline void write_trajectory_h5(const std::string& file, const std::string& path, std::size_t frames, std::size_t atoms,
                                std::size_t chunk_frames, std::size_t chunk_atoms) {
    namespace h5 = chunkwise::h5;
    h5::write_options opt;
    opt.chunk = {std::min(frames, chunk_frames), std::min(atoms, chunk_atoms), 3};
    opt.deflate = 1;
    opt.shuffle = true;
    h5::chunk_writer<float> out(file, path, {frames, atoms, 3}, opt);
    const auto start = std::chrono::steady_clock::now();
    const double mb = static_cast<double>(frames * atoms * 3 * sizeof(float)) / 1e6;
    std::printf("generating %s: %zu frames x %zu atoms (%.0f MB), compressed on every core\n", file.c_str(), frames,
                atoms, mb);
    std::fflush(stdout);
    // Blocks of whole chunk rows; a tenth of the frames reported as it is passed.
    const std::size_t rows = opt.chunk[0];
    const std::size_t step = rows * std::max<std::size_t>(1, 64 / rows);
    std::vector<chunkwise::block> blocks;
    for (std::size_t first = 0; first < frames; first += step)
        blocks.push_back(chunkwise::block{blocks.size(), first, std::min(frames, first + step)});
    std::mutex progress;
    std::size_t done = 0, reported = 0;  // frames written; tenths reported
    chunkwise::thread_policy pool;
    chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
        std::vector<float> values((b.end - b.begin) * atoms * 3);
        for (std::size_t f = b.begin; f < b.end; ++f) make_frame(f, atoms, values.data() + (f - b.begin) * atoms * 3);
        out.write_rows(b.begin, values);
        const std::lock_guard<std::mutex> lock(progress);
        done += b.end - b.begin;
        if (done * 10 / frames > reported) {
            reported = done * 10 / frames;
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::printf("  %3zu%% of the frames written (%.1f s)\n", reported * 10, s);
            std::fflush(stdout);
        }
        return 0;
    });
    out.close();
}

}  // namespace example
