// docs/guide.md: the MPI program of the guide, whole. ctest runs it on 2 ranks.
#include <chunkwise/chunkwise.hpp>

#include <boost/mpi/environment.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

// The user's pieces: how many frames, the work per block, and what to do with the results.
static const std::size_t n_frames = 1000;
static double per_block_rmsd(const chunkwise::block& b) {
    double s = 0;
    for (std::size_t i = b.begin; i < b.end; ++i) s += std::sqrt(static_cast<double>(i));
    return s;
}
static void save(const std::vector<double>& rmsd) {
    double s = 0;
    for (double v : rmsd) s += v;
    std::printf("%zu blocks gathered on rank 0, in block order; sum %.6f\n", rmsd.size(), s);
}

#include <chunkwise/mpi.hpp>          // CMake: find_package(chunkwise CONFIG REQUIRED COMPONENTS mpi)
                                      //        target_link_libraries(app PRIVATE chunkwise::mpi)
int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    chunkwise::mpi_policy mpi;                        // MPI_COMM_WORLD
    auto blocks = chunkwise::partition(n_frames, chunkwise::parts{std::size_t(mpi.size())});
    auto rmsd = chunkwise::gather(mpi, chunkwise::map_blocks(mpi, blocks, per_block_rmsd));
    if (mpi.is_root()) save(rmsd);                    // block order on rank 0, empty elsewhere
}
