// 11: the "HDF5 in, Zarr out" job across MPI ranks. Every rank reads its own chunk-aligned blocks
// of one HDF5 trajectory, computes per frame the centre of geometry and the radius of gyration,
// and streams the results, and the positions rechunked per frame, into Zarr stores as each block
// is done (zarr::stream_writer): every rank writes its own chunk (or shard) files, with no lock
// and no MPI-IO, the ranks complete the chunk rows they share at close(), and rank 0 writes the
// metadata. Then every rank reads the stores back in parallel (zarr::array) and rank 0 checks every
// value against a serial pass over the HDF5 file.
//
//   mpiexec -n 4 11-hdf5-to-zarr [--file TRAJ.h5] [--out DIR] [--threads N]
//                                [--frames N --atoms N]   (used only to generate TRAJ.h5 when missing)
//
// Writes DIR/per-frame.zarr (Zarr v2, frames x 4: centre x, y, z and radius of gyration; Zstandard)
// and DIR/positions.zarr (Zarr v3, frames x atoms x 3 float32; Blosc-LZ4 with shuffle, sharded).
#include "trajectory.hpp"
#include "trajectory_h5.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/mpi.hpp>
#include <chunkwise/zarr.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;
const std::string positions = "/particles/all/position/value";

// Per frame: centre of geometry (x, y, z) and radius of gyration, from `atoms` xyz triples.
void per_frame(const float* xyz, std::size_t atoms, double* out) {
    double c[3] = {0, 0, 0};
    for (std::size_t a = 0; a < atoms; ++a)
        for (int k = 0; k < 3; ++k) c[k] += xyz[3 * a + static_cast<std::size_t>(k)];
    for (double& v : c) v /= static_cast<double>(atoms);
    double r2 = 0;
    for (std::size_t a = 0; a < atoms; ++a)
        for (int k = 0; k < 3; ++k) {
            const double d = xyz[3 * a + static_cast<std::size_t>(k)] - c[k];
            r2 += d * d;
        }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = std::sqrt(r2 / static_cast<double>(atoms));
}

template <class Policy>
int run(Policy& policy, const std::string& file, const std::string& out) {
    const auto t0 = std::chrono::steady_clock::now();
    const h5::dataset ds(file, positions);
    const std::size_t frames = ds.shape()[0], atoms = ds.shape()[1];
    const std::string results_store = out + "/per-frame.zarr", positions_store = out + "/positions.zarr";

    // The positions go to Zarr v3 with shards of 20 frames: blocks aligned to the shards, so no
    // rank sends rows to another.
    zarr::write_options pos_opt;
    pos_opt.chunk = {5, std::min<std::size_t>(atoms, 4096), 3};
    pos_opt.shard = {20, pos_opt.chunk[1], 3};
    pos_opt.codec = "blosc";
    pos_opt.shuffle = true;
    pos_opt.format = 3;
    pos_opt.mode = chunkwise::write_mode::replace;  // a rerun of the example replaces its stores
    const auto blocks = zarr::partition(frames, pos_opt, chunkwise::parts{4 * policy.workers()});

    zarr::write_options res_opt;
    res_opt.chunk = {100, 4};  // not aligned to the blocks: ranks complete the shared chunk rows at close()
    res_opt.codec = "zstd";
    res_opt.mode = chunkwise::write_mode::replace;
    // Both stores stream: each block's positions and results are written by the worker that read the
    // block, the moment it has them; no rank holds more than the blocks its workers are on.
    zarr::stream_writer<double> res_out(policy, results_store, {frames, 4}, res_opt);
    zarr::stream_writer<float> pos_out(policy, positions_store, {frames, atoms, 3}, pos_opt);
    (void)chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        const auto x = ds.read<float, 3>(b);
        xt::xtensor<double, 2> r = xt::xtensor<double, 2>::from_shape({b.size(), 4});
        for (std::size_t f = 0; f < b.size(); ++f) per_frame(x.data() + f * atoms * 3, atoms, r.data() + 4 * f);
        pos_out.write(b, x);
        res_out.write(b, r);
        return b.size();
    });
    const double computed = example::seconds_since(t0);
    res_out.close();  // collective: the last chunk rows, then the metadata
    pos_out.close();
    const double written = example::seconds_since(t0);

    // Every rank reads the results back in parallel; rank 0 checks them against a serial pass.
    const zarr::array res(results_store);
    const zarr::array pos(positions_store);
    auto sums = chunkwise::map_blocks(
        policy, zarr::partition(pos, chunkwise::parts{4 * policy.workers()}), [&](const chunkwise::block& b) {
            const auto p = pos.read<float, 3>(b);
            const auto h = ds.read<float, 3>(b);
            return std::memcmp(p.data(), h.data(), p.size() * sizeof(float)) == 0 ? 0.0 : 1.0;
        });
    const double differing_blocks = chunkwise::reduce(policy, std::move(sums), std::plus<>());
    std::vector<std::string> hosts;  // the hosts the ranks ran on
    boost::mpi::gather(boost::mpi::communicator(), boost::mpi::environment::processor_name(), hosts, 0);
    if (!policy.is_root()) return 0;
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    const auto got = res.read<double, 2>(chunkwise::items(0, frames));
    std::size_t wrong = 0;
    double serial[4];
    for (std::size_t f = 0; f < frames; ++f) {
        const auto x = ds.read<float, 3>(chunkwise::items(f, f + 1));
        per_frame(x.data(), atoms, serial);
        wrong += std::memcmp(serial, got.data() + 4 * f, sizeof serial) != 0 ? 1 : 0;
    }
    std::printf("%s: %zu frames x %zu atoms, %zu blocks on %d ranks x %zu workers, on %zu host(s)\n", file.c_str(),
                frames, atoms, blocks.size(), policy.size(), policy.workers() / static_cast<std::size_t>(policy.size()),
                hosts.size());
    std::printf("wrote %s (Zarr v2, %zu x 4, zstd; rg[%zu] = %.6f) and %s (Zarr v3, sharded, blosc)\n",
                results_store.c_str(), frames, frames - 1, got(frames - 1, 3), positions_store.c_str());
    std::printf("read, computed and streamed in %.3f s, closed in %.3f s more\n", computed, written - computed);
    std::printf(
        "per-frame values equal to a serial pass: %s (%zu of %zu frames differ); positions read back equal "
        "to the HDF5 file: %s\n",
        wrong == 0 ? "yes" : "NO", wrong, frames, differing_blocks == 0 ? "yes" : "NO");
    return wrong == 0 && differing_blocks == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    chunkwise::mpi_policy mpi;
    const std::string file = example::text_arg(argc, argv, "--file", "chunkwise-example-11.h5");
    const std::string out = example::text_arg(argc, argv, "--out", "chunkwise-example-11");
    const std::size_t threads = example::arg(argc, argv, "--threads", 1);
    try {
        int problem = 0;
        if (mpi.is_root() && !std::filesystem::exists(file)) {
            const std::size_t frames = example::arg(argc, argv, "--frames", 2000);
            const std::size_t atoms = example::arg(argc, argv, "--atoms", 5000);
            if (frames == 0 || atoms == 0) {
                std::fprintf(stderr, "11-hdf5-to-zarr: --frames and --atoms must be positive\n");
                problem = 2;
            } else
                try {
                    example::write_trajectory_h5(file, positions, frames, atoms, 10, atoms);
                    std::printf("generated %s (%zu frames x %zu atoms)\n", file.c_str(), frames, atoms);
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "11-hdf5-to-zarr: generating %s failed: %s\n", file.c_str(), e.what());
                    problem = 1;
                }
        }
        boost::mpi::broadcast(mpi.communicator(), problem, 0);
        if (problem != 0) return problem;
        if (threads > 1) {
            chunkwise::hybrid_policy hybrid({}, threads);
            return run(hybrid, file, out);
        }
        return run(mpi, file, out);
    } catch (const std::exception& e) {
        // zarr::error, h5::error, block_error: every rank throws (the writes agree first).
        std::fprintf(stderr, "11-hdf5-to-zarr (rank %d): %s\n", mpi.rank(), e.what());
        return 1;
    }
}
