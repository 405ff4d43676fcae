// docs/hdf5.md (and guide.md's items()): reading whole rows, into a reused buffer, selected
// indices, and ragged records. Makes its own small files first, in a temporary folder.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

// The user's per-frame analysis: here the root mean square of every frame's coordinates.
static std::vector<double> per_frame_rmsd(const auto& frames) {
    std::vector<double> out;
    for (std::size_t f = 0; f < frames.shape()[0]; ++f) {
        double s = 0;
        for (std::size_t a = 0; a < frames.shape()[1]; ++a)
            for (std::size_t k = 0; k < 3; ++k) s += double(frames(f, a, k)) * double(frames(f, a, k));
        out.push_back(std::sqrt(s / double(frames.shape()[1])));
    }
    return out;
}
static std::size_t use(std::span<const unsigned char> image, short label) { return label >= 0 ? image.size() : 0; }

static double total(const std::vector<std::vector<double>>& blocks) {
    double s = 0;
    for (const auto& b : blocks)
        for (double v : b) s += v;
    return s;
}

int main() {
    namespace fs = std::filesystem;
    namespace h5 = chunkwise::h5;
    const fs::path work = fs::temp_directory_path() / "chunkwise-doc-hdf5";
    fs::remove_all(work);
    fs::create_directories(work);
    fs::current_path(work);

    // A trajectory of 40 frames x 9024 atoms, chunked 10 frames at a time; 400 images with labels.
    xt::xtensor<float, 3> xyz = xt::xtensor<float, 3>::from_shape({40, 9024, 3});
    for (std::size_t i = 0; i < xyz.size(); ++i) xyz.data()[i] = float(i % 7) - 3.0f;
    h5::write_options chunked;
    chunked.chunk = {10, 9024, 3};
    h5::write("run.h5", "/particles/all/position/value", xyz, chunked);
    h5::ragged<unsigned char> records;
    std::vector<short> label_values;
    for (std::size_t i = 0; i < 400; ++i) {
        std::vector<unsigned char> image(i % 13 + 1, static_cast<unsigned char>(i));
        records.push_back(image);
        label_values.push_back(static_cast<short>(i % 10));
    }
    h5::write_ragged("images.h5", "images", records);
    h5::write("images.h5", "labels", label_values);

    chunkwise::h5::dataset ds("run.h5", "/particles/all/position/value");   // read-only, cheap to copy
    auto blocks = chunkwise::h5::partition(ds, chunkwise::parts{64});         // never splits a chunk
    chunkwise::thread_policy pool;
    auto rmsd = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
        xt::xtensor<float, 3> frames = ds.read<float, 3>(b);    // rows [b.begin, b.end), all atoms, xyz
        return per_frame_rmsd(frames);
    }));
    std::printf("%zu blocks of whole chunks, sum of RMS over 40 frames %.4f\n", rmsd.size(), total(rmsd));

    {
        auto blocks = chunkwise::h5::partition(ds, chunkwise::h5::default_block_bytes);
        auto rmsd = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
            thread_local chunkwise::h5::read_buffer<float> buffer;   // one per thread, reused
            auto frames = ds.read<float, 3>(b, buffer);             // an xtensor view of rows [b.begin, b.end)
            return per_frame_rmsd(frames);
        }));
        std::printf("%zu blocks of about 8 MiB, read into reused buffers: %.4f\n", rmsd.size(), total(rmsd));
    }
    {
        auto first = ds.read<float, 3>(chunkwise::items(0, 1));              // frame 0
        chunkwise::block b{.index = 3, .begin = 300, .end = 400};            // C++20 designated initializers
        std::printf("items(0, 1): %zu frame of %zu atoms; block{.index = 3, ...} holds %zu items\n",
                    first.shape()[0], first.shape()[1], b.size());
    }
    {
        const chunkwise::block b = chunkwise::items(0, 4);
        std::vector<float> buffer(4 * 564 * 3);
        std::vector<std::size_t> ca;                        // e.g. the C-alpha atoms
        for (std::size_t a = 0; a < 9024; a += 16) ca.push_back(a);
        auto x = ds.read<float, 3>(b, h5::indices{1, ca}); // (b.size(), ca.size(), 3)
        ds.read_into(b, h5::indices{1, ca}, std::span<float>(buffer)); // into a reused buffer
        const bool same = std::equal(buffer.begin(), buffer.end(), x.data());
        std::printf("indices: (%zu, %zu, %zu), atom 16 of frame 0 = (%g, %g, %g), buffer agrees: %s\n", x.shape()[0],
                    x.shape()[1], x.shape()[2], x(0, 1, 0), x(0, 1, 1), x(0, 1, 2), same ? "yes" : "no");
    }
    {
        h5::dataset images("images.h5", "images"), labels("images.h5", "labels");
        auto partial = chunkwise::map_blocks(pool, chunkwise::partition(images.shape()[0], chunkwise::parts{64}),
            [&](const chunkwise::block& b) {
                const h5::ragged<unsigned char> mine = images.read_ragged<unsigned char>(b);
                const auto l = labels.read<short, 1>(b);
                std::size_t kept = 0;
                for (std::size_t i = 0; i < mine.size(); ++i) kept += use(mine[i], l(i));
                return kept;
            });
        h5::write_ragged("out.h5", "records", records);   // h5py reads it as an object array of arrays
        const std::size_t bytes = chunkwise::reduce(pool, std::move(partial), std::plus<>{});
        const bool same = h5::dataset("out.h5", "records").read_ragged<unsigned char>(chunkwise::items(0, 400)) == records;
        std::printf("ragged: %zu images, %zu bytes; written and read back equal: %s\n", images.shape()[0], bytes,
                    same ? "yes" : "no");
    }
    fs::current_path(work.parent_path());
    fs::remove_all(work);
}
