#pragma once
// Internal: a shared counter of blocks in rank 0's memory (MPI-3 one-sided fetch-and-add): the
// dynamic schedule's next block, and the run-wide progress count.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/mpi/check.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <cstdint>

namespace chunkwise::detail {

/// One uint64 in rank 0's memory that every rank adds to. Construction and destruction are
/// collective.
class block_counter {
public:
    explicit block_counter(const boost::mpi::communicator& comm);
    block_counter(const block_counter&) = delete;
    block_counter& operator=(const block_counter&) = delete;
    ~block_counter() {
        MPI_Win_unlock_all(win_);
        MPI_Win_free(&win_);  // collective
    }

    /// Adds `k` and returns the value before.
    std::uint64_t fetch_add(std::uint64_t k);
    /// Sets the counter to `v` so that no rank takes another block.
    void exhaust(std::uint64_t v);

private:
    std::uint64_t* base_ = nullptr;
    MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace chunkwise::detail

#if CHUNKWISE_MPI_HEADER_ONLY
#include <chunkwise/detail/mpi/block_counter.ipp>
#endif
