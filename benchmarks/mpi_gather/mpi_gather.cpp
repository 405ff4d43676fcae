// MPI benchmarks, run under mpiexec (own harness: Google Benchmark does not run under MPI).
//
//   mpiexec -n N bench_mpi_gather [--repeats R] [--max-doubles M]
//
// 1. gather of 1e3 .. M doubles in total, spread evenly over the ranks, to rank 0:
//    - handwritten: MPI_Gather of the counts, then MPI_Gatherv into one buffer (the baseline)
//    - chunkwise per-rank vector: one block per rank, R = std::vector<double>
//    - chunkwise per-value: one block per double, R = double (per-frame results)
// 2. map_blocks + gather of an empty workload (blocks return their index), mpi_policy and
//    hybrid_policy(2), 1000 blocks.
// The results to gather come from map_blocks (untimed), as in a real run. Each measurement:
// barrier, time on every rank, the maximum over ranks; a warm-up run, then the minimum and
// median of R repeats. Prints a table and one JSON line per row with metadata.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace {

struct timing {
    double min = 0, median = 0;
};

// Runs `prepare` (untimed) and `body` (timed) `repeats` times after one warm-up; max over ranks.
template <class Prepare, class Body>
timing measure(const boost::mpi::communicator& world, int repeats, Prepare prepare, Body body) {
    std::vector<double> t;
    for (int r = -1; r < repeats; ++r) {
        prepare();
        world.barrier();
        const auto t0 = std::chrono::steady_clock::now();
        body();
        const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double slowest = boost::mpi::all_reduce(world, mine, boost::mpi::maximum<double>());
        if (r >= 0) t.push_back(slowest);
    }
    std::sort(t.begin(), t.end());
    return {t.front(), t[t.size() / 2]};
}

int arg(int argc, char** argv, const char* name, int fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
    }
    return fallback;
}

void row(const boost::mpi::communicator& world, const char* what, const char* variant, std::size_t n, timing t,
         double baseline_median) {
    if (world.rank() != 0) return;
    const double ratio = baseline_median > 0 ? t.median / baseline_median : 1.0;
    std::printf("%-24s %-26s %10zu %12.1f %12.1f %8.2f\n", what, variant, n, t.min * 1e6, t.median * 1e6, ratio);
    std::fprintf(stderr,
                 "{\"benchmark\":\"%s\",\"variant\":\"%s\",\"n\":%zu,\"ranks\":%d,\"min_us\":%.3f,\"median_us\":%.3f,"
                 "\"ratio\":%.4f,\"compiler\":\"%s\",\"mpi\":\"%s\"}\n",
                 what, variant, n, world.size(), t.min * 1e6, t.median * 1e6, ratio, __VERSION__, [] {
                     static char v[MPI_MAX_LIBRARY_VERSION_STRING];
                     int len = 0;
                     MPI_Get_library_version(v, &len);
                     for (char* c = v; *c; ++c) {
                         if (*c == '\n' || *c == '"') *c = ' ';
                     }
                     return v;
                 }());
}

}  // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    boost::mpi::communicator world;
    const int repeats = arg(argc, argv, "--repeats", 15);
    const std::size_t max_doubles = static_cast<std::size_t>(arg(argc, argv, "--max-doubles", 10'000'000));
    const int size = world.size(), rank = world.rank();
    chunkwise::mpi_policy policy(world);

    if (rank == 0) {
        std::printf("ranks: %d, repeats: %d, times in microseconds (max over ranks), ratio = median / handwritten\n",
                    size, repeats);
        std::printf("%-24s %-26s %10s %12s %12s %8s\n", "benchmark", "variant", "n", "min_us", "median_us", "ratio");
    }
    for (std::size_t n = 1000; n <= max_doubles; n *= 10) {
        const auto ranks = chunkwise::partition(n, chunkwise::parts{static_cast<std::size_t>(size)});
        const std::size_t lo =
            static_cast<std::size_t>(rank) < ranks.size() ? ranks[static_cast<std::size_t>(rank)].begin : n;
        const std::size_t hi =
            static_cast<std::size_t>(rank) < ranks.size() ? ranks[static_cast<std::size_t>(rank)].end : n;
        std::vector<double> mine(hi - lo);
        std::iota(mine.begin(), mine.end(), static_cast<double>(lo));

        // Baseline: what a user writes by hand (as with mpi4py's Gatherv): counts, then Gatherv into
        // a new std::vector<double> on root, the same output chunkwise::gather gives.
        std::vector<double> flat;
        const timing hand = measure(
            world, repeats, [&] { flat = std::vector<double>(); },
            [&] {
                int count = static_cast<int>(mine.size());
                std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
                MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world);
                if (rank == 0) {
                    std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
                    flat.resize(n);
                }
                MPI_Gatherv(mine.data(), count, MPI_DOUBLE, flat.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                            world);
            });
        row(world, "gather", "handwritten MPI_Gatherv", n, hand, hand.median);
        // Lower bound: the same into a buffer allocated and touched before the timing.
        std::vector<double> reused(rank == 0 ? n : 0, 1.0);
        const timing lower = measure(
            world, repeats, [] {},
            [&] {
                int count = static_cast<int>(mine.size());
                std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
                MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world);
                if (rank == 0) std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
                MPI_Gatherv(mine.data(), count, MPI_DOUBLE, reused.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                            world);
            });
        row(world, "gather", "handwritten, reused buffer", n, lower, hand.median);

        // One block per rank, each a vector.
        const auto one_per_rank = chunkwise::partition(n, chunkwise::parts{static_cast<std::size_t>(size)});
        chunkwise::partial_results<std::vector<double>> per_rank;
        std::vector<std::vector<double>> got_vectors;
        const timing vec = measure(
            world, repeats,
            [&] {
                got_vectors = {};
                per_rank = chunkwise::map_blocks(policy, one_per_rank, [&](const chunkwise::block&) { return mine; });
            },
            [&] { got_vectors = chunkwise::gather(policy, std::move(per_rank)); });
        row(world, "gather", "chunkwise vector per rank", n, vec, hand.median);

        // One block per value.
        const auto per_value_blocks = chunkwise::partition(n, chunkwise::parts{n});
        chunkwise::partial_results<double> per_value;
        std::vector<double> got_values;
        const timing val = measure(
            world, repeats,
            [&] {
                got_values = {};
                per_value = chunkwise::map_blocks(
                    policy, per_value_blocks, [&](const chunkwise::block& b) { return static_cast<double>(b.begin); });
            },
            [&] { got_values = chunkwise::gather(policy, std::move(per_value)); });
        row(world, "gather", "chunkwise double per block", n, val, hand.median);
        if (rank == 0 && (got_values != flat || got_vectors.size() != one_per_rank.size() ||
                          got_vectors.back().back() != static_cast<double>(n - 1))) {
            std::fprintf(stderr, "bench_mpi_gather: gathered values differ from the baseline\n");
            return 1;
        }
    }

    // map_blocks + gather of an empty workload.
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{1000});
    chunkwise::hybrid_policy hybrid(world, 2);
    const timing t_mpi = measure(
        world, repeats, [] {},
        [&] {
            (void)chunkwise::gather(
                policy, chunkwise::map_blocks(policy, blocks, [](const chunkwise::block& b) { return b.index; }));
        });
    row(world, "map_blocks+gather empty", "mpi_policy", blocks.size(), t_mpi, 0);
    const timing t_hybrid = measure(
        world, repeats, [] {},
        [&] {
            (void)chunkwise::gather(
                hybrid, chunkwise::map_blocks(hybrid, blocks, [](const chunkwise::block& b) { return b.index; }));
        });
    row(world, "map_blocks+gather empty", "hybrid_policy(2 threads)", blocks.size(), t_hybrid, 0);
    return 0;
}
