// docs/zarr.md's program: write a Zarr v3 store (sharded), read it in chunk-aligned blocks on
// threads, write the per-block results to a Zarr v2 store from every worker, read that back.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/zarr.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

int main() {
    namespace zarr = chunkwise::zarr;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "chunkwise-zarr-guide";
    std::filesystem::remove_all(dir);

    // 1000 frames x 64 atoms x 3 as float32: chunks of 10 frames, shards of 100, Blosc-LZ4 + shuffle.
    xt::xtensor<float, 3> xyz = xt::xtensor<float, 3>::from_shape({1000, 64, 3});
    for (std::size_t i = 0; i < xyz.size(); ++i) xyz.data()[i] = static_cast<float>(i % 1000) * 0.25f;
    zarr::write_options opt;
    opt.chunk = {10, 64, 3};
    opt.shard = {100, 64, 3};
    opt.codec = "blosc";
    opt.shuffle = true;
    opt.format = 3;
    zarr::write(dir / "positions.zarr", xyz, opt);

    zarr::array positions(dir / "positions.zarr");      // v2 or v3, found by its metadata
    auto blocks = zarr::partition(positions, chunkwise::parts{8});   // never splits a chunk
    chunkwise::thread_policy pool(4);
    auto sums = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
        xt::xtensor<float, 3> frames = positions.read<float, 3>(b);   // decoded in this worker
        std::vector<double> per_frame(b.size(), 0.0);
        for (std::size_t f = 0; f < b.size(); ++f)
            for (std::size_t i = 0; i < 64 * 3; ++i) per_frame[f] += frames.data()[f * 64 * 3 + i];
        return per_frame;
    });
    zarr::write_options out;
    out.chunk = {250};
    out.codec = "zstd";
    zarr::write_blocks(pool, dir / "sums.zarr", std::move(sums), out);   // every worker writes its chunks

    const zarr::array back(dir / "sums.zarr");
    const auto s = back.read<double, 1>(chunkwise::block{0, 0, back.shape()[0]});
    std::printf("%s: v%d, %zu x %zu x %zu %s, chunks of %zu frames in shards of %zu\n", "positions.zarr",
                positions.format(), positions.shape()[0], positions.shape()[1], positions.shape()[2],
                positions.dtype().c_str(), positions.chunks()[0], positions.shards()[0]);
    std::printf("sums.zarr: v%d, %zu values, %s; sum[0] = %.2f, sum[999] = %.2f\n", back.format(), back.shape()[0],
                back.codecs()[0].c_str(), s(0), s(999));
    std::filesystem::remove_all(dir);
}
