// 08: a long trajectory written as many files (MDAnalysis' ChainReader case), read as one
// dataset (h5::dataset_series, h5::glob), and only the atoms the analysis needs read
// (h5::indices): RMSD per frame of a selection (every 16th atom of the first half, like the
// C-alpha atoms of a protein in water), from 20 files of uneven length and from one file with
// the same chunks. Chunks are (10 frames, 1024 atoms, 3), shuffle + deflate, so chunks holding no
// selected atom are never read. Each figure is the best of two passes. All results must agree
// to the bit.
//
//   08-trajectory-series [--frames N] [--atoms N] [--files N] [--threads N] [--dir DIR] [--keep]
#include "trajectory.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace h5 = chunkwise::h5;
const std::string path = "/particles/all/position/value";


// RMSD per frame of the selected atoms to frame 0's, reading the selection, or whole frames
// and picking the selection out of them. Source: an h5::dataset or an h5::dataset_series.
template <class Source>
std::vector<double> rmsd_of(chunkwise::thread_policy& pool, const Source& source, const std::vector<std::size_t>& atoms,
                            bool whole_frames, chunkwise::run_stats& stats) {
    const std::size_t n = atoms.size(), all_atoms = source.shape()[1];
    const auto pick = [&](const chunkwise::block& rows) {
        if (!whole_frames) return source.template read<float, 3>(rows, h5::indices{1, atoms});
        const auto frames = source.template read<float, 3>(rows);
        xt::xtensor<float, 3> out = xt::xtensor<float, 3>::from_shape({rows.size(), n, 3});
        for (std::size_t f = 0; f < rows.size(); ++f)
            for (std::size_t a = 0; a < n; ++a)
                for (std::size_t c = 0; c < 3; ++c) out(f, a, c) = frames.data()[(f * all_atoms + atoms[a]) * 3 + c];
        return out;
    };
    const auto ref = pick(chunkwise::block{0, 0, 1});
    auto partial = chunkwise::map_blocks(pool, h5::partition(source, chunkwise::parts{pool.workers() * 8}),
                                         [&](const chunkwise::block& b) {
                                             const auto x = pick(b);
                                             std::vector<double> out;
                                             for (std::size_t f = 0; f < b.size(); ++f)
                                                 out.push_back(example::rmsd(x.data() + f * n * 3, ref.data(), n));
                                             return out;
                                         });
    stats = partial.stats();
    std::vector<double> all;
    for (auto& v : chunkwise::gather(pool, std::move(partial))) all.insert(all.end(), v.begin(), v.end());
    return all;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t frames = example::arg(argc, argv, "--frames", 2000);
    const std::size_t atoms = example::arg(argc, argv, "--atoms", 20000);
    const std::size_t files = example::arg(argc, argv, "--files", 20);
    const std::size_t threads = example::arg(argc, argv, "--threads", chunkwise::thread_policy::default_workers());
    const fs::path dir = example::text_arg(argc, argv, "--dir", (fs::temp_directory_path() / "chunkwise-example-series").string());
    const bool keep = example::flag(argc, argv, "--keep");
    if (frames < files || atoms < 32 || files == 0 || threads == 0) {
        std::fprintf(stderr, "08-trajectory-series: need --frames >= --files >= 1, --atoms >= 32, --threads >= 1\n");
        return 2;
    }
    try {
        // 1. The trajectory as `files` files of uneven length, and as one file.
        fs::remove_all(dir);
        fs::create_directories(dir);
        const example::trajectory t = example::make_trajectory(frames, atoms);
        std::vector<std::size_t> lengths(files, 1);
        std::size_t left = frames - files;
        for (std::size_t i = 0; i < files && left > 0; ++i) {
            const std::size_t more = (i + 1 == files) ? left : std::min(left, (2 * frames / files) * ((i * 7) % 5) / 4);
            lengths[i] += more;
            left -= more;
        }
        auto chunked = [&](std::size_t rows) {
            h5::write_options opt;
            opt.chunk = {std::min<std::size_t>(rows, 10), std::min<std::size_t>(atoms, 1024), 3};
            opt.deflate = 1;
            opt.shuffle = true;
            return opt;
        };
        std::size_t row = 0;
        for (std::size_t i = 0; i < files; ++i) {
            xt::xtensor<float, 3> part = xt::xtensor<float, 3>::from_shape({lengths[i], atoms, 3});
            std::copy(t.frame(row), t.frame(row) + lengths[i] * atoms * 3, part.data());
            h5::write(dir / ("part-" + std::to_string(i) + ".h5"), path, part, chunked(lengths[i]));
            row += lengths[i];
        }
        xt::xtensor<float, 3> whole = xt::xtensor<float, 3>::from_shape({frames, atoms, 3});
        std::copy(t.xyz.begin(), t.xyz.end(), whole.data());
        h5::write(dir / "one.h5", path, whole, chunked(frames));
        std::printf("%zu frames x %zu atoms: %zu files of %zu to %zu frames, and one file\n", frames, atoms, files,
                    *std::min_element(lengths.begin(), lengths.end()), *std::max_element(lengths.begin(), lengths.end()));

        // 2. The selection: every 16th atom of the first half.
        std::vector<std::size_t> selection;
        for (std::size_t a = 0; a < atoms / 2; a += 16) selection.push_back(a);

        chunkwise::thread_policy pool(threads);
        chunkwise::run_stats stats;
        const h5::dataset_series series(h5::glob((dir / "part-*.h5").string()), path);
        const h5::dataset one(dir / "one.h5", path);
        struct run {
            std::string what;
            std::vector<double> r;
            double seconds, read;
        };
        std::vector<run> runs;
        // Best of two passes: the first also meets the files (page cache, chunk index) for the first time.
        auto measure = [&](std::string what, auto&& source, bool whole_frames) {
            run best{what, {}, 1e300, 0};
            for (int pass = 0; pass < 2; ++pass) {
                const auto t0 = std::chrono::steady_clock::now();
                auto r = rmsd_of(pool, source, selection, whole_frames, stats);
                const double s = example::seconds_since(t0);
                if (s < best.seconds) best = {what, std::move(r), s, stats.total(&chunkwise::worker_stats::read)};
            }
            runs.push_back(std::move(best));
        };
        const std::string many = std::to_string(files) + " files";
        measure(many + ", selected atoms", series, false);
        measure(many + ", whole frames  ", series, true);
        measure("one file, selected atoms", one, false);
        measure("one file, whole frames  ", one, true);
        std::printf("RMSD of %zu of %zu atoms per frame (%zu threads):\n", selection.size(), atoms, threads);
        for (const auto& r : runs) std::printf("  %-26s %7.3f s  (read %.3f s)\n", r.what.c_str(), r.seconds, r.read);
        bool same = true;
        for (const auto& r : runs) same = same && r.r == runs.front().r;
        std::printf("selected atoms vs whole frames: %.1fx faster; rmsd[%zu] = %.6f; all four agree to the bit: %s\n",
                    runs[1].seconds / runs[0].seconds, frames - 1, runs[0].r.back(), same ? "yes" : "NO");
        if (!keep) fs::remove_all(dir);
        return same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "08-trajectory-series: %s\n", e.what());
        return 1;
    }
}
