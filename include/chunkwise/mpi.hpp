#pragma once
/// \file
/// `mpi_policy` and `hybrid_policy`: blocks across MPI ranks (Boost.MPI), optionally on a
/// thread pool per rank. CMake component `mpi` (target chunkwise::mpi). It brings the algorithms
/// that run on them (partition, map_blocks, gather, reduce, all_gather, all_reduce, gather_stats,
/// run_options); their MPI machinery lives in detail/mpi/.
///
/// chunkwise never calls MPI_Init: create a `boost::mpi::environment` in main (with
/// `boost::mpi::threading::funneled` for hybrid_policy). Only the thread that calls map_blocks,
/// gather or reduce talks to MPI. MPI calls that fail throw chunkwise::mpi_error.

#include <chunkwise/detail/mpi/backend.hpp>  // first: Boost.MPI, then mpi.h
#include <chunkwise/gather.hpp>
#include <chunkwise/map_blocks.hpp>
#include <chunkwise/mpi/error.hpp>
#include <chunkwise/mpi/schedule.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/run_options.hpp>
#include <chunkwise/serial.hpp>
#include <chunkwise/threads.hpp>

#include <boost/mpi/collectives.hpp>  // Boost.MPI's own collectives, as programs using the policies expect
#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <cstddef>
#include <stdexcept>
#include <utility>

namespace chunkwise {

/// Runs blocks across the ranks of a communicator, one block at a time per rank.
///
/// `map_blocks` is collective: every rank calls it with the same blocks and runs its own share
/// (contiguous by default, on demand with mpi_schedule::dynamic). A failing block makes every rank
/// throw the same block_error. `gather` delivers all results in block order on rank 0 (arithmetic
/// values, vectors of them and xtensor arrays as raw MPI_Gatherv buffers, other types through
/// Boost.Serialization); `reduce` delivers the serial tree's bits on rank 0.
class mpi_policy : public detail::mpi_backend<serial_policy> {
public:
    /// \param comm the ranks that share the work (default: MPI_COMM_WORLD)
    /// \param schedule how blocks are assigned to ranks
    /// \throws std::logic_error if MPI is not initialized
    explicit mpi_policy(boost::mpi::communicator comm = {}, mpi_schedule schedule = mpi_schedule::contiguous)
            : mpi_backend(std::move(comm), schedule, serial_policy{}, "mpi_policy") {}

    /// Blocks run at once over all ranks: one per rank.
    [[nodiscard]] std::size_t workers() const noexcept { return static_cast<std::size_t>(size()); }
};

/// Runs blocks across the ranks of a communicator and, within each rank, on its own thread pool.
///
/// As mpi_policy, but each rank runs its share on a thread_policy of `threads_per_rank` workers.
/// Only the thread that calls map_blocks talks to MPI (MPI_THREAD_FUNNELED suffices).
class hybrid_policy : public detail::mpi_backend<thread_policy> {
public:
    /// \param comm the ranks that share the work
    /// \param threads_per_rank blocks each rank runs at once, its calling thread included
    /// \param schedule how blocks are assigned to ranks; under dynamic, a rank takes
    ///        threads_per_rank blocks at a time
    /// \throws std::logic_error if MPI is not initialized, or initialized below
    ///         MPI_THREAD_FUNNELED, or if this is not the thread that initialized MPI;
    ///         std::invalid_argument if threads_per_rank is 0
    hybrid_policy(boost::mpi::communicator comm, std::size_t threads_per_rank,
                  mpi_schedule schedule = mpi_schedule::contiguous)
            : mpi_backend(std::move(comm), schedule, make_pool(threads_per_rank), "hybrid_policy") {}

    /// Blocks run at once over all ranks: ranks times threads per rank.
    [[nodiscard]] std::size_t workers() const noexcept { return static_cast<std::size_t>(size()) * local().workers(); }
    /// Blocks each rank runs at once.
    [[nodiscard]] std::size_t threads_per_rank() const noexcept { return local().workers(); }

private:
    static thread_policy make_pool(std::size_t threads) {
        detail::require_mpi("hybrid_policy");
        int provided = MPI_THREAD_SINGLE, is_main = 0;
        MPI_Query_thread(&provided);
        MPI_Is_thread_main(&is_main);
        if (provided < MPI_THREAD_FUNNELED) {
            throw std::logic_error(
                "[chunkwise.mpi] hybrid_policy needs MPI initialized with at least MPI_THREAD_FUNNELED: create "
                "boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled) in main");
        }
        if (provided == MPI_THREAD_FUNNELED && !is_main) {
            throw std::logic_error(
                "[chunkwise.mpi] hybrid_policy must be created and used on the thread that initialized MPI "
                "(MPI_THREAD_FUNNELED)");
        }
        if (threads == 0) {
            throw std::invalid_argument("[chunkwise.mpi] hybrid_policy: threads_per_rank must be at least 1, got 0");
        }
        return thread_policy(threads);
    }
};

static_assert(distributed_policy<mpi_policy>, "chunkwise: mpi_policy must provide every collective hook");
static_assert(distributed_policy<hybrid_policy>, "chunkwise: hybrid_policy must provide every collective hook");

}  // namespace chunkwise
