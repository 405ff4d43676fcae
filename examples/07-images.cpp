// 07: many small records packed into one HDF5 file, the standard answer to inode limits on
// clusters. Generated "images" (binary records of 2-16 KiB, like small JPEGs) with an int16
// label each are made by the workers, each its block of them, and written twice: one file per
// image (with a labels file), and the worker's rows of one HDF5 file with a variable-length uint8
// dataset (what h5py's vlen_dtype(np.uint8) makes; h5::write_ragged with write_mode::update) and an
// int16 dataset beside it. The same work — a 16-bin histogram per image, summed per label — runs over both,
// in parallel blocks; the results must agree to the bit.
//
//   07-images [--images N] [--threads N] [--dir DIR] [--keep]
#include "trajectory.hpp"  // example::arg, example::noise

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace h5 = chunkwise::h5;
constexpr std::size_t labels = 10, bins = 16;
using histogram = std::array<std::uint64_t, labels * bins>;  // per label, per bin

std::vector<unsigned char> make_image(std::size_t i) {
    const std::size_t bytes = 2048 + static_cast<std::size_t>((example::noise(i) + 0.5f) * 14336);
    std::vector<unsigned char> v(bytes);
    for (std::size_t j = 0; j < bytes; ++j)
        v[j] = static_cast<unsigned char>((example::noise(i * 65537 + j) + 0.5f) * 255.0f);
    return v;
}

void add(histogram& h, short label, std::span<const unsigned char> image) {
    for (unsigned char b : image) ++h[static_cast<std::size_t>(label) * bins + b / 16];
}

histogram combine(const std::vector<histogram>& parts) {
    histogram all{};
    for (const auto& h : parts)
        for (std::size_t k = 0; k < all.size(); ++k) all[k] += h[k];
    return all;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t count = example::arg(argc, argv, "--images", 4000);
    const std::size_t threads = example::arg(argc, argv, "--threads", chunkwise::thread_policy::default_workers());
    const fs::path dir =
        example::text_arg(argc, argv, "--dir", (fs::temp_directory_path() / "chunkwise-example-images").string());
    const bool keep = example::flag(argc, argv, "--keep");
    if (count == 0 || threads == 0) {
        std::fprintf(stderr, "07-images: --images and --threads must be positive\n");
        return 2;
    }
    try {
        // 1. Every worker makes its block's images and writes them twice: one file per image, and its rows of one
        //    HDF5 file (made first with empty records and the labels). Each worker holds only its own block's images.
        const fs::path loose = dir / "loose", packed = dir / "images.h5";
        fs::remove_all(loose);
        fs::remove(packed);
        fs::create_directories(loose);
        std::vector<short> label(count);
        for (std::size_t i = 0; i < count; ++i) label[i] = static_cast<short>((i * 7) % labels);
        std::ofstream(loose / "labels.bin", std::ios::binary)
            .write(reinterpret_cast<const char*>(label.data()), static_cast<std::streamsize>(count * sizeof(short)));
        h5::write_ragged(packed, "images", h5::ragged<unsigned char>({}, std::vector<std::size_t>(count + 1, 0)),
                         {.chunk = {256}});
        h5::write(packed, "labels", label);

        chunkwise::thread_policy pool(threads);
        const auto blocks = chunkwise::partition(count, chunkwise::parts{pool.workers() * 8});
        auto t0 = std::chrono::steady_clock::now();
        struct packed_block {
            std::size_t bytes = 0;
            double write_seconds = 0;  // in write_ragged, waiting for another worker's write included
        };
        const std::vector<packed_block> made = chunkwise::gather(
            pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                h5::ragged<unsigned char> mine;
                for (std::size_t i = b.begin; i < b.end; ++i) {
                    const auto image = make_image(i);
                    std::ofstream(loose / ("image-" + std::to_string(i) + ".bin"), std::ios::binary)
                        .write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
                    mine.push_back(image);
                }
                const auto w0 = std::chrono::steady_clock::now();
                h5::write_ragged(packed, "images", mine, {.mode = chunkwise::write_mode::update, .first_row = b.begin});
                return packed_block{mine.values().size(), example::seconds_since(w0)};
            }));
        const double t_make = example::seconds_since(t0);
        std::size_t bytes = 0;
        double t_write = 0;
        for (const packed_block& m : made) {
            bytes += m.bytes;
            t_write += m.write_seconds;
        }
        std::printf(
            "%zu images, %.1f MiB, made on %zu threads in %.3f s: %zu files of one image each, and one HDF5 "
            "file of %.1f MiB that every worker wrote its rows of\n  (%.3f s in write_ragged over all "
            "workers, waits for each other included: HDF5 writes one block's records at a time)\n",
            count, double(bytes) / (1 << 20), threads, t_make, count + 1, double(fs::file_size(packed)) / (1 << 20),
            t_write);

        // 2. One file per image: open, read, close each.
        t0 = std::chrono::steady_clock::now();
        std::vector<short> loose_labels(count);
        std::ifstream(loose / "labels.bin", std::ios::binary)
            .read(reinterpret_cast<char*>(loose_labels.data()), static_cast<std::streamsize>(count * sizeof(short)));
        const histogram from_files = combine(chunkwise::gather(
            pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                histogram h{};
                for (std::size_t i = b.begin; i < b.end; ++i) {
                    std::ifstream in(loose / ("image-" + std::to_string(i) + ".bin"), std::ios::binary);
                    const std::vector<unsigned char> image{std::istreambuf_iterator<char>(in),
                                                           std::istreambuf_iterator<char>()};
                    add(h, loose_labels[i], image);
                }
                return h;
            })));
        const double t_loose = example::seconds_since(t0);

        // 3. One HDF5 file: each block reads its records and their labels.
        t0 = std::chrono::steady_clock::now();
        const h5::dataset records(packed, "images"), targets(packed, "labels");
        chunkwise::run_stats stats;
        auto partial = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
            const h5::ragged<unsigned char> mine = records.read_ragged<unsigned char>(b);
            const auto l = targets.read<short, 1>(b);
            histogram h{};
            for (std::size_t i = 0; i < mine.size(); ++i) add(h, l(i), mine[i]);
            return h;
        });
        stats = partial.stats();
        const histogram from_hdf5 = combine(chunkwise::gather(pool, std::move(partial)));
        const double t_packed = example::seconds_since(t0);

        std::printf("  one file per image: %7.3f s\n", t_loose);
        std::printf("  one HDF5 file:      %7.3f s  (read %.3f s of %.3f s busy)\n", t_packed,
                    stats.total(&chunkwise::worker_stats::read), stats.total(&chunkwise::worker_stats::busy));
        std::uint64_t label0 = 0;
        for (std::size_t k = 0; k < bins; ++k) label0 += from_hdf5[k];
        const bool same = from_files == from_hdf5;
        std::printf("label 0: %llu bytes in %zu bins; both agree to the bit: %s (%zu threads)\n",
                    static_cast<unsigned long long>(label0), bins, same ? "yes" : "NO", threads);
        if (!keep) fs::remove_all(dir);
        return same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "07-images: %s\n", e.what());
        return 1;
    }
}
