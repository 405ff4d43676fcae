// 02: the MDAnalysis pattern in a few lines: split the frames of a trajectory into blocks,
// compute the RMSD of every frame to the first (after centering, no rotation fit), gather the
// per-frame values, on one core and on a thread pool, and compare bits and time.
//
//   02-trajectory-rmsd [--frames N] [--atoms N] [--blocks N] [--threads N]
//
// The trajectory is generated in memory (reading it from HDF5 is the chunkwise::h5 layer's job).
#include "reading.hpp"
#include "trajectory.hpp"

#include <chunkwise/chunkwise.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using example::arg;
using example::make_trajectory;
using example::rmsd;
using example::trajectory;

struct outcome {
    std::vector<double> per_frame;
    double mean = 0;
    double seconds = 0;
    chunkwise::run_stats stats;
};

template <class Policy>
outcome run(Policy& policy, const trajectory& t, const std::vector<chunkwise::block>& blocks) {
    const auto t0 = std::chrono::steady_clock::now();
    auto partial = chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        std::vector<double> out;
        out.reserve(b.size());
        for (std::size_t f = b.begin; f < b.end; ++f) out.push_back(rmsd(t.frame(f), t.frame(0), t.atoms));
        return out;
    });
    auto sums = chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        double s = 0;
        for (std::size_t f = b.begin; f < b.end; ++f) s += rmsd(t.frame(f), t.frame(0), t.atoms);
        return s;
    });
    outcome o;
    const auto per_block = chunkwise::gather(policy, std::move(partial));
    for (const auto& v : per_block) o.per_frame.insert(o.per_frame.end(), v.begin(), v.end());
    o.mean = chunkwise::reduce(policy, std::move(sums), std::plus<>{}) / static_cast<double>(t.frames);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    o.stats = partial.stats();
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t frames = arg(argc, argv, "--frames", 9010);
    const std::size_t atoms = arg(argc, argv, "--atoms", 1000);
    const std::size_t n_blocks = arg(argc, argv, "--blocks", 64);
    const std::size_t threads = arg(argc, argv, "--threads", chunkwise::thread_policy::default_workers());
    if (frames == 0 || atoms == 0 || n_blocks == 0 || threads == 0) {
        std::fprintf(stderr, "02-trajectory-rmsd: --frames, --atoms, --blocks and --threads must be positive\n");
        return 2;
    }

    const trajectory t = make_trajectory(frames, atoms);
    const auto blocks = chunkwise::partition(frames, chunkwise::parts{n_blocks});
    std::printf("trajectory: %zu frames x %zu atoms (%.1f MiB), %zu blocks\n", frames, atoms,
                static_cast<double>(t.xyz.size() * sizeof(float)) / (1 << 20), blocks.size());

    chunkwise::serial_policy serial;
    chunkwise::thread_policy pool(threads);
    const outcome s = run(serial, t, blocks);
    const example::cpu_clock before = example::cpu_clock::now();
    const outcome p = run(pool, t, blocks);
    const example::cpu_clock after = example::cpu_clock::now();

    std::printf("rmsd[0..3]: %.6f %.6f %.6f %.6f   mean %.12f\n", s.per_frame[0],
                s.per_frame[std::min<std::size_t>(1, frames - 1)], s.per_frame[std::min<std::size_t>(2, frames - 1)],
                s.per_frame[std::min<std::size_t>(3, frames - 1)], s.mean);
    const bool same = s.per_frame == p.per_frame && std::memcmp(&s.mean, &p.mean, sizeof(double)) == 0;
    std::printf("serial      %8.3f s\n", s.seconds);
    std::printf("threads(%zu) %8.3f s   speedup %.2fx   results identical to the bit: %s\n", threads, p.seconds,
                s.seconds / p.seconds, same ? "yes" : "NO");
    for (std::size_t w = 0; w < p.stats.workers.size(); ++w) {
        const auto& ws = p.stats.workers[w];
        std::printf("  worker %zu: %4zu blocks, busy %.3f s, wait %.3f s\n", w, ws.blocks, ws.busy, ws.wait);
    }
    const double machine = before.machine >= 0 && after.machine >= 0 ? after.machine - before.machine : -1;
    std::printf("%s\n", example::read_speedup(s.seconds / p.seconds, threads, example::usable_cores(), p.seconds,
                                              after.own - before.own, machine)
                            .c_str());
    return same ? 0 : 1;
}
