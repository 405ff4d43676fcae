// 10: combining results correctly, on an H5MD trajectory (chunkwise-bench generate writes one):
//   - RMSF per atom: the mean structure and the fluctuation about it in one pass, with the
//     element-wise variance of every atom's coordinates (acc::variance over (atoms, 3));
//   - a histogram of every atom's distance to its frame's centre of geometry (acc::histogram);
//   - a windowed mean squared displacement, MSD(lag) for lags 0..L, over blocks that overlap by L
//     frames (partition with a halo): each block takes time origins in its own frames and reads
//     L frames past them; per lag, a mean over origins and atoms (a user's mergeable type).
// Each is reduced over the fixed tree: the same bits on 1 or N threads. The results go to an HDF5
// file that benchmarks/tests/combine_vs_mdanalysis.py checks against MDAnalysis (rms.RMSF,
// msd.EinsteinMSD with fft=False, and numpy's histogram of the same distances).
//
//   10-combine --file TRAJ.h5 [--dataset PATH] [--out RESULTS.h5] [--bins 64] [--max-lag 20] [--threads N]
#include "trajectory.hpp"

#include <chunkwise/accumulate.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace acc = chunkwise::acc;
namespace h5 = chunkwise::h5;

namespace {

/// Per lag, the mean squared displacement over (time origin, atom) pairs: a user's own mergeable
/// statistic, built from acc::mean (one per lag).
struct msd_state {
    std::vector<acc::mean<double>> per_lag;
    void merge(const msd_state& o) {
        if (per_lag.size() < o.per_lag.size()) per_lag.resize(o.per_lag.size());
        for (std::size_t l = 0; l < o.per_lag.size(); ++l) per_lag[l].merge(o.per_lag[l]);
    }
};
static_assert(chunkwise::mergeable<msd_state>);

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    std::string file, dataset = "/particles/trajectory/position/value", out;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--file") == 0) file = argv[i + 1];
        if (std::strcmp(argv[i], "--dataset") == 0) dataset = argv[i + 1];
        if (std::strcmp(argv[i], "--out") == 0) out = argv[i + 1];
    }
    const std::size_t bins = example::arg(argc, argv, "--bins", 64);
    const std::size_t max_lag = example::arg(argc, argv, "--max-lag", 20);
    const std::size_t threads = example::arg(argc, argv, "--threads", chunkwise::thread_policy::default_workers());
    if (file.empty() || bins == 0 || threads == 0) {
        std::fprintf(stderr, "usage: 10-combine --file TRAJ.h5 [--dataset PATH] [--out RESULTS.h5] [--bins N] "
                             "[--max-lag L] [--threads N]\n");
        return 2;
    }
    const h5::dataset ds(file, dataset);
    const std::size_t frames = ds.shape()[0], atoms = ds.shape()[1];
    chunkwise::thread_policy pool(threads);
    const auto blocks = h5::partition(ds, h5::default_block_bytes);
    std::printf("%s:%s: %zu frames x %zu atoms, %zu blocks, %zu threads\n", file.c_str(), dataset.c_str(), frames,
                atoms, blocks.size(), threads);

    // RMSF: the variance of every coordinate over frames, element-wise, in one pass. Its state is
    // as large as a frame (three doubles per coordinate), so its blocks hold many frames: 128 MiB.
    const auto big_blocks = h5::partition(ds, h5::block_bytes{std::size_t{128} << 20});
    auto t0 = std::chrono::steady_clock::now();
    auto var = chunkwise::reduce(pool, chunkwise::map_blocks(pool, big_blocks, [&](const chunkwise::block& b) {
                                     thread_local h5::read_buffer<float> buffer;
                                     acc::variance<xt::xtensor<double, 2>> v;
                                     v.add_rows(ds.read<float, 3>(b, buffer));  // each frame one value
                                     return v;
                                 }));
    const auto fluct = var.var();
    std::vector<double> rmsf(atoms);
    for (std::size_t a = 0; a < atoms; ++a) rmsf[a] = std::sqrt(fluct(a, 0) + fluct(a, 1) + fluct(a, 2));
    const double t_rmsf = seconds_since(t0);

    // Distances of every atom to its frame's centre of geometry: one histogram over all frames.
    t0 = std::chrono::steady_clock::now();
    // The bins must be the same in every block: their range from frame 0 (half as far again).
    const double max_distance = [&] {
        const auto x = ds.read<float, 3>(chunkwise::items(0, 1));
        double c[3] = {0, 0, 0}, most = 0;
        for (std::size_t a = 0; a < atoms; ++a)
            for (std::size_t d = 0; d < 3; ++d) c[d] += x(0, a, d) / static_cast<double>(atoms);
        for (std::size_t a = 0; a < atoms; ++a) {
            double s = 0;
            for (std::size_t d = 0; d < 3; ++d) s += (x(0, a, d) - c[d]) * (x(0, a, d) - c[d]);
            most = std::max(most, std::sqrt(s));
        }
        return std::ceil(1.5 * most);
    }();
    auto hist = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                                      thread_local h5::read_buffer<float> buffer;
                                      const auto x = ds.read<float, 3>(b, buffer);
                                      acc::histogram h(0.0, max_distance, bins);
                                      for (std::size_t f = 0; f < b.size(); ++f) {
                                          double c[3] = {0, 0, 0};
                                          for (std::size_t a = 0; a < atoms; ++a)
                                              for (std::size_t d = 0; d < 3; ++d) c[d] += x(f, a, d);
                                          for (double& v : c) v /= static_cast<double>(atoms);
                                          for (std::size_t a = 0; a < atoms; ++a) {
                                              double s = 0;
                                              for (std::size_t d = 0; d < 3; ++d) s += (x(f, a, d) - c[d]) * (x(f, a, d) - c[d]);
                                              h.add(std::sqrt(s));
                                          }
                                      }
                                      return h;
                                  }));
    const double t_hist = seconds_since(t0);

    // Windowed MSD: blocks that overlap by max_lag frames; each origin in its own frames.
    t0 = std::chrono::steady_clock::now();
    const std::size_t lags = std::min(max_lag, frames - 1) + 1;
    const auto windows = h5::partition(ds, chunkwise::parts{pool.workers() * 8}, chunkwise::halo{lags - 1});
    auto msd = chunkwise::reduce(pool, chunkwise::map_blocks(pool, windows, [&](const chunkwise::halo_block& b) {
                                     const auto x = ds.read<float, 3>(b.read_range());
                                     msd_state s;
                                     s.per_lag.resize(lags);
                                     for (std::size_t t = b.begin; t < b.end; ++t) {
                                         for (std::size_t l = 0; l < lags && t + l < b.read_end; ++l) {
                                             double sum = 0;
                                             const std::size_t r0 = t - b.read_begin, r1 = t + l - b.read_begin;
                                             for (std::size_t a = 0; a < atoms; ++a)
                                                 for (std::size_t d = 0; d < 3; ++d) {
                                                     const double dx = double(x(r1, a, d)) - double(x(r0, a, d));
                                                     sum += dx * dx;
                                                 }
                                             s.per_lag[l].add(sum / static_cast<double>(atoms));
                                         }
                                     }
                                     return s;
                                 }));
    const double t_msd = seconds_since(t0);

    std::printf("RMSF per atom (one pass, element-wise variance): atom 0 %.6f nm, mean %.6f nm   [%.3f s]\n", rmsf[0],
                [&] {
                    double s = 0;
                    for (double v : rmsf) s += v;
                    return s / static_cast<double>(atoms);
                }(),
                t_rmsf);
    std::size_t peak = 0;
    for (std::size_t i = 0; i < bins; ++i) peak = hist.counts()[i] > hist.counts()[peak] ? i : peak;
    std::printf("distances to the centre: %zu bins over [0, %.2f) nm, fullest bin [%.3f, %.3f) with %.0f, overflow %.0f   [%.3f s]\n",
                bins, max_distance, hist.edges()[peak], hist.edges()[peak + 1], hist.counts()[peak], hist.overflow(),
                t_hist);
    std::printf("windowed MSD, lags 0..%zu over %zu overlapping blocks: MSD(1) %.6f, MSD(%zu) %.6f nm^2   [%.3f s]\n",
                lags - 1, windows.size(), msd.per_lag[1 % lags].value(), lags - 1, msd.per_lag[lags - 1].value(), t_msd);

    // The same reductions on one thread give the same bits (the fixed tree).
    chunkwise::serial_policy serial;
    auto var1 = chunkwise::reduce(serial, chunkwise::map_blocks(serial, big_blocks, [&](const chunkwise::block& b) {
                                      acc::variance<xt::xtensor<double, 2>> v;
                                      v.add_rows(ds.read<float, 3>(b));
                                      return v;
                                  }));
    const bool same = std::memcmp(var1.var().data(), fluct.data(), fluct.size() * sizeof(double)) == 0;
    std::printf("RMSF on 1 thread and on %zu threads the same to the bit: %s\n", threads, same ? "yes" : "NO");

    if (!out.empty()) {
        std::error_code ec;
        std::filesystem::remove(out, ec);
        h5::write(out, "/rmsf", rmsf);
        h5::write(out, "/histogram/counts", hist.counts());
        h5::write(out, "/histogram/edges", hist.edges());
        std::vector<double> msd_values;
        for (const auto& m : msd.per_lag) msd_values.push_back(m.value());
        h5::write(out, "/msd", msd_values);
        std::printf("wrote %s (/rmsf, /histogram/counts, /histogram/edges, /msd)\n", out.c_str());
    }
    return same ? 0 : 1;
}
