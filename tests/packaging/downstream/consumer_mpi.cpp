// A downstream MPI program: find_package(chunkwise COMPONENTS mpi), run under mpiexec.
// Prints "consumer_mpi ok <sum> on <ranks> ranks" on rank 0 when all policies agree.
#include <chunkwise/mpi.hpp>

#include <boost/mpi/environment.hpp>

#include <cstdio>
#include <functional>

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{13});
    auto square_sum = [](const chunkwise::block& b) {
        double s = 0;
        for (std::size_t i = b.begin; i < b.end; ++i) s += static_cast<double>(i) * static_cast<double>(i);
        return s;
    };
    chunkwise::serial_policy serial;
    chunkwise::mpi_policy mpi;
    chunkwise::hybrid_policy hybrid({}, 2);
    const double a = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, square_sum), std::plus<>{});
    const double b = chunkwise::all_reduce(mpi, chunkwise::map_blocks(mpi, blocks, square_sum), std::plus<>{});
    const double c = chunkwise::all_reduce(hybrid, chunkwise::map_blocks(hybrid, blocks, square_sum), std::plus<>{});
    if (a != b || a != c) {
        std::printf("consumer_mpi FAILED on rank %d: %.17g %.17g %.17g\n", mpi.rank(), a, b, c);
        return 1;
    }
    if (mpi.is_root()) std::printf("consumer_mpi ok %.0f on %d ranks\n", a, mpi.size());
    return 0;
}
