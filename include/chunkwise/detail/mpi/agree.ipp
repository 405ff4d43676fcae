// The definitions of chunkwise/detail/mpi/agree.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the mpi library
// (CHUNKWISE_MPI_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::detail {

CHUNKWISE_MPI_DECL std::string agree_on_problem(MPI_Comm comm, const std::string& mine) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const int me = mine.empty() ? INT_MAX : rank;
    int lowest = INT_MAX;
    check_mpi(MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (lowest == INT_MAX) return {};
    unsigned long long length = rank == lowest ? mine.size() : 0;
    check_mpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, lowest, comm), "MPI_Bcast");
    std::string text(static_cast<std::size_t>(length), '\0');
    if (rank == lowest) text = mine;
    if (length > 0) check_mpi(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, lowest, comm), "MPI_Bcast");
    return text + " (rank " + std::to_string(lowest) + ")";
}

CHUNKWISE_MPI_DECL void settle(MPI_Comm comm, const std::string& mine, const char* what) {
    const std::string agreed = agree_on_problem(comm, mine);
    if (!agreed.empty()) {
        throw error(std::string("[chunkwise.mpi] ") + current_collective + ": " + what + ": " + agreed);
    }
}

CHUNKWISE_MPI_DECL void settle_root(MPI_Comm comm, int rank, int root, std::string mine, const char* what) {
    unsigned long long length = rank == root ? mine.size() : 0;
    check_mpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm), "MPI_Bcast");
    if (length == 0) return;
    mine.resize(static_cast<std::size_t>(length));
    check_mpi(MPI_Bcast(mine.data(), static_cast<int>(length), MPI_CHAR, root, comm), "MPI_Bcast");
    throw error(std::string("[chunkwise.mpi] ") + current_collective + ": " + what + ": " + mine + " (rank " +
                std::to_string(root) + ")");
}

CHUNKWISE_MPI_DECL std::pair<bool, bool> agree_on_call(MPI_Comm comm, const char* name, std::uint64_t call,
                                                       std::uint64_t blocks, long long detail, bool flag_a, bool flag_b,
                                                       const std::string& problem) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::string local_problem = problem;
    if (local_problem.empty()) local_problem = attempt(rank, "agree", [] {});
    const long long key = static_cast<long long>(fnv1a(name) >> 1);
    const long long mine[4] = {key, static_cast<long long>(call), static_cast<long long>(blocks), detail};
    long long send[11] = {mine[0],
                          mine[1],
                          mine[2],
                          mine[3],
                          -mine[0],
                          -mine[1],
                          -mine[2],
                          -mine[3],
                          flag_a ? 1 : 0,
                          flag_b ? 1 : 0,
                          local_problem.empty() ? 0 : 1};
    long long got[11];
    check_mpi(MPI_Allreduce(send, got, 11, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce");
    bool same = true;
    for (int i = 0; i < 4; ++i) same = same && got[i] == -got[i + 4];
    if (!same) {
        // Who did what, for the message (every rank saw the difference and gets here).
        constexpr int name_bytes = 48;
        char my_name[name_bytes] = {};
        std::strncpy(my_name, name, name_bytes - 1);
        std::vector<long long> all(static_cast<std::size_t>(size) * 4);
        std::vector<char> names(static_cast<std::size_t>(size) * name_bytes);
        check_mpi(MPI_Allgather(mine, 4, MPI_LONG_LONG, all.data(), 4, MPI_LONG_LONG, comm), "MPI_Allgather");
        check_mpi(MPI_Allgather(my_name, name_bytes, MPI_CHAR, names.data(), name_bytes, MPI_CHAR, comm),
                  "MPI_Allgather");
        auto describe = [&](int r) {
            const long long* v = &all[static_cast<std::size_t>(r) * 4];
            const std::string n(&names[static_cast<std::size_t>(r) * name_bytes]);
            std::string d = n;
            if (n == "map_blocks") {
                d += " (call " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
                     " blocks, on_error::" + (v[3] == 1 ? "collect" : "fail_fast") + ")";
            } else if (v[1] != 0 || v[2] != 0) {
                d += " of the results of map_blocks call " + std::to_string(v[1]) + " (" + std::to_string(v[2]) +
                     " blocks)";
            }
            return d;
        };
        std::string text = "ranks disagree on the collective call: ";
        std::string previous;
        int from = 0;
        for (int r = 0; r <= size; ++r) {
            const std::string d = r < size ? describe(r) : std::string();
            if (r == size || (r > 0 && d != previous)) {
                text += (from == 0 ? "" : "; ") +
                        std::string(from == r - 1 ? "rank " + std::to_string(from)
                                                  : "ranks " + std::to_string(from) + "-" + std::to_string(r - 1)) +
                        " called " + previous;
                from = r;
            }
            previous = d;
        }
        throw std::invalid_argument("[chunkwise.mpi] " + text +
                                    ". Every rank must make the same collective calls in the same order, on "
                                    "results of the same map_blocks call, with the same on_error.");
    }
    if (got[10] != 0) {
        const std::string agreed = agree_on_problem(comm, local_problem);
        throw error(std::string("[chunkwise.mpi] ") + name + ": " + agreed);
    }
    return {got[8] != 0, got[9] != 0};
}

CHUNKWISE_MPI_DECL void check_same(MPI_Comm comm, const char* what, const std::string& value) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const long long h = static_cast<long long>(fnv1a(value) >> 1);
    const long long send[2] = {h, -h};
    long long got[2];
    check_mpi(MPI_Allreduce(send, got, 2, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce");
    if (got[0] == -got[1]) return;
    const int length = static_cast<int>(value.size());
    std::vector<int> lengths(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm), "MPI_Allgather");
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displs[static_cast<std::size_t>(r)] = total;
        total += lengths[static_cast<std::size_t>(r)];
    }
    std::vector<char> all(static_cast<std::size_t>(total) + 1);
    check_mpi(MPI_Allgatherv(value.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, comm),
              "MPI_Allgatherv");
    std::string text = std::string("[chunkwise.mpi] ") + current_collective + ": ranks pass different " + what +
                       " (every rank must pass the same): ";
    for (int r = 0; r < size; ++r) {
        text += (r ? "; " : "") + std::string("rank ") + std::to_string(r) + " '" +
                std::string(all.data() + displs[static_cast<std::size_t>(r)],
                            static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])) +
                "'";
    }
    throw std::invalid_argument(text);
}

}  // namespace chunkwise::detail
