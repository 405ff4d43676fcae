#pragma once
// Internal: a shared counter of blocks in rank 0's memory (MPI-3 one-sided fetch-and-add): the
// dynamic schedule's next block, and the run-wide progress count.
#include <chunkwise/detail/mpi/check.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <cstdint>

namespace chunkwise::detail {

/// One uint64 in rank 0's memory that every rank adds to. Construction and destruction are
/// collective.
class block_counter {
public:
    explicit block_counter(const boost::mpi::communicator& comm) {
        const MPI_Aint bytes = comm.rank() == 0 ? static_cast<MPI_Aint>(sizeof(std::uint64_t)) : 0;
        check_mpi(MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, comm, &base_, &win_),
                  "MPI_Win_allocate");
        if (comm.rank() == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win_);
            *base_ = 0;
            MPI_Win_unlock(0, win_);
        }
        MPI_Barrier(comm);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    }
    block_counter(const block_counter&) = delete;
    block_counter& operator=(const block_counter&) = delete;
    ~block_counter() {
        MPI_Win_unlock_all(win_);
        MPI_Win_free(&win_);  // collective
    }

    /// Adds `k` and returns the value before.
    std::uint64_t fetch_add(std::uint64_t k) {
        std::uint64_t before = 0;
        check_mpi(MPI_Fetch_and_op(&k, &before, mpi_type<std::uint64_t>(), 0, 0, MPI_SUM, win_), "MPI_Fetch_and_op");
        check_mpi(MPI_Win_flush(0, win_), "MPI_Win_flush");
        return before;
    }
    /// Sets the counter to `v` so that no rank takes another block.
    void exhaust(std::uint64_t v) {
        std::uint64_t before = 0;
        check_mpi(MPI_Fetch_and_op(&v, &before, mpi_type<std::uint64_t>(), 0, 0, MPI_REPLACE, win_),
                  "MPI_Fetch_and_op");
        check_mpi(MPI_Win_flush(0, win_), "MPI_Win_flush");
    }

private:
    std::uint64_t* base_ = nullptr;
    MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace chunkwise::detail
