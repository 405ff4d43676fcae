#pragma once
// Internal: moving flat arrays of one MPI type between ranks, split into several messages above
// max_message_bytes (MPI counts are int). Receive buffers are allocated before any element
// travels, and the ranks settle a failure to allocate before the transfer (agree.hpp).
#include <chunkwise/detail/mpi/agree.hpp>
#include <chunkwise/detail/mpi/check.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace chunkwise::detail {

/// Largest message (bytes) sent in one MPI call; larger transfers are split. Only tests lower it.
inline std::size_t max_message_bytes = static_cast<std::size_t>(INT_MAX);

/// Concatenation of every rank's `mine` on `root` in rank order (empty elsewhere); `counts`
/// receives each rank's element count on root. Where every rank already knows every rank's count,
/// pass them as `known` (same on all ranks) to save a collective. The ranks settle the root's
/// allocation (and every rank's "transfer" step) before any element moves. Collective.
template <class T>
std::vector<T> gather_raw(const boost::mpi::communicator& comm, std::span<const T> mine, int root,
                          std::vector<std::uint64_t>& counts, const std::vector<std::uint64_t>* known = nullptr) {
    const int size = comm.size();
    const int rank = comm.rank();
    std::uint64_t total = 0;
    if (known != nullptr) {
        counts = rank == root ? *known : std::vector<std::uint64_t>();
        for (std::uint64_t c : *known) total += c;
    } else {
        const std::uint64_t my_count = mine.size();
        counts.assign(rank == root ? static_cast<std::size_t>(size) : 0, 0);
        check_mpi(MPI_Gather(&my_count, 1, mpi_type<std::uint64_t>(), counts.data(), 1, mpi_type<std::uint64_t>(), root,
                             comm),
                  "MPI_Gather of counts");
        for (std::uint64_t c : counts) total += c;
    }
    std::vector<T> out;
    const std::string problem = attempt(rank, "transfer", [&] {
        if (rank == root) out.resize(static_cast<std::size_t>(total));
    });
    // One allreduce: every rank learns the total (from the root) and whether any rank failed.
    std::uint64_t send[2] = {rank == root ? total : 0, problem.empty() ? 0u : 1u}, got[2] = {0, 0};
    check_mpi(MPI_Allreduce(send, got, 2, mpi_type<std::uint64_t>(), MPI_MAX, comm), "MPI_Allreduce");
    if (got[1] != 0) settle(comm, problem, "allocating what it receives failed");
    total = got[0];
    const std::size_t limit_elems = std::max<std::size_t>(1, max_message_bytes / sizeof(T));

    if (total <= limit_elems) {
        std::vector<int> icounts, displs;
        if (rank == root) {
            icounts.resize(static_cast<std::size_t>(size));
            displs.resize(static_cast<std::size_t>(size));
            int pos = 0;
            for (int r = 0; r < size; ++r) {
                icounts[static_cast<std::size_t>(r)] = static_cast<int>(counts[static_cast<std::size_t>(r)]);
                displs[static_cast<std::size_t>(r)] = pos;
                pos += icounts[static_cast<std::size_t>(r)];
            }
        }
        check_mpi(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), mpi_type<T>(), out.data(), icounts.data(),
                              displs.data(), mpi_type<T>(), root, comm),
                  "MPI_Gatherv");
        return out;
    }
    // Too large for int counts: each rank sends pieces of at most limit_elems to root in turn.
    constexpr int tag = 0x6377;  // "cw"
    if (rank == root) {
        std::size_t pos = 0;
        for (int r = 0; r < size; ++r) {
            const std::size_t n = static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
            if (r == root) {
                std::copy(mine.begin(), mine.end(), out.begin() + static_cast<std::ptrdiff_t>(pos));
            } else {
                for (std::size_t off = 0; off < n; off += limit_elems) {
                    const int piece = static_cast<int>(std::min(limit_elems, n - off));
                    check_mpi(MPI_Recv(out.data() + pos + off, piece, mpi_type<T>(), r, tag, comm, MPI_STATUS_IGNORE),
                              "MPI_Recv");
                }
            }
            pos += n;
        }
    } else {
        for (std::size_t off = 0; off < mine.size(); off += limit_elems) {
            const int piece = static_cast<int>(std::min(limit_elems, mine.size() - off));
            check_mpi(MPI_Send(mine.data() + off, piece, mpi_type<T>(), root, tag, comm), "MPI_Send");
        }
    }
    return out;
}

/// Sends root's `buf` (resized elsewhere) to every rank, in pieces when large. The ranks settle
/// the allocation of the receive buffer before the elements travel. Collective.
template <class T>
void broadcast_raw(const boost::mpi::communicator& comm, std::vector<T>& buf, int root) {
    std::uint64_t n = buf.size();
    check_mpi(MPI_Bcast(&n, 1, mpi_type<std::uint64_t>(), root, comm), "MPI_Bcast of a size");
    settle(comm, attempt(comm.rank(), "transfer", [&] { buf.resize(static_cast<std::size_t>(n)); }),
           "allocating what it receives failed");
    const std::size_t limit_elems = std::max<std::size_t>(1, max_message_bytes / sizeof(T));
    for (std::size_t off = 0; off < buf.size(); off += limit_elems) {
        const int piece = static_cast<int>(std::min(limit_elems, buf.size() - off));
        check_mpi(MPI_Bcast(buf.data() + off, piece, mpi_type<T>(), root, comm), "MPI_Bcast");
    }
}

}  // namespace chunkwise::detail
