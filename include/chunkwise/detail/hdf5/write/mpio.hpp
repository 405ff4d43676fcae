#pragma once
// Internal (parallel HDF5 builds only): write_blocks through MPI-IO. Every rank writes its own
// blocks' rows into one dataset in one collective H5Dwrite. Every check that can fail on one rank
// only (its results' shapes, the options) is agreed by all ranks before the first collective
// HDF5 call, and every collective step's outcome is agreed before the next: all ranks throw the
// same h5::error, none waits forever in a collective the others left. The agreements go through
// the policy's own hook (detail::policy_access), never through the MPI layer's internals.
#include <chunkwise/detail/core/policy_access.hpp>
#include <chunkwise/detail/hdf5/attributes.hpp>
#include <chunkwise/detail/hdf5/dimensions.hpp>
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
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// write_blocks through MPI-IO, step by step; every step collective (see the file comment).
template <class T, class Policy, class R>
class collective_writer {
public:
    collective_writer(Policy& policy, const std::string& f, const std::string& p, partial_results<R>& results,
                      write_options opt)
            : policy_(policy), f_(f), p_(p), results_(results), opt_(std::move(opt)), comm_(policy.communicator()) {
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }

    void run() {
        layout();
        open_file();
        create_dataset();
        write_rows();
        step(ds_.close(), "closing the dataset failed (disk full?)");
        step(H5Fflush(fh_.get(), H5F_SCOPE_LOCAL) >= 0, "flushing the file failed (disk full?)");
        step(fh_.close(), "closing the file failed (disk full?)");
    }

private:
    // Every rank's problem agreed: the first one, on every rank ("" where none).
    std::string agree(const std::string& mine) {
        return chunkwise::detail::policy_access::agree_on_problem(policy_, mine);
    }
    void fail_if(const std::string& mine) {
        const std::string agreed = agree(mine);
        if (!agreed.empty()) throw error(f_, p_, "write_blocks: " + agreed);
    }
    // After a failure every rank agreed on: nothing left that blocks a retry (collective).
    [[noreturn]] void abandon(const std::string& why) {
        ds_.reset();
        if (!exists_) {
            fh_.reset();
            MPI_Barrier(comm_);
            if (rank_ == 0) {
                std::error_code ec;
                std::filesystem::remove(f_, ec);
            }
        } else if (fh_.valid()) {
            H5Ldelete(fh_.get(), p_.c_str(), H5P_DEFAULT);
            fh_.reset();
        }
        throw error(f_, p_, "write_blocks: " + why);
    }
    void step(bool ok, const std::string& what) {
        const std::string agreed = agree(ok ? std::string() : what + ": " + last_error());
        if (!agreed.empty()) abandon(agreed);
    }

    // Every rank's blocks (index, rows) and the shape beyond axis 0, agreed before anything else:
    // the dataset's shape, each block's first row, the options completed.
    void layout() {
        std::string problem;
        std::vector<unsigned long long> mine;
        std::vector<std::size_t> inner;
        for (std::size_t k = 0; k < results_.size(); ++k) {
            const auto s = result_shape(results_.values()[k]);
            if (k == 0) inner.assign(s.begin() + 1, s.end());
            if (s.size() != inner.size() + 1 || !std::equal(s.begin() + 1, s.end(), inner.begin())) {
                problem = "block results disagree in shape beyond axis 0";
            }
            mine.push_back(results_.indices()[k]);
            mine.push_back(s[0]);
        }
        fail_if(problem);
        const std::vector<unsigned long long> all = all_gathered(mine);
        const std::vector<unsigned long long> inner_all = shared_inner_shape(inner);
        if (results_.size() > 0 &&
            (inner.size() != inner_all.size() || !std::equal(inner.begin(), inner.end(), inner_all.begin()))) {
            problem = "block results on different ranks disagree in shape beyond axis 0";
        }
        std::vector<std::pair<unsigned long long, unsigned long long>> blocks;
        for (std::size_t i = 0; i + 1 < all.size(); i += 2) blocks.emplace_back(all[i], all[i + 1]);
        std::sort(blocks.begin(), blocks.end());
        shape_.assign(1, 0);
        for (auto v : inner_all) shape_.push_back(static_cast<std::size_t>(v));
        for (const auto& [index, rows] : blocks) {
            offsets_.emplace_back(index, shape_[0]);
            shape_[0] += static_cast<std::size_t>(rows);
        }
        if (problem.empty()) {
            try {
                complete_options(opt_, shape_, sizeof(T), f_, p_);
            } catch (const error& e) {
                problem = e.what();
            }
        }
        fail_if(problem);
    }

    // Every rank's numbers, in rank order, on every rank.
    std::vector<unsigned long long> all_gathered(const std::vector<unsigned long long>& mine) {
        int my_count = static_cast<int>(mine.size());
        std::vector<int> counts(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
        MPI_Allgather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
        int total = 0;
        for (int r = 0; r < size_; ++r) {
            displs[static_cast<std::size_t>(r)] = total;
            total += counts[static_cast<std::size_t>(r)];
        }
        std::vector<unsigned long long> all(static_cast<std::size_t>(total));
        MPI_Allgatherv(mine.data(), my_count, MPI_UNSIGNED_LONG_LONG, all.data(), counts.data(), displs.data(),
                       MPI_UNSIGNED_LONG_LONG, comm_);
        return all;
    }

    // The shape beyond axis 0, from the lowest rank that holds a block.
    std::vector<unsigned long long> shared_inner_shape(const std::vector<std::size_t>& inner) {
        int has = results_.size() > 0 ? rank_ : size_, first_with = size_;
        MPI_Allreduce(&has, &first_with, 1, MPI_INT, MPI_MIN, comm_);
        const int source = first_with < size_ ? first_with : 0;
        unsigned long long dims = inner.size();
        MPI_Bcast(&dims, 1, MPI_UNSIGNED_LONG_LONG, source, comm_);
        std::vector<unsigned long long> inner_all(inner.begin(), inner.end());
        inner_all.resize(static_cast<std::size_t>(dims));
        MPI_Bcast(inner_all.data(), static_cast<int>(dims), MPI_UNSIGNED_LONG_LONG, source, comm_);
        return inner_all;
    }

    // The file, opened or created with MPI-IO (room for the data checked first where it exists);
    // a dataset at the path refused, or unlinked where write_mode::replace asks.
    void open_file() {
        if (opt_.mode == write_mode::append || opt_.mode == write_mode::update)  // the same on every rank
            throw error(f_, p_,
                        std::string("write_blocks: write_mode::") + mode_name(opt_.mode) +
                            " goes through the root (h5::write_blocks gathers): the collective write makes a new "
                            "dataset (write_mode::create or replace)");
        std::string problem;
        int exists = 0;
        if (rank_ == 0) {
            std::error_code ec;
            exists = std::filesystem::exists(f_, ec) ? 1 : 0;
            if (exists) problem = room_problem(f_, sizeof(T), shape_);
        }
        MPI_Bcast(&exists, 1, MPI_INT, 0, comm_);
        exists_ = exists != 0;
        fail_if(problem);
        lock_.emplace();
        handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
        H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL);
        fh_ = exists_ ? handle(H5Fopen(f_.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose)
                      : handle(H5Fcreate(f_.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose);
        fail_if(fh_.valid() ? std::string() : "cannot open or create the file with MPI-IO: " + last_error());
        if (const std::string why = dimensions_conflict(fh_.get(), p_, opt_.dimensions, shape_); !why.empty())
            throw error(f_, p_, "write_blocks: dimension names: " + why);
        if (H5Lexists(fh_.get(), p_.c_str(), H5P_DEFAULT) > 0) {
            if (opt_.mode != write_mode::replace)
                throw error(f_, p_,
                            "write_blocks: the dataset already exists: not overwritten (write_mode::create; ask for "
                            "write_mode::replace to replace it)");
            detach_dimensions(fh_.get(), p_);
            fail_if(H5Ldelete(fh_.get(), p_.c_str(), H5P_DEFAULT) >= 0
                        ? std::string()
                        : "cannot remove the old dataset: " + last_error());
        }
        H5Eclear2(H5E_DEFAULT);
    }

    void create_dataset() {
        hshape_.assign(shape_.begin(), shape_.end());
        std::vector<hsize_t> most = hshape_;
        if (opt_.growable) most[0] = H5S_UNLIMITED;
        handle space(H5Screate_simple(static_cast<int>(hshape_.size()), hshape_.data(), most.data()), H5Sclose);
        handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
        handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        H5Pset_create_intermediate_group(lcpl.get(), 1);
        step(set_creation_properties(dcpl.get(), opt_), "cannot set the chunk shape or filters");
        ds_ = handle(
            H5Dcreate2(fh_.get(), p_.c_str(), native_type<T>(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
            H5Dclose);
        step(ds_.valid(), "cannot create the dataset");
        std::string bad_attribute;  // attribute writes are collective in parallel HDF5: every rank makes them
        try {
            write_attributes(ds_.get(), opt_.attributes, f_, p_);
            attach_dimensions(fh_.get(), ds_.get(), f_, p_, opt_.dimensions, shape_, opt_.growable);
        } catch (const error& e) {
            const std::string w = e.what(), head = "[chunkwise.h5] " + f_ + ":" + p_ + ": ";
            bad_attribute = w.rfind(head, 0) == 0 ? w.substr(head.size()) : w;  // abandon() names file and dataset
        }
        const std::string agreed = agree(bad_attribute);
        if (!agreed.empty()) abandon(agreed);
    }

    // This rank's rows: the union of its blocks' hyperslabs, written in one collective call. A
    // dataset of no elements (every block failed, or all were empty) is created, not written:
    // MPI-IO refuses a collective write of nothing, and the serial build writes it empty too.
    void write_rows() {
        std::vector<T> buffer;
        for (const R& v : results_.values()) buffer.insert(buffer.end(), v.data(), v.data() + v.size());
        handle fspace(H5Dget_space(ds_.get()), H5Sclose);
        H5Sselect_none(fspace.get());
        for (std::size_t k = 0; k < results_.size(); ++k) {
            const auto it =
                std::lower_bound(offsets_.begin(), offsets_.end(),
                                 std::make_pair(static_cast<unsigned long long>(results_.indices()[k]), hsize_t{0}));
            std::vector<hsize_t> start(hshape_.size(), 0), count(hshape_);
            start[0] = it->second;
            count[0] = result_shape(results_.values()[k])[0];
            if (count[0] > 0)
                H5Sselect_hyperslab(fspace.get(), H5S_SELECT_OR, start.data(), nullptr, count.data(), nullptr);
        }
        const hsize_t n = buffer.size();
        handle mspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
        if (n == 0) H5Sselect_none(mspace.get());
        handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
        H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
        std::size_t elements = 1;
        for (std::size_t d : shape_) elements *= d;
        if (elements > 0) {
            step(H5Dwrite(ds_.get(), native_type<T>(), mspace.get(), fspace.get(), dxpl.get(), buffer.data()) >= 0,
                 "the collective write failed");
        }
    }

    Policy& policy_;
    const std::string& f_;
    const std::string& p_;
    partial_results<R>& results_;
    write_options opt_;
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
    bool exists_ = false;
    std::vector<std::size_t> shape_;
    std::vector<hsize_t> hshape_;
    std::vector<std::pair<unsigned long long, hsize_t>> offsets_;  // block index -> first row
    std::optional<library_lock> lock_;                             // held from the first HDF5 call on
    handle fh_, ds_;
};

/// write_blocks through MPI-IO: every rank writes its own blocks' rows into one dataset in one
/// collective H5Dwrite (see the file comment). \throws h5::error, the same on every rank
template <class T, class Policy, class R>
void write_blocks_collective(Policy& policy, const std::string& f, const std::string& p, partial_results<R>& results,
                             write_options opt) {
    collective_writer<T, Policy, R>(policy, f, p, results, std::move(opt)).run();
}

}  // namespace chunkwise::h5::detail
