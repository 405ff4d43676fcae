// A downstream Zarr user (find_package(chunkwise COMPONENTS zarr)): writes a small Zarr v3 store
// from 2 threads, reads it back in chunk-aligned blocks, prints the sum.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/zarr.hpp>

#include <cstdio>
#include <filesystem>
#include <vector>

int main(int argc, char** argv) {
    namespace zarr = chunkwise::zarr;
    const std::filesystem::path store = argc > 1 ? argv[1] : "consumer.zarr";
    chunkwise::thread_policy pool(2);
    zarr::write_options opt;
    opt.chunk = {64};
    opt.codec = "gzip";
    opt.format = 3;
    opt.mode = chunkwise::write_mode::replace;  // a rerun replaces the store
    const auto blocks = zarr::partition(1000, opt, chunkwise::parts{5});
    zarr::write_blocks(pool, store, chunkwise::map_blocks(pool, blocks, [](const chunkwise::block& b) {
        std::vector<double> v;
        for (std::size_t i = b.begin; i < b.end; ++i) v.push_back(static_cast<double>(i));
        return v;
    }), opt);
    const zarr::array a(store);
    const double sum = chunkwise::reduce(
        pool,
        chunkwise::map_blocks(pool, zarr::partition(a, chunkwise::parts{7}),
                              [&](const chunkwise::block& b) {
                                  double s = 0;
                                  for (double x : a.read<double, 1>(b)) s += x;
                                  return s;
                              }),
        [](double x, double y) { return x + y; });
    std::printf("consumer_zarr ok %.0f (v%d, %s) %s\n", sum, a.format(), a.codecs()[0].c_str(),
                CHUNKWISE_ZARR_HEADER_ONLY ? "header-only" : "compiled");
    return sum == 499500.0 ? 0 : 1;
}
