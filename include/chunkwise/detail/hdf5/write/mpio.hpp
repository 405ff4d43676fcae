#pragma once
// Internal (parallel HDF5 builds only): write_blocks through MPI-IO. Every rank writes its own
// blocks' rows into one dataset in one collective H5Dwrite. Every check that can fail on one rank
// only (its results' shapes, the options) is agreed by all ranks before the first collective
// HDF5 call, and every collective step's outcome is agreed before the next: all ranks throw the
// same h5::error, none waits forever in a collective the others left. The agreements go through
// the policy's own hook (detail::policy_access), never through the MPI layer's internals.
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/types.hpp>
#include <chunkwise/detail/hdf5/write/create.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/partial_results.hpp>

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

template <class T, class Policy, class R>
void write_blocks_collective(Policy& policy, const std::string& f, const std::string& p, partial_results<R>& results,
                             write_options opt) {
    MPI_Comm comm = policy.communicator();
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    auto agree = [&](const std::string& mine) {
        return chunkwise::detail::policy_access::agree_on_problem(policy, mine);
    };
    auto fail_if = [&](const std::string& mine) {
        const std::string agreed = agree(mine);
        if (!agreed.empty()) throw error(f, p, "write_blocks: " + agreed);
    };

    // This rank's blocks (index, rows) and the shape beyond axis 0; agreed before anything else.
    std::string problem;
    std::vector<unsigned long long> mine;
    std::vector<std::size_t> inner;
    for (std::size_t k = 0; k < results.size(); ++k) {
        const auto s = result_shape(results.values()[k]);
        if (k == 0) inner.assign(s.begin() + 1, s.end());
        if (s.size() != inner.size() + 1 || !std::equal(s.begin() + 1, s.end(), inner.begin())) {
            problem = "block results disagree in shape beyond axis 0";
        }
        mine.push_back(results.indices()[k]);
        mine.push_back(s[0]);
    }
    fail_if(problem);
    int my_count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    MPI_Allgather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displs[static_cast<std::size_t>(r)] = total;
        total += counts[static_cast<std::size_t>(r)];
    }
    std::vector<unsigned long long> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), my_count, MPI_UNSIGNED_LONG_LONG, all.data(), counts.data(), displs.data(),
                   MPI_UNSIGNED_LONG_LONG, comm);
    // The shape beyond axis 0, from the lowest rank that holds a block.
    int has = results.size() > 0 ? rank : size, first_with = size;
    MPI_Allreduce(&has, &first_with, 1, MPI_INT, MPI_MIN, comm);
    const int source = first_with < size ? first_with : 0;
    unsigned long long dims = inner.size();
    MPI_Bcast(&dims, 1, MPI_UNSIGNED_LONG_LONG, source, comm);
    std::vector<unsigned long long> inner_all(inner.begin(), inner.end());
    inner_all.resize(static_cast<std::size_t>(dims));
    MPI_Bcast(inner_all.data(), static_cast<int>(dims), MPI_UNSIGNED_LONG_LONG, source, comm);
    if (results.size() > 0 &&
        (inner.size() != inner_all.size() || !std::equal(inner.begin(), inner.end(), inner_all.begin()))) {
        problem = "block results on different ranks disagree in shape beyond axis 0";
    }
    std::vector<std::pair<unsigned long long, unsigned long long>> blocks;
    for (std::size_t i = 0; i + 1 < all.size(); i += 2) blocks.emplace_back(all[i], all[i + 1]);
    std::sort(blocks.begin(), blocks.end());
    std::vector<std::size_t> shape{0};
    for (auto v : inner_all) shape.push_back(static_cast<std::size_t>(v));
    std::vector<std::pair<unsigned long long, hsize_t>> offsets;  // block index -> first row
    for (const auto& [index, rows] : blocks) {
        offsets.emplace_back(index, shape[0]);
        shape[0] += static_cast<std::size_t>(rows);
    }
    if (problem.empty()) {
        try {
            complete_options(opt, shape, sizeof(T), f, p);
        } catch (const error& e) {
            problem = e.what();
        }
    }
    fail_if(problem);

    std::vector<T> buffer;
    for (const R& v : results.values()) buffer.insert(buffer.end(), v.data(), v.data() + v.size());
    int exists = 0;
    if (rank == 0) {
        std::error_code ec;
        exists = std::filesystem::exists(f, ec) ? 1 : 0;
        if (exists) {
            std::size_t bytes = sizeof(T);
            for (std::size_t d : shape) bytes *= d;
            problem = room_problem(f, bytes);
        }
    }
    MPI_Bcast(&exists, 1, MPI_INT, 0, comm);
    fail_if(problem);

    library_lock lock;
    handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL);
    handle fh = exists ? handle(H5Fopen(f.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose)
                       : handle(H5Fcreate(f.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose);
    fail_if(fh.valid() ? std::string() : "cannot open or create the file with MPI-IO: " + last_error());
    if (H5Lexists(fh.get(), p.c_str(), H5P_DEFAULT) > 0) throw error(f, p, "write_blocks: the dataset already exists");
    H5Eclear2(H5E_DEFAULT);

    handle ds;
    // Collective clean-up after a failure every rank agreed on: nothing left that blocks a retry.
    auto abandon = [&](const std::string& why) {
        ds.reset();
        if (!exists) {
            fh.reset();
            MPI_Barrier(comm);
            if (rank == 0) {
                std::error_code ec;
                std::filesystem::remove(f, ec);
            }
        } else if (fh.valid()) {
            H5Ldelete(fh.get(), p.c_str(), H5P_DEFAULT);
            fh.reset();
        }
        throw error(f, p, "write_blocks: " + why);
    };
    auto step = [&](bool ok, const std::string& what) {
        const std::string agreed = agree(ok ? std::string() : what + ": " + last_error());
        if (!agreed.empty()) abandon(agreed);
    };

    std::vector<hsize_t> hshape(shape.begin(), shape.end());
    handle space(H5Screate_simple(static_cast<int>(hshape.size()), hshape.data(), nullptr), H5Sclose);
    handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    step(set_creation_properties(dcpl.get(), opt), "cannot set the chunk shape or filters");
    ds = handle(H5Dcreate2(fh.get(), p.c_str(), native_type<T>(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
                H5Dclose);
    step(ds.valid(), "cannot create the dataset");
    // This rank's rows: the union of its blocks' hyperslabs, written in one collective call.
    handle fspace(H5Dget_space(ds.get()), H5Sclose);
    H5Sselect_none(fspace.get());
    for (std::size_t k = 0; k < results.size(); ++k) {
        const auto it =
            std::lower_bound(offsets.begin(), offsets.end(),
                             std::make_pair(static_cast<unsigned long long>(results.indices()[k]), hsize_t{0}));
        std::vector<hsize_t> start(hshape.size(), 0), count(hshape);
        start[0] = it->second;
        count[0] = result_shape(results.values()[k])[0];
        if (count[0] > 0)
            H5Sselect_hyperslab(fspace.get(), H5S_SELECT_OR, start.data(), nullptr, count.data(), nullptr);
    }
    const hsize_t n = buffer.size();
    handle mspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
    if (n == 0) H5Sselect_none(mspace.get());
    handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
    // A dataset of no elements (every block failed, or all were empty) is created, not written:
    // MPI-IO refuses a collective write of nothing, and the serial build writes it empty too.
    std::size_t elements = 1;
    for (std::size_t d : shape) elements *= d;
    if (elements > 0) {
        step(H5Dwrite(ds.get(), native_type<T>(), mspace.get(), fspace.get(), dxpl.get(), buffer.data()) >= 0,
             "the collective write failed");
    }
    step(ds.close(), "closing the dataset failed (disk full?)");
    step(H5Fflush(fh.get(), H5F_SCOPE_LOCAL) >= 0, "flushing the file failed (disk full?)");
    step(fh.close(), "closing the file failed (disk full?)");
}

}  // namespace chunkwise::h5::detail
