#pragma once
// The MPI policies the MPI tests run over, each made fresh by make() on MPI_COMM_WORLD, and
// what the MPI tests share: a folder every rank sees, and the check that a policy still works.
#include "catch.hpp"

#include "test_util.hpp"

#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

namespace test {

struct mpi_contiguous {
    static chunkwise::mpi_policy make() { return chunkwise::mpi_policy({}, chunkwise::mpi_schedule::contiguous); }
    static std::string name() { return "mpi"; }
};
struct mpi_dynamic {
    static chunkwise::mpi_policy make() { return chunkwise::mpi_policy({}, chunkwise::mpi_schedule::dynamic); }
    static std::string name() { return "mpi dynamic"; }
};
struct hybrid_contiguous {
    static chunkwise::hybrid_policy make() { return chunkwise::hybrid_policy({}, 2); }
    static std::string name() { return "hybrid(2)"; }
};
struct hybrid_dynamic {
    static chunkwise::hybrid_policy make() { return chunkwise::hybrid_policy({}, 3, chunkwise::mpi_schedule::dynamic); }
    static std::string name() { return "hybrid(3) dynamic"; }
};

/// A fresh, empty folder every rank shares, named after the test and rank 0's process; rank 0
/// removes it when it exits (test::scratch_folders). Collective.
inline std::filesystem::path shared_scratch(const std::string& name) {
    boost::mpi::communicator world;
    int pid = static_cast<int>(::getpid());
    boost::mpi::broadcast(world, pid, 0);
    const auto dir = std::filesystem::temp_directory_path() / ("chunkwise-mpitest-" + name + "-" + std::to_string(pid));
    if (world.rank() == 0) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        scratch_folders::get().add(dir);
    }
    world.barrier();
    return dir;
}

/// The communicator and the policy still work (after a failure every rank agreed on): a
/// map_blocks + gather gives the root every block, and an all_reduce every rank the sum.
/// Collective.
template <class Policy>
void still_usable(Policy& policy) {
    const auto blocks = chunkwise::partition(100, chunkwise::parts{10});
    auto size = [](const chunkwise::block& b) { return b.size(); };
    const auto all = chunkwise::gather(policy, chunkwise::map_blocks(policy, blocks, size));
    if (policy.is_root()) REQUIRE(all.size() == 10);
    REQUIRE(chunkwise::all_reduce(policy, chunkwise::map_blocks(policy, blocks, size), std::plus<>{}) == 100);
}

}  // namespace test

#define CHUNKWISE_MPI_POLICIES test::mpi_contiguous, test::mpi_dynamic, test::hybrid_contiguous, test::hybrid_dynamic
