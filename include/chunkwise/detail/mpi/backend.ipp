// The definitions of chunkwise/detail/mpi/backend.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the mpi library
// (CHUNKWISE_MPI_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise {
namespace detail {

CHUNKWISE_MPI_DECL mpi_backend_core::mpi_backend_core(boost::mpi::communicator comm, mpi_schedule schedule,
                                                      const char* who)
        : comm_((require_mpi(who), std::move(comm))), rank_(comm_.rank()), size_(comm_.size()), schedule_(schedule) {}

CHUNKWISE_MPI_DECL auto mpi_backend_core::begin_map_blocks(std::size_t n, on_error mode, bool progress,
                                                           const std::string& problem) -> call_start {
    collective_scope scope("map_blocks");
    call_start start;
    start.call = calls_ + 1;  // counted only once every rank agreed: a refused call is no call
    const auto [any_progress, any_problem] = detail::agree_on_call(
        comm_, "map_blocks", start.call, n, mode == on_error::collect ? 1 : 0, progress, !problem.empty());
    if (any_problem) throw_agreed(detail::agree_on_problem(comm_, problem));
    calls_ = start.call;
    if (any_progress) progress_ = std::make_unique<block_counter>(comm_);
    start.progress = any_progress;
    return start;
}

CHUNKWISE_MPI_DECL auto mpi_backend_core::gather_stats(const run_stats& stats) -> std::vector<run_stats> {
    collective_scope scope("gather_stats");
    agree_on_call("gather_stats", 0, 0, 0);
    // Each rank sends: rank, wall, from_checkpoint, save failures, workers, then per worker
    // busy, read, wait, combine, blocks, lock_wait, lock_held, read_bytes, cpu, run_delay (counts are exact in
    // a double up to 2^53); and its host name.
    constexpr std::size_t per_worker = 10;
    std::vector<double> mine;
    std::vector<char> host;
    settle(comm_,
           attempt(rank_, "serialize",
                   [&] {
                       mine = {static_cast<double>(stats.rank), stats.wall, static_cast<double>(stats.from_checkpoint),
                               static_cast<double>(stats.checkpoint_save_failures),
                               static_cast<double>(stats.workers.size())};
                       for (const worker_stats& w : stats.workers) {
                           mine.insert(mine.end(), {w.busy, w.read, w.wait, w.combine, static_cast<double>(w.blocks),
                                                    w.lock_wait, w.lock_held, w.read_bytes, w.cpu, w.run_delay});
                       }
                       const std::string& name = stats.host.empty() ? this_host() : stats.host;
                       host.assign(name.begin(), name.end());
                   }),
           "encoding the statistics failed");
    std::vector<std::uint64_t> counts, host_counts;
    const std::vector<double> all = gather_raw<double>(comm_, mine, 0, counts);
    const std::vector<char> hosts = gather_raw<char>(comm_, host, 0, host_counts);
    std::vector<run_stats> out;
    std::string decoded;
    if (rank_ == 0) {
        decoded = attempt(rank_, "deserialize", [&] {
            std::size_t at = 0, host_at = 0;
            for (std::size_t r = 0; r < counts.size(); ++r) {
                const std::uint64_t count = counts[r];
                const double* v = all.data() + at;
                run_stats s;
                s.rank = static_cast<int>(v[0]);
                s.host.assign(hosts.data() + host_at, static_cast<std::size_t>(host_counts[r]));
                host_at += static_cast<std::size_t>(host_counts[r]);
                s.wall = v[1];
                s.from_checkpoint = static_cast<std::size_t>(v[2]);
                s.checkpoint_save_failures = static_cast<std::size_t>(v[3]);
                s.workers.resize(static_cast<std::size_t>(v[4]));
                for (std::size_t w = 0; w < s.workers.size(); ++w) {
                    const double* x = v + 5 + per_worker * w;
                    s.workers[w] = worker_stats{x[0], x[1], x[2], x[3], static_cast<std::size_t>(x[4]),
                                                x[5], x[6], x[7], x[8], x[9]};
                }
                out.push_back(std::move(s));
                at += static_cast<std::size_t>(count);
            }
        });
    }
    settle_root(comm_, rank_, 0, decoded, "decoding the statistics failed");
    return out;
}

CHUNKWISE_MPI_DECL auto mpi_backend_core::share(std::size_t n, int r) const -> std::pair<std::size_t, std::size_t> {
    const std::size_t ranks = static_cast<std::size_t>(size_);
    const std::size_t k = n < ranks ? n : ranks;
    const std::size_t ur = static_cast<std::size_t>(r);
    if (ur >= k) return {n, n};
    const std::size_t base = n / k, extra = n % k;
    const std::size_t first = ur * base + std::min(ur, extra);
    return {first, first + base + (ur < extra ? 1 : 0)};
}

CHUNKWISE_MPI_DECL auto mpi_backend_core::agree_on_failure(exec_result& r) -> void {
    struct {
        long index;
        int rank;
    } mine{LONG_MAX, rank_}, lowest{LONG_MAX, 0};
    if (!r.failures.empty()) mine.index = static_cast<long>(r.failures.front().index);
    check_mpi(MPI_Allreduce(&mine, &lowest, 1, MPI_LONG_INT, MPI_MINLOC, comm_), "MPI_Allreduce");
    if (lowest.index == LONG_MAX) return;
    std::string message;
    std::exception_ptr error;
    if (lowest.rank == rank_) {
        message = r.failures.front().message;
        error = r.failures.front().error;
    }
    unsigned long long length = message.size();
    check_mpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, lowest.rank, comm_), "MPI_Bcast");
    message.resize(static_cast<std::size_t>(length));
    if (length > 0) {
        check_mpi(MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, lowest.rank, comm_), "MPI_Bcast");
    }
    r.failures.assign(
        1, failure_record{static_cast<std::size_t>(lowest.index), lowest.rank, std::move(message), std::move(error)});
}

}  // namespace detail
}  // namespace chunkwise
