// The test runner's main under mpiexec. Every rank runs the tests; rank 0 reports on stdout,
// other ranks into a file of their own. A failure on any rank fails the run on every rank, and
// the failing rank's report is printed; a run that executes no test fails.
#include "catch_session.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char* argv[]) {
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    boost::mpi::communicator world;

    Catch::Session session;
    if (const int rc = test::configure(session, argc, argv); rc != 0) return rc;
    const std::string own_report =
        world.rank() == 0 ? std::string() : std::string(argv[0]) + ".rank" + std::to_string(world.rank()) + ".txt";
    if (world.rank() != 0) session.configData().outputFilename = own_report;

    const int rc = session.run();
    const int worst = boost::mpi::all_reduce(world, rc, boost::mpi::maximum<int>());

    // Ranks other than 0 print their report only when they failed, one rank at a time.
    for (int r = 1; r < world.size(); ++r) {
        world.barrier();
        if (world.rank() == r && rc != 0) {
            std::ifstream in(own_report);
            std::stringstream text;
            text << in.rdbuf();
            std::cout << "\n===== rank " << r << " failed (exit " << rc << ") =====\n" << text.str() << std::flush;
        }
    }
    if (world.rank() != 0) std::remove(own_report.c_str());
    world.barrier();
    if (world.rank() == 0 && worst != 0 && rc == 0) {
        std::cout << "rank 0 passed, but another rank failed (see above): failing the run\n" << std::flush;
    }
    return worst;
}
