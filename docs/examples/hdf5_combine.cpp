// docs/combine.md: mergeable statistics, element-wise variance over frames, concatenation, blocks
// that overlap, and a user's own mergeable type. Makes its own small trajectory first, in a
// temporary folder.
#include <chunkwise/accumulate.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/concatenate.hpp>
#include <chunkwise/hdf5.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

struct msd_state {
    std::vector<chunkwise::acc::mean<double>> per_lag;
    void merge(const msd_state& o) {
        if (per_lag.size() < o.per_lag.size()) per_lag.resize(o.per_lag.size());
        for (std::size_t l = 0; l < o.per_lag.size(); ++l) per_lag[l].merge(o.per_lag[l]);
    }
};
static_assert(chunkwise::mergeable<msd_state>);

// Squared displacements of every atom from frame t (a row of x) to frame t + lag, into s.
static void add_displacements(msd_state& s, const auto& x, std::size_t t, std::size_t lag) {
    if (s.per_lag.size() <= lag) s.per_lag.resize(lag + 1);
    for (std::size_t a = 0; a < x.shape()[1]; ++a) {
        double d2 = 0;
        for (std::size_t k = 0; k < 3; ++k) {
            const double d = double(x(t + lag, a, k)) - double(x(t, a, k));
            d2 += d * d;
        }
        s.per_lag[lag].add(d2);
    }
}

int main() {
    namespace fs = std::filesystem;
    namespace h5 = chunkwise::h5;
    const fs::path work = fs::temp_directory_path() / "chunkwise-doc-combine";
    fs::remove_all(work);
    fs::create_directories(work);
    fs::current_path(work);

    // 60 frames x 50 atoms x 3, a chunk per 4 frames; atom a drifts by a/100 per frame.
    xt::xtensor<float, 3> xyz = xt::xtensor<float, 3>::from_shape({60, 50, 3});
    for (std::size_t f = 0; f < 60; ++f)
        for (std::size_t a = 0; a < 50; ++a)
            for (std::size_t k = 0; k < 3; ++k)
                xyz(f, a, k) = float(a) + float(f * a) / 100.0f + float((f * 7 + a * 3 + k) % 5) * 0.25f;
    h5::write_options chunked;
    chunked.chunk = {4, 50, 3};
    h5::write("traj.h5", "/particles/all/position/value", xyz, chunked);
    const h5::dataset ds("traj.h5", "/particles/all/position/value");
    chunkwise::thread_policy pool(3);
    const std::size_t max_lag = 5;

    {
        chunkwise::thread_policy policy(2);
        std::vector<double> x(1000);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1e9 + double(i % 17);   // 1e9 + small values
        const auto blocks = chunkwise::partition(x.size(), chunkwise::parts{7});
        namespace acc = chunkwise::acc;

        auto partial = chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
            acc::variance<> v;
            for (std::size_t i = b.begin; i < b.end; ++i) v.add(x[i]);
            return v;                                    // one state per block
        });
        acc::variance<> all = chunkwise::reduce(policy, std::move(partial));   // merged in the fixed tree
        double sd = all.std(1);                          // sample standard deviation of every x
        std::printf("1000 values of 1e9 + (i %% 17): mean - 1e9 = %.6f, sample sd = %.6f\n", all.mean() - 1e9, sd);

        acc::mean<> a, b, merged;
        for (double v : {1.0, 2.0, 3.0}) a.add(v);
        b.add(10.0);
        merged.merge(a);
        merged.merge(b);
        std::printf("blocks {1, 2, 3} and {10}: average of block means %.1f, merged mean %.1f\n",
                    (a.value() + b.value()) / 2, merged.value());
    }
    {
        const auto blocks = h5::partition(ds, h5::block_bytes{std::size_t{128} << 20});
        namespace acc = chunkwise::acc;
        auto var = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
            thread_local chunkwise::h5::read_buffer<float> buffer;
            acc::variance<xt::xtensor<double, 2>> v;
            v.add_rows(ds.read<float, 3>(b, buffer));   // each frame one value of shape (atoms, 3)
            return v;
        }));
        auto rmsf = xt::sqrt(xt::sum(var.var(), {1}));   // RMSF per atom
        std::printf("RMSF of atoms 0, 1 and 49: %.4f %.4f %.4f\n", double(rmsf(0)), double(rmsf(1)), double(rmsf(49)));
    }
    {
        chunkwise::serial_policy policy;
        const auto blocks = h5::partition(ds, chunkwise::parts{6});
        auto per_frame_mean = [&](const chunkwise::block& b) {
            const auto x = ds.read<float, 3>(b);
            std::vector<double> out;
            for (std::size_t f = 0; f < b.size(); ++f) out.push_back(double(xt::mean(xt::view(x, f))()));
            return out;
        };
        auto per_frame_xyz = [&](const chunkwise::block& b) {
            xt::xtensor<double, 2> out = xt::mean(ds.read<float, 3>(b), {1});   // (frames, 3)
            return out;
        };
        auto partial = chunkwise::map_blocks(policy, blocks, per_frame_mean);
        auto partial2 = chunkwise::map_blocks(policy, blocks, per_frame_xyz);
        std::vector<double> rmsd = chunkwise::concatenate(chunkwise::gather(policy, std::move(partial)));
        xt::xtensor<double, 2> per_frame = chunkwise::concatenate(chunkwise::gather(policy, std::move(partial2)));
        std::printf("concatenated: %zu per-frame values, an array of shape (%zu, %zu); frame 59: %.4f\n", rmsd.size(),
                    per_frame.shape()[0], per_frame.shape()[1], rmsd[59]);
    }
    {
        const auto blocks = chunkwise::h5::partition(ds, chunkwise::parts{64}, chunkwise::halo{max_lag});
        auto partial = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::halo_block& b) {
            const auto x = ds.read<float, 3>(b.read_range());         // own frames and the halo
            msd_state s;
            for (std::size_t t0 = b.begin; t0 < b.end; ++t0)          // time origins: own frames only
                for (std::size_t lag = 0; lag <= max_lag && t0 + lag < b.read_end; ++lag)
                    add_displacements(s, x, t0 - b.read_begin, lag);
            return s;
        });
        const msd_state msd = chunkwise::reduce(pool, std::move(partial));
        // The same without blocks: every origin, every lag, in one pass over all frames.
        msd_state whole;
        const auto all = ds.read<float, 3>(chunkwise::items(0, 60));
        for (std::size_t t0 = 0; t0 < 60; ++t0)
            for (std::size_t lag = 0; lag <= max_lag && t0 + lag < 60; ++lag) add_displacements(whole, all, t0, lag);
        std::printf("%zu overlapping blocks (halo %zu frames); MSD(lag):", blocks.size(), max_lag);
        bool same = true;
        for (std::size_t lag = 0; lag <= max_lag; ++lag) {
            std::printf(" %.4f", msd.per_lag[lag].value());
            same = same && std::fabs(msd.per_lag[lag].value() - whole.per_lag[lag].value()) < 1e-12;
        }
        std::printf("\nthe same as one pass over all frames: %s\n", same ? "yes" : "NO");
    }
    fs::current_path(fs::temp_directory_path());
    fs::remove_all(work);
    return 0;
}
