// docs/scaling.md: a user's own workload measured across MPI ranks with the library alone, one
// launch: mpiexec -n 2 ./mpi_scaling. strong_scaling takes a policy factory; under MPI it is
// called with each thread count per rank, and the report (complete on rank 0) has the critical
// path of the slowest rank, every rank's phases and the straggler.
#include <chunkwise/bench/scaling.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/environment.hpp>

#include <cmath>
#include <cstdio>
#include <functional>

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    boost::mpi::communicator world;
    const auto blocks = chunkwise::partition(4'000'000, chunkwise::parts{64});
    auto analysis = [](const chunkwise::block& b) {  // your per-block work
        double s = 0;
        for (std::size_t i = b.begin; i < b.end; ++i) s += std::sin(static_cast<double>(i));
        return s;
    };

    chunkwise::bench::scaling_options opt;
    opt.workload = "sum of sines";
    opt.workers = {1, 2};  // threads per rank
    opt.repeats = 2;
    opt.precision = 0;  // exactly 2 repeats (default: until each mean is known within ±3%)
    auto report = chunkwise::bench::strong_scaling(
        opt, [&](std::size_t threads) { return chunkwise::hybrid_policy(world, threads); },
        [&](chunkwise::hybrid_policy& policy) {
            auto partial = chunkwise::map_blocks(policy, blocks, analysis);
            (void)chunkwise::reduce(policy, std::move(partial), std::plus<>{});
            return partial.stats();
        });

    if (world.rank() == 0) {
        std::fprintf(stderr, "%s", report.table().c_str());  // the table (timings vary)
        std::printf("mode %s, %zu points:", report.mode.c_str(), report.points.size());
        for (const auto& p : report.points)
            std::printf(" %zu ranks x %zu threads (%zu per-rank rows)", p.ranks, p.threads, p.per_rank.size());
        std::printf("\n");
    }
}
