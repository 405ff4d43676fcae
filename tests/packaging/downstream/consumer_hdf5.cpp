// A downstream HDF5 reader built outside CMake (pkg-config chunkwise-hdf5): writes a small
// dataset, reads it back in chunk-aligned blocks on threads, prints the sum.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <cstdio>
#include <filesystem>
#include <vector>

int main(int argc, char** argv) {
    const std::filesystem::path file = argc > 1 ? argv[1] : "consumer_hdf5.h5";
    std::filesystem::remove(file);
    std::vector<double> v(1000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
    chunkwise::h5::write(file, "/x", v, chunkwise::h5::write_options{{64}, 1, true});
    const chunkwise::h5::dataset ds(file, "/x");
    chunkwise::thread_policy pool(2);
    const double sum = chunkwise::reduce(
        pool,
        chunkwise::map_blocks(pool, chunkwise::h5::partition(ds, chunkwise::parts{7}),
                              [&](const chunkwise::block& b) {
                                  double s = 0;
                                  for (double x : ds.read<double, 1>(b)) s += x;
                                  return s;
                              }),
        [](double a, double b) { return a + b; });
    std::printf("consumer_hdf5 ok %.0f (filters: %zu) %s\n", sum, ds.filters().size(),
                CHUNKWISE_HDF5_HEADER_ONLY ? "header-only" : "compiled");
    return sum == 499500.0 ? 0 : 1;
}
