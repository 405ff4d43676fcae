// A downstream program with both components: rank 0 writes a dataset, every rank reads its
// chunk-aligned blocks under mpiexec, rank 0 gathers. Prints "consumer_mpi_hdf5 ok <sum>".
#include <chunkwise/hdf5.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    chunkwise::mpi_policy mpi;
    const std::string file = argc > 1 ? argv[1] : "consumer.h5";
    if (mpi.is_root()) {
        std::filesystem::remove(file);
        xt::xtensor<double, 2> rows = xt::xtensor<double, 2>::from_shape({100, 3});
        for (std::size_t i = 0; i < rows.size(); ++i) rows.data()[i] = static_cast<double>(i);
        chunkwise::h5::write_options opt;
        opt.chunk = {10, 3};
        opt.deflate = 1;
        chunkwise::h5::write(file, "/data/rows", rows, opt);
    }
    mpi.communicator().barrier();
    chunkwise::h5::dataset ds(file, "/data/rows");
    const auto blocks = chunkwise::h5::partition(ds, chunkwise::parts{7});
    auto sums = chunkwise::gather(mpi, chunkwise::map_blocks(mpi, blocks, [&](const chunkwise::block& b) {
                                      const auto a = ds.read<double, 2>(b);
                                      double s = 0;
                                      for (double v : a) s += v;
                                      return s;
                                  }));
    if (mpi.is_root()) {
        double total = 0;
        for (double s : sums) total += s;
        std::printf("consumer_mpi_hdf5 %s %.0f on %d ranks (hdf5 %s, mpi %s)\n", total == 44850.0 ? "ok" : "FAILED", total,
                    mpi.size(), CHUNKWISE_HDF5_HEADER_ONLY ? "header-only" : "compiled",
                    CHUNKWISE_MPI_HEADER_ONLY ? "header-only" : "compiled");
        return total == 44850.0 ? 0 : 1;
    }
    return 0;
}
