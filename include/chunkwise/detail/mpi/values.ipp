// The definitions of chunkwise/detail/mpi/values.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the mpi library
// (CHUNKWISE_MPI_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::detail {

CHUNKWISE_MPI_DECL std::uint64_t gather_stateless_count(const boost::mpi::communicator& comm, std::size_t mine,
                                                        int root, const std::vector<std::uint64_t>* known_counts) {
    std::uint64_t total = 0;
    if (known_counts != nullptr) {
        for (std::uint64_t c : *known_counts) total += c;
        return total;
    }
    const std::uint64_t count = mine;
    std::vector<std::uint64_t> counts(comm.rank() == root ? static_cast<std::size_t>(comm.size()) : 0);
    check_mpi(MPI_Gather(&count, 1, mpi_type<std::uint64_t>(), counts.data(), 1, mpi_type<std::uint64_t>(), root, comm),
              "MPI_Gather of counts");
    for (std::uint64_t c : counts) total += c;
    return total;
}

}  // namespace chunkwise::detail
