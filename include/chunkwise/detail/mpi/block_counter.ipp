// The definitions of chunkwise/detail/mpi/block_counter.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the mpi library
// (CHUNKWISE_MPI_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::detail {

CHUNKWISE_MPI_DECL block_counter::block_counter(const boost::mpi::communicator& comm) {
    const MPI_Aint bytes = comm.rank() == 0 ? static_cast<MPI_Aint>(sizeof(std::uint64_t)) : 0;
    check_mpi(MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, comm, &base_, &win_), "MPI_Win_allocate");
    if (comm.rank() == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win_);
        *base_ = 0;
        MPI_Win_unlock(0, win_);
    }
    MPI_Barrier(comm);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
}

CHUNKWISE_MPI_DECL auto block_counter::fetch_add(std::uint64_t k) -> std::uint64_t {
    std::uint64_t before = 0;
    check_mpi(MPI_Fetch_and_op(&k, &before, mpi_type<std::uint64_t>(), 0, 0, MPI_SUM, win_), "MPI_Fetch_and_op");
    check_mpi(MPI_Win_flush(0, win_), "MPI_Win_flush");
    return before;
}

CHUNKWISE_MPI_DECL auto block_counter::exhaust(std::uint64_t v) -> void {
    std::uint64_t before = 0;
    check_mpi(MPI_Fetch_and_op(&v, &before, mpi_type<std::uint64_t>(), 0, 0, MPI_REPLACE, win_), "MPI_Fetch_and_op");
    check_mpi(MPI_Win_flush(0, win_), "MPI_Win_flush");
}

}  // namespace chunkwise::detail
