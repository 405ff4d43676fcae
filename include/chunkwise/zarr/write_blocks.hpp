#pragma once
/// \file
/// `chunkwise::zarr::write_blocks`: every worker's block results into one new Zarr array, written
/// where they were computed: threads write their chunk files at once; under MPI rank 0 writes the
/// metadata, then every rank writes the chunks it owns. No lock, no MPI-IO.

#include <chunkwise/zarr/write.hpp>

#include <cstddef>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr {

namespace detail {

/// Where each block's rows go: block index, rank, first row, rows (in block order).
struct block_place {
    std::size_t index, rank, row0, rows;
};

/// The slabs `mine` (this process's results) and `pieces` (rows of other processes' blocks in
/// grid rows this process owns) give for the grid rows this process owns.
template <class T>
std::vector<slab<T>> owned_slabs(const std::vector<block_place>& places, const std::vector<const T*>& data,
                                 const std::vector<bool>& local) {
    std::vector<slab<T>> out;
    for (std::size_t k = 0; k < places.size(); ++k)
        if (local[k] && places[k].rows > 0) out.push_back({places[k].row0, places[k].rows, data[k]});
    return out;
}

/// Runs `step` on the root; every process returns once it is done, or throws: the root its own
/// error, the others a zarr::error saying what the root could not do (under MPI an agreement).
template <class Policy, class Step>
void root_step(Policy& policy, const std::string& store, const std::string& what, Step&& step) {
    std::exception_ptr failed;
    std::string problem;
    if (policy.is_root()) {
        try {
            step();
        } catch (const std::exception& e) {
            failed = std::current_exception();
            problem = e.what();
        }
    }
    if constexpr (distributed_policy<Policy>)
        problem = chunkwise::detail::policy_access::agree_on_problem(policy, problem);
    if (failed) std::rethrow_exception(failed);
    if (!problem.empty()) throw error(store, "", "write_blocks: the root " + what + ": " + problem);
}

/// zarr::write_blocks, phase by phase (see its comment); under MPI every phase is collective.
template <class Policy, class R>
class blocks_writer {
public:
    using T = std::remove_cv_t<typename R::value_type>;
    static constexpr bool distributed = distributed_policy<Policy>;

    blocks_writer(Policy& policy, const std::filesystem::path& path, partial_results<R>& results,
                  const write_options& opt)
            : policy_(policy), path_(path), store_(path.string()), results_(results), opt_(opt) {
        if constexpr (distributed) me_ = static_cast<std::size_t>(policy.rank());
    }

    void run() {
        if constexpr (distributed) agree_on_call();
        learn_places();
        if (opt_.mode == write_mode::append || opt_.mode == write_mode::update) {
            run_existing();
            return;
        }
        p_ = make_plan<T>(store_, shape_, opt_);
        // The root prepares the store (marked unfinished until its metadata is written, last).
        root_step(policy_, store_, "could not prepare the store",
                  [&] { created_ = prepare_store(store_, p_.mode, hold_); });
        assign_owners();
        slabs_ = owned_slabs<T>(places_, data_, local_);
        if constexpr (distributed) exchange_shared_rows();
        write_owned();
        finish();
    }

private:
    // append, update: the rows go into the array there, from its end or first_row. The root holds slot 0 of the
    // store's lock (exclusive for an append) until the new extent is written; every process checks the array, then
    // writes the grid rows it owns, each merged with the array's rows it keeps under the grid row's lock.
    void run_existing() {
        constexpr char kind = numpy_kind<T>();
        root_step(policy_, store_, "could not lock the array", [&] {
            if (!std::filesystem::is_directory(store_)) (void)open_existing(store_, shape_, kind, sizeof(T), opt_);
            hold_.open(store_);
            hold_.lock(0, opt_.mode == write_mode::append);
        });
        existing_array e;
        std::string problem;
        std::exception_ptr mine;
        try {
            e = open_existing(store_, shape_, kind, sizeof(T), opt_);
            p_ = make_plan<T>(store_, e.new_shape, e.options);
            check_encoding(store_, e,
                           metadata_text<T>(e.shape, p_.grid, p_.chunk, p_.enc, p_.format, p_.sharded).second, opt_);
            now_ = extended_state(store_, e.new_shape[0]);
        } catch (const std::exception& x) {
            mine = std::current_exception();
            problem = x.what();
        }
        if constexpr (distributed) problem = chunkwise::detail::policy_access::agree_on_problem(policy_, problem);
        if (mine) std::rethrow_exception(mine);
        if (!problem.empty()) throw error(store_, "", "write_blocks failed on another rank: " + problem);
        offset_ = e.first_row;
        for (block_place& place : places_) place.row0 += offset_;
        assign_owners();
        slabs_ = owned_slabs<T>(places_, data_, local_);
        if constexpr (distributed) exchange_shared_rows();
        write_owned();
        if (first_) std::rethrow_exception(first_);  // the array stays: what was written is at rows it may hold
        if (!agreed_.empty()) throw error(store_, "", "write_blocks failed on another rank: " + agreed_);
        root_step(policy_, store_, "could not write the new extent", [&] {
            if (opt_.mode == write_mode::append) write_extent(store_, e);
            hold_.release();
            if (!opt_.attributes.empty()) set_attributes(store_, opt_.attributes);
        });
    }

    // Grid row g: written from the slabs (create, replace); in an append or update, under its lock, merged with the
    // array's rows of it that this write keeps (a worker's own lock: threads exclude each other as processes do).
    void write_row(std::size_t g) {
        if (!now_) {
            write_grid_row<T>(store_, p_, slabs_, g);
            return;
        }
        store_lock lock(store_);  // this worker's own
        merge_grid_row<T>(store_, p_, *now_, lock, g, offset_, offset_ + shape_[0], slabs_);
    }

    // The same call, store and options on every rank, or every rank throws naming each value.
    void agree_on_call() {
        using access = chunkwise::detail::policy_access;
        access::agree_on_call(policy_, "zarr::write_blocks", results_.call_id(), results_.total_blocks());
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(path_, ec).lexically_normal();
        access::check_same(policy_, "stores", ec ? store_ : absolute.string());
        access::check_same(policy_, "write_options", options_text(opt_));
    }

    // Every process learns every block's rank and rows (an all_gather of a few numbers): where
    // each block's rows go, and the array's shape.
    void learn_places() {
        std::vector<std::vector<std::size_t>> mine;
        for (std::size_t k = 0; k < results_.size(); ++k) {
            const auto s = chunkwise::detail::result_shape(results_.values()[k]);
            std::vector<std::size_t> v{results_.indices()[k], me_};
            v.insert(v.end(), s.begin(), s.end());
            mine.push_back(std::move(v));
        }
        std::vector<std::vector<std::size_t>> all;
        if constexpr (distributed) {
            partial_results<std::vector<std::size_t>> shapes(results_.total_blocks(), results_.indices(), mine, {});
            all = chunkwise::all_gather(policy_, std::move(shapes));
        } else {
            all = mine;
        }
        std::size_t rows = 0, at_local = 0;
        for (const auto& v : all) {
            const std::vector<std::size_t> s(v.begin() + 2, v.end());
            if (places_.empty()) inner_.assign(s.begin() + 1, s.end());
            if (s.size() != inner_.size() + 1 || !std::equal(s.begin() + 1, s.end(), inner_.begin()))
                throw error(store_, "", "write_blocks: block results disagree in shape beyond axis 0");
            places_.push_back({v[0], v[1], rows, s[0]});
            const bool here = v[1] == me_;
            local_.push_back(here);
            data_.push_back(here ? results_.values()[at_local++].data() : nullptr);
            rows += s[0];
        }
        shape_ = {rows};
        shape_.insert(shape_.end(), inner_.begin(), inner_.end());
    }

    // Who owns each grid row: the process holding the block that holds its first row.
    void assign_owners() {
        unit_ = p_.grid[0];
        const std::size_t end = offset_ + shape_[0];
        const std::size_t grid_rows = shape_[0] == 0 ? 0 : (end + unit_ - 1) / unit_;
        owner_.assign(grid_rows, 0);
        for (std::size_t g = offset_ / unit_, k = 0; g < grid_rows; ++g) {
            while (places_[k].row0 + places_[k].rows <= g * unit_) ++k;
            owner_[g] = places_[k].rank;
        }
    }

    // Calls f(first row, end row, owner) for each run of block k's rows within one grid row.
    template <class F>
    void runs_of(std::size_t k, F&& f) const {
        const std::size_t end_all = places_[k].row0 + places_[k].rows;
        for (std::size_t r = places_[k].row0; r < end_all;) {
            const std::size_t g = r / unit_, end = std::min((g + 1) * unit_, end_all);
            f(r, end, owner_[g]);
            r = end;
        }
    }

    // Rows of this rank's blocks in grid rows another rank owns go to every rank (few: none for
    // blocks aligned to the grid rows); each owner takes those that fall in its rows.
    void exchange_shared_rows() {
        std::size_t row_values = 1;
        for (std::size_t e : inner_) row_values *= e;
        std::vector<std::vector<T>> sent;
        for (std::size_t k = 0; k < places_.size(); ++k) {
            if (!local_[k]) continue;
            std::vector<T> piece;
            runs_of(k, [&](std::size_t r, std::size_t end, std::size_t owner) {
                if (owner == me_) return;
                const T* from = data_[k] + (r - places_[k].row0) * row_values;
                piece.insert(piece.end(), from, from + (end - r) * row_values);
            });
            sent.push_back(std::move(piece));
        }
        partial_results<std::vector<T>> out(results_.total_blocks(), results_.indices(), std::move(sent), {});
        pieces_ = chunkwise::all_gather(policy_, std::move(out));
        for (std::size_t k = 0; k < places_.size(); ++k) {
            if (local_[k]) continue;
            std::size_t used = 0;
            runs_of(k, [&](std::size_t r, std::size_t end, std::size_t owner) {
                if (owner == places_[k].rank) return;
                if (owner == me_) slabs_.push_back({r, end - r, pieces_[k].data() + used * row_values});
                used += end - r;
            });
        }
    }

    // Each process writes the grid rows it owns (under a thread policy, by its workers at once);
    // the first failure is kept (and, under MPI, agreed by every rank).
    void write_owned() {
        std::vector<std::size_t> owned_rows;
        for (std::size_t g = offset_ / unit_; g < owner_.size(); ++g)
            if (owner_[g] == me_) owned_rows.push_back(g);
        std::mutex guard;
        const auto write_rows = [&](std::size_t from, std::size_t to) {
            const removals_deferred removals;  // chunk files replaced: removed while the next rows are encoded
            for (std::size_t i = from; i < to; ++i) {
                try {
                    write_row(owned_rows[i]);
                } catch (...) {
                    const std::lock_guard<std::mutex> lock(guard);
                    if (!first_) first_ = std::current_exception();
                    return;
                }
            }
        };
        if constexpr (distributed) {
            write_rows(0, owned_rows.size());
            std::string mine;
            if (first_) {
                try {
                    std::rethrow_exception(first_);
                } catch (const std::exception& e) {
                    mine = e.what();
                }
            }
            agreed_ = chunkwise::detail::policy_access::agree_on_problem(policy_, mine);
        } else if (!owned_rows.empty()) {
            const auto blocks =
                chunkwise::partition(owned_rows.size(), parts{std::max<std::size_t>(policy_.workers(), 1) * 4});
            (void)map_blocks(policy_, blocks, [&](const block& b) {
                write_rows(b.begin, b.end);
                return 0;
            });
        }
    }

    // A failure anywhere: the root removes what was written, every process throws. Else the root
    // writes the metadata, which ends the write.
    void finish() {
        if (first_ || !agreed_.empty()) {
            if (policy_.is_root()) {
                try {
                    clear_store(store_, created_);
                } catch (const error&) {
                    // the write's own error says more; the unfinished mark stays where clearing failed
                }
            }
            if (first_) std::rethrow_exception(first_);
            throw error(store_, "", "write_blocks failed on another rank: " + agreed_);
        }
        root_step(policy_, store_, "could not write the metadata", [&] {
            write_metadata<T>(store_, p_);
            hold_.release();  // the array is made: the next writer of this store may go on
        });
        // The array is finished: a failure from here on leaves it whole.
        root_step(policy_, store_, "could not list the array in its groups", [&] { list_in_groups(store_, p_); });
    }

    Policy& policy_;
    const std::filesystem::path& path_;
    std::string store_;
    partial_results<R>& results_;
    const write_options& opt_;
    std::size_t me_ = 0, unit_ = 1;
    plan p_;
    store_lock hold_;  // the root's: slot 0 of the store's lock, until the metadata (or new extent) is written
    bool created_ = false;
    std::size_t offset_ = 0;    // append, update: the array's row of this write's first
    std::optional<state> now_;  // append, update: the array as it stands, for the rows a write keeps
    std::vector<std::size_t> inner_, shape_, owner_;
    std::vector<block_place> places_;
    std::vector<const T*> data_;
    std::vector<bool> local_;
    std::vector<slab<T>> slabs_;
    std::vector<std::vector<T>> pieces_;
    std::exception_ptr first_;
    std::string agreed_;
};

}  // namespace detail

/// Writes every block's result into one new Zarr array at `path`, concatenated along axis 0 in
/// block order (results are arrays of rank N or std::vectors, agreeing beyond axis 0; blocks that
/// failed under on_error::collect are left out). The root prepares the store as `write` does
/// (the mode decides what happens to an array there; the store is marked unfinished), all wait for
/// it; each chunk (each shard, where sharded) is then written by exactly one process: the one whose
/// block holds the chunk's first row; rows of other processes' blocks that fall in it are sent to
/// it first, so a chunk shared by blocks is never torn. Under a thread policy the chunks are
/// written by the policy's workers at once; under MPI (collective: every rank passes the same path
/// and options) each rank writes its own. Once every chunk is written the root writes the
/// metadata, which ends the write; a failure anywhere instead removes what was written. Every
/// process returns once the metadata is written, or throws. Blocks aligned to the chunk rows
/// (zarr::partition(rows, options, parts)) send nothing. With write_mode::append or update the
/// results go into the existing array at `path` instead (at its end, or from `first_row`), as
/// zarr::write writes them: each grid row by its one owner, merged with the array's rows it keeps
/// under the grid row's lock; an append's new extent is written last, by the root.
/// \throws zarr::error naming the store and the chunk that failed (on every rank under MPI)
template <class Policy, class R>
void write_blocks(Policy& policy, const std::filesystem::path& path, partial_results<R>&& results,
                  const write_options& opt = {}) {
    using T = std::remove_cv_t<typename R::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::zarr::write_blocks: block results must be arrays or vectors of an arithmetic type");
    detail::blocks_writer<Policy, R>(policy, path, results, opt).run();
}

}  // namespace chunkwise::zarr
