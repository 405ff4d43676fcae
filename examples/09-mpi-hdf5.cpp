// 09: a complete MPI + HDF5 program, the MDAnalysis H5MD study's pattern end to end: every rank
// opens the same HDF5 trajectory itself, reads its own chunk-aligned blocks (only the selected
// atoms), computes the RMSD per frame to frame 0, and the per-frame values are written into one
// dataset of a results file by h5::write_blocks; rank 0 prints where the time went. Then the
// study's decisive step: the trajectory rewritten with one frame per chunk, shuffled and deflated,
// by every rank at once (example::rechunk through a collective h5::stream_writer), into
// RESULTS-frames.h5. On a cluster run it with examples/slurm/09-mpi-hdf5.sbatch.
//
//   mpiexec -n 4 09-mpi-hdf5 [--file TRAJ.h5] [--out RESULTS.h5] [--threads N]
//                            [--frames N --atoms N]   (used only to generate TRAJ.h5 when missing)
//
// --threads > 1 runs hybrid_policy (threads inside each rank); the default is mpi_policy.
#include "rechunk.hpp"
#include "trajectory.hpp"
#include "trajectory_h5.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace h5 = chunkwise::h5;
const std::string positions = "/particles/all/position/value";

// The analysis, the same under any policy.
template <class Policy>
int analyse(Policy& policy, const std::string& file, const std::string& out) {
    const auto t0 = std::chrono::steady_clock::now();
    const h5::dataset ds(file, positions);  // every rank opens the file itself, read-only
    const std::size_t frames = ds.shape()[0], atoms = ds.shape()[1];
    std::vector<std::size_t> selection;  // every 16th atom of the first half (the protein's C-alpha atoms, say)
    for (std::size_t a = 0; a < std::max<std::size_t>(atoms / 2, 1); a += 16) selection.push_back(a);
    const h5::indices sel{1, selection};
    const auto ref = ds.read<float, 3>(chunkwise::items(0, 1), sel);
    // Blocks of about 8 MiB (docs/hdf5.md), but at least 4 per worker so that every worker has some.
    auto blocks = h5::partition(ds, h5::default_block_bytes);
    if (blocks.size() < 4 * policy.workers()) blocks = h5::partition(ds, chunkwise::parts{4 * policy.workers()});

    auto partial = chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        const auto x = ds.read<float, 3>(b, sel);
        std::vector<double> rmsd(b.size());
        for (std::size_t f = 0; f < b.size(); ++f)
            rmsd[f] = example::rmsd(x.data() + f * selection.size() * 3, ref.data(), selection.size());
        return rmsd;
    });
    const chunkwise::run_stats stats = partial.stats();
    std::error_code ec;
    if (policy.is_root()) std::filesystem::remove(out, ec);
    h5::write_blocks(policy, out, "/rmsd", std::move(partial));  // collective: every rank returns once written
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const auto all = chunkwise::gather_stats(policy, stats);
    if (!policy.is_root()) return 0;
    const chunkwise::run_summary s = chunkwise::summarize(all);
    const auto rmsd = h5::dataset(out, "/rmsd").read<double, 1>(chunkwise::items(0, frames));
    std::printf("%s: %zu frames x %zu atoms, RMSD of %zu atoms per frame, %zu blocks on %zu ranks x %zu workers\n",
                file.c_str(), frames, atoms, selection.size(), blocks.size(), s.ranks, s.workers / s.ranks);
    std::printf("wrote %s:/rmsd (%zu values; rmsd[%zu] = %.6f) in %.3f s\n", out.c_str(), rmsd.size(), frames - 1,
                rmsd(frames - 1), seconds);
    std::printf(
        "time over all workers: read %.3f s, compute %.3f s, wait %.3f s, combine %.3f s; imbalance %.2f "
        "(slowest: rank %d)\n",
        s.total_read, s.total_compute, s.total_wait, s.total_combine, s.imbalance, s.slowest_rank);
    return rmsd.size() == frames ? 0 : 1;
}

// The trajectory rewritten with one frame per chunk (deflate 1 + shuffle) by every rank's workers.
template <class Policy>
int rechunk_frames(Policy& policy, const std::string& file, const std::string& out) {
    const h5::dataset ds(file, positions);
    std::error_code ec;
    if (policy.is_root()) std::filesystem::remove(out, ec);
    chunkwise::synchronize(policy);
    example::rechunk_options options;  // chunks of one frame
    options.deflate = 1;
    options.shuffle = true;
    const auto t0 = std::chrono::steady_clock::now();
    const example::rechunk_result r = example::rechunk<float>(policy, ds, out, positions, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!policy.is_root()) return 0;
    const h5::dataset done(out, positions);
    const auto first = ds.read<float, 3>(chunkwise::items(0, 1)), again = done.read<float, 3>(chunkwise::items(0, 1));
    const bool same = first == again && done.shape() == ds.shape();
    std::printf(
        "rechunked %s to one frame per chunk (%zu chunks, deflate 1 + shuffle) in %.3f s, every rank "
        "encoding its own frames: %.1f MiB -> %.1f MiB; frame 0 %s\n",
        out.c_str(), r.chunks, seconds, double(r.bytes_in) / (1 << 20),
        double(std::filesystem::file_size(out)) / (1 << 20), same ? "reads back the same" : "DIFFERS");
    return same ? 0 : 1;
}

// RESULTS.h5 -> RESULTS-frames.h5
std::string frames_file(const std::string& out) {
    const std::filesystem::path p(out);
    return (p.parent_path() / (p.stem().string() + "-frames.h5")).string();
}

}  // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    chunkwise::mpi_policy mpi;
    const std::string file = example::text_arg(argc, argv, "--file", "chunkwise-example-09.h5");
    const std::string out = example::text_arg(argc, argv, "--out", "chunkwise-example-09-rmsd.h5");
    const std::size_t threads = example::arg(argc, argv, "--threads", 1);
    try {
        // Generate the trajectory once (rank 0) when it is missing; the others wait for it.
        int problem = 0;
        if (mpi.is_root() && !std::filesystem::exists(file)) {
            const std::size_t frames = example::arg(argc, argv, "--frames", 2000);
            const std::size_t atoms = example::arg(argc, argv, "--atoms", 5000);
            if (frames == 0 || atoms == 0) {
                std::fprintf(stderr, "09-mpi-hdf5: --frames and --atoms must be positive\n");
                problem = 2;
            } else
                try {
                    example::write_trajectory_h5(file, positions, frames, atoms, 10, 1024);
                    std::printf("generated %s (%zu frames x %zu atoms)\n", file.c_str(), frames, atoms);
                } catch (const std::exception& e) {  // told to every rank below, so none waits forever
                    std::fprintf(stderr, "09-mpi-hdf5: generating %s failed: %s\n", file.c_str(), e.what());
                    problem = 1;
                }
        }
        boost::mpi::broadcast(mpi.communicator(), problem, 0);
        if (problem != 0) return problem;
        if (threads > 1) {
            chunkwise::hybrid_policy hybrid({}, threads);
            const int rc = analyse(hybrid, file, out);
            return rc != 0 ? rc : rechunk_frames(hybrid, file, frames_file(out));
        }
        const int rc = analyse(mpi, file, out);
        return rc != 0 ? rc : rechunk_frames(mpi, file, frames_file(out));
    } catch (const std::exception& e) {
        // h5::error, block_error: every rank throws the same one (collectives agree first).
        std::fprintf(stderr, "09-mpi-hdf5 (rank %d): %s\n", mpi.rank(), e.what());
        return 1;
    }
}
