// 03: the same RMSD analysis as 02 across MPI ranks, the MDAnalysis H5MD study's pattern: split
// the frames into one block per rank (or more), compute per block, gather per-frame values to
// rank 0. Runs mpi_policy, then hybrid_policy (threads inside each rank), and checks both against
// serial_policy on rank 0, to the bit.
//
//   mpiexec -n 2 03-mpi-rmsd [--frames N] [--atoms N] [--blocks N] [--threads N]
//
// Every rank generates the same trajectory (in a real run each rank reads its blocks from HDF5).
#include "reading.hpp"
#include "trajectory.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

struct outcome {
    std::vector<double> per_frame;  // complete on rank 0
    double seconds = 0;
    chunkwise::run_stats stats;
};

// Every timed phase starts after a barrier: no rank's clock starts while others are still busy
// with the previous phase.
template <class Policy>
outcome run(Policy& policy, const example::trajectory& t, const std::vector<chunkwise::block>& blocks) {
    boost::mpi::communicator().barrier();
    const auto t0 = std::chrono::steady_clock::now();
    auto partial = chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        std::vector<double> out;
        out.reserve(b.size());
        for (std::size_t f = b.begin; f < b.end; ++f) out.push_back(example::rmsd(t.frame(f), t.frame(0), t.atoms));
        return out;
    });
    outcome o;
    for (auto& v : chunkwise::gather(policy, std::move(partial))) {
        o.per_frame.insert(o.per_frame.end(), v.begin(), v.end());
    }
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    o.stats = partial.stats();
    return o;
}

/// How many CPUs the ranks may run on together.
std::size_t cores_of(const std::vector<std::vector<int>>& cpus) {
    std::vector<int> all;
    for (const auto& c : cpus) all.insert(all.end(), c.begin(), c.end());
    std::sort(all.begin(), all.end());
    return static_cast<std::size_t>(std::unique(all.begin(), all.end()) - all.begin());
}

}  // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    const std::size_t frames = example::arg(argc, argv, "--frames", 9010);
    const std::size_t atoms = example::arg(argc, argv, "--atoms", 1000);
    const std::size_t threads = example::arg(argc, argv, "--threads", 2);
    chunkwise::mpi_policy mpi;
    const std::size_t n_blocks = example::arg(argc, argv, "--blocks", static_cast<std::size_t>(mpi.size()));
    if (frames == 0 || atoms == 0 || n_blocks == 0 || threads == 0) {
        if (mpi.is_root()) std::fprintf(stderr, "03-mpi-rmsd: every option must be positive\n");
        return 2;
    }
    chunkwise::hybrid_policy hybrid({}, threads);

    const example::trajectory t = example::make_trajectory(frames, atoms);
    const auto blocks = chunkwise::partition(frames, chunkwise::parts{n_blocks});
    chunkwise::serial_policy serial;
    const outcome s = run(serial, t, blocks);
    mpi.communicator().barrier();
    const example::cpu_clock before = example::cpu_clock::now();
    const outcome m = run(mpi, t, blocks);
    const example::cpu_clock after = example::cpu_clock::now();
    const outcome h = run(hybrid, t, blocks);

    // Times: the slowest rank's.
    const double m_max = boost::mpi::all_reduce(mpi.communicator(), m.seconds, boost::mpi::maximum<double>());
    const double h_max = boost::mpi::all_reduce(mpi.communicator(), h.seconds, boost::mpi::maximum<double>());
    const double busy = m.stats.total(&chunkwise::worker_stats::busy);
    std::vector<double> busy_per_rank;
    boost::mpi::gather(mpi.communicator(), busy, busy_per_rank, 0);
    // The ranks' CPU time in the mpi_policy run; the machine's, where every rank shares rank 0's host.
    const double ranks_cpu = boost::mpi::all_reduce(mpi.communicator(), after.own - before.own, std::plus<double>());
    std::vector<std::string> hosts;
    boost::mpi::gather(mpi.communicator(), boost::mpi::environment::processor_name(), hosts, 0);
    std::vector<std::vector<int>> cpus;  // each rank's CPUs (mpiexec may bind each rank to one)
    boost::mpi::gather(mpi.communicator(), example::usable_cpus(), cpus, 0);
    if (!mpi.is_root()) return 0;

    const bool same = s.per_frame == m.per_frame && s.per_frame == h.per_frame;
    std::printf("trajectory: %zu frames x %zu atoms, %zu blocks over %d ranks\n", frames, atoms, blocks.size(),
                mpi.size());
    std::printf("rmsd[%zu] = %.6f\n", frames - 1, s.per_frame.back());
    std::printf("serial (rank 0 alone)   %8.3f s\n", s.seconds);
    std::printf("mpi_policy              %8.3f s   speedup %.2fx\n", m_max, s.seconds / m_max);
    std::printf("hybrid_policy(%zu thr.)   %8.3f s   speedup %.2fx\n", threads, h_max, s.seconds / h_max);
    for (std::size_t r = 0; r < busy_per_rank.size(); ++r) {
        std::printf("  rank %zu busy %.3f s of %.3f s\n", r, busy_per_rank[r], m_max);
    }
    const bool one_host =
        std::all_of(hosts.begin(), hosts.end(), [&](const std::string& name) { return name == hosts[0]; });
    const double machine = one_host && before.machine >= 0 && after.machine >= 0 ? after.machine - before.machine : -1;
    std::printf("%s\n", example::read_speedup(s.seconds / m_max, static_cast<std::size_t>(mpi.size()),
                                              one_host ? cores_of(cpus) : static_cast<std::size_t>(mpi.size()), m_max,
                                              ranks_cpu, machine)
                            .c_str());
    std::printf("gathered per-frame results identical to serial, to the bit: %s\n", same ? "yes" : "NO");
    return same ? 0 : 1;
}
