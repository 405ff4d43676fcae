#pragma once
/// \file
/// `chunkwise::zarr::stream_writer`: a new Zarr array written row range by row range, from any thread, as results
/// are made: each range's chunk files (shards) are encoded and written at once by the thread that gives it; only rows
/// of a chunk row that other ranges share wait, in a buffer, for their neighbours. Memory: what the callers hold, and
/// that buffer (at most one row of chunks, or shards, per boundary between ranges of which only one side has been
/// given).

#include <chunkwise/detail/core/stream_steps.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr/error.hpp>
#include <chunkwise/zarr/write.hpp>

#include <cstddef>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::zarr {

/// A new Zarr array of `shape` filled by rows from many threads at once, in any order (a sink for `map_blocks`):
/// `write(first_row, values)` or `write(block, result)` writes the chunk files (shard files, where sharded) those
/// rows complete now, encoded in the calling thread; rows of a chunk row that two calls share are held until it is
/// whole, then written once by the call that completes it. No lock is held while encoding or writing. Every row
/// must be given exactly once; `close()` checks that and writes the metadata, which ends the write: until then the
/// store is marked unfinished (`.chunkwise-unfinished`, as zarr::write), and readers say so. Under MPI construct
/// it with the policy: every rank streams its own rows into the one store.
///
/// A write that fails (a full disk) is remembered: later calls throw it again, and close() removes what was
/// written. Destroyed without close(), or closed with rows missing, the store is cleared (removed where it made it).
template <class T>
class stream_writer {
public:
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::zarr::stream_writer: T must be an arithmetic type (not bool)");

    /// Prepares the store at `path` for an array of `shape` (axis 0: the rows) written as `opt` says (as
    /// zarr::write: the mode decides about an array there). With write_mode::append or update, the rows go into the
    /// array there instead (`shape[0]` rows at its end, or from `opt.first_row`), each run as it comes, every grid
    /// row it touches merged with the rows kept under its lock; close() writes an append's new extent, and what is
    /// written stays, closed or not.
    /// \throws zarr::error as zarr::write does
    stream_writer(const std::filesystem::path& path, std::vector<std::size_t> shape, const write_options& opt = {})
            : stream_writer(chunkwise::detail::stream_collective{}, path, std::move(shape), opt) {}

    /// As stream_writer(path, shape, opt), for the processes of `policy`. Under MPI (mpi_policy, hybrid_policy) it
    /// is collective: every rank passes the same path, shape and options (else every rank throws naming each
    /// rank's value), the root prepares the store, and each rank then writes the rows it is given; `close()` is
    /// collective too. Other policies: the same as without one.
    /// \throws zarr::error as zarr::write does, on every rank
    template <class Policy>
    requires execution_policy<Policy> stream_writer(Policy& policy, const std::filesystem::path& path,
                                                    std::vector<std::size_t> shape, const write_options& opt = {})
            : stream_writer(collective_of(policy, path, shape, opt), path, shape, opt) {
    }  // (shape read twice: no move)
    stream_writer(const stream_writer&) = delete;
    stream_writer& operator=(const stream_writer&) = delete;
    /// Without close(): clears what it wrote.
    ~stream_writer() {
        if (!closed_ && c_.root) abandon();  // (under MPI the root clears the store; no rank waits for another)
    }

    /// The array's shape.
    [[nodiscard]] const std::vector<std::size_t>& shape() const noexcept { return plan_.shape; }

    /// Writes `values` as rows from `first_row`: an xtensor container whose shape beyond axis 0 is the array's, or
    /// whole rows, row-major, in a std::vector or std::span of T (n rows: rows [first_row, first_row + n)).
    /// Thread-safe. \throws zarr::error naming the rows where they pass the end, overlap rows given before, are
    ///         not whole rows or not of the array's shape (nothing written then), or where a write fails (this one
    ///         or an earlier one)
    template <class Values>
    void write(std::size_t first_row, const Values& values) {
        static_assert(std::is_same_v<std::remove_cv_t<typename Values::value_type>, T>,
                      "chunkwise::zarr::stream_writer: the values must be of the writer's type T");
        check(rows_.put(first_row, values, emit()));
    }

    /// Writes block `b`'s result at the block's rows (`b.begin` .. `b.end`): a map_blocks worker's one call.
    /// \throws zarr::error naming the block where the result's rows are not the block's; as write(first_row,
    ///         result) otherwise
    template <class Array>
    void write(const block& b, const Array& result) {
        static_assert(std::is_same_v<std::remove_cv_t<typename Array::value_type>, T>,
                      "chunkwise::zarr::stream_writer: the result's values must be of the writer's type T");
        check(rows_.put(b, result, emit()));
    }

    /// Ends the write: checks that every row was given, then writes the metadata (the array exists from then on)
    /// and lists it in the consolidated metadata of the groups above it.
    /// \throws zarr::error naming the first rows never given, an earlier failed write or a failed metadata write;
    ///         what was written is cleared then (a failure to list the array in its groups leaves it whole)
    void close() {
        if (c_.distributed()) {
            close_collective();
            return;
        }
        closed_ = true;
        if (existing_) {
            rows_.rethrow_failure();
            if (const std::string gap = rows_.gap(); !gap.empty())
                throw error(store_, "",
                            "stream_writer: closed with " + gap + " never written (the rows given are in the array)");
            finish_existing();
            return;
        }
        try {
            rows_.rethrow_failure();
            if (const std::string gap = rows_.gap(); !gap.empty())
                throw error(store_, "", "stream_writer: closed with " + gap + " never written, nothing kept");
            detail::write_metadata<T>(store_, plan_);
        } catch (...) {
            abandon();
            throw;
        }
        hold_.release();  // the array is made: the next writer of this store may go on
        detail::list_in_groups(store_, plan_);
    }

    /// Bytes of rows held now, waiting for the rest of their chunk rows.
    [[nodiscard]] std::size_t buffered_bytes() const { return rows_.held_bytes(); }
    /// The most bytes held at once so far.
    [[nodiscard]] std::size_t peak_buffered_bytes() const { return rows_.peak_bytes(); }

private:
    stream_writer(chunkwise::detail::stream_collective c, const std::filesystem::path& path,
                  std::vector<std::size_t> shape, const write_options& opt)
            : c_(std::move(c)),
              store_(path.string()),
              opt_(opt),
              plan_(plan_for(shape)),
              created_(prepare()),
              rows_(std::move(shape), existing_ ? 1 : plan_.grid[0]) {}

    bool into_existing() const noexcept { return opt_.mode == write_mode::append || opt_.mode == write_mode::update; }

    // The plan of a new array; or, for an append or update, of the array there, checked against the rows given
    // (the root holding the extent's lock first, every process then reading the metadata).
    detail::plan plan_for(const std::vector<std::size_t>& shape) {
        if (!into_existing()) return detail::make_plan<T>(store_, shape, opt_);
        constexpr char kind = detail::numpy_kind<T>();
        std::string problem;
        std::exception_ptr mine;
        try {
            if (c_.root) {
                if (!std::filesystem::is_directory(store_))
                    (void)detail::open_existing(store_, shape, kind, sizeof(T), opt_);
                hold_.open(store_);
                hold_.lock(0, opt_.mode == write_mode::append);
            }
        } catch (const std::exception& e) {
            problem = e.what();
            mine = std::current_exception();
        }
        if (c_.distributed()) problem = c_.agree(problem);
        detail::plan p;
        if (problem.empty()) {
            try {
                existing_ = detail::open_existing(store_, shape, kind, sizeof(T), opt_);
                p = detail::make_plan<T>(store_, existing_->new_shape, existing_->options);
                detail::check_encoding(
                    store_, *existing_,
                    detail::metadata_text<T>(existing_->shape, p.grid, p.chunk, p.enc, p.format, p.sharded).second,
                    opt_);
                now_ = detail::extended_state(store_, existing_->new_shape[0]);
            } catch (const std::exception& e) {
                problem = e.what();
                mine = std::current_exception();
            }
            if (c_.distributed()) problem = c_.agree(problem);
        }
        if (mine) std::rethrow_exception(mine);
        if (!problem.empty()) throw error(store_, "", "stream_writer failed on another rank: " + problem);
        return p;
    }

    // Rows [row, row + rows) of this write into the array there, at its rows from first_row (or its old end): each
    // grid row they touch under its lock, merged with the rows of it they do not cover.
    void write_into(std::size_t row, const T* values, std::size_t rows) {
        const std::size_t first = existing_->first_row + row, unit = plan_.grid[0];
        detail::store_lock lock(store_);           // this caller's own
        const detail::removals_deferred removals;  // chunk files replaced: removed while the next are encoded
        const std::vector<detail::slab<T>> slabs{{first, rows, values}};
        for (std::size_t g = first / unit; g * unit < first + rows; ++g)
            detail::merge_grid_row<T>(store_, plan_, *now_, lock, g, first, first + rows, slabs);
    }

    // The end of an append or update, on the root: the new extent (an append), the lock given back, the attributes.
    void finish_existing() {
        if (opt_.mode == write_mode::append) detail::write_extent(store_, *existing_);
        hold_.release();
        if (!opt_.attributes.empty()) set_attributes(store_, opt_.attributes);
    }

    // The collective steps of `policy` (none without MPI), after checking that every rank asks for the same write.
    template <class Policy>
    static chunkwise::detail::stream_collective collective_of(Policy& policy, const std::filesystem::path& path,
                                                              const std::vector<std::size_t>& shape,
                                                              const write_options& opt) {
        return chunkwise::detail::collective_steps<chunkwise::detail::stream_collective>(
            policy, {{"stores", chunkwise::detail::comparable_path(path)},
                     {"shapes", chunkwise::detail::shape_text(shape)},
                     {"write_options", detail::options_text(opt)}});
    }

    // The store made ready (by the root under MPI, every rank waiting for it); true where it was created.
    bool prepare() {
        if (existing_) return false;  // the array there is written into, never cleared
        if (!c_.distributed()) return detail::prepare_store(store_, plan_.mode, hold_);
        bool created = false;
        std::string problem;
        std::exception_ptr mine;
        if (c_.root) {
            try {
                created = detail::prepare_store(store_, plan_.mode, hold_);
            } catch (const std::exception& e) {
                problem = e.what();
                mine = std::current_exception();
            }
        }
        problem = c_.agree(problem);
        if (mine) std::rethrow_exception(mine);
        if (!problem.empty())
            throw error(store_, "", "stream_writer: the root could not prepare the store: " + problem);
        return created;
    }

    // close() under MPI: the rows every rank gave checked (each row by exactly one rank), the chunk rows ranks
    // share completed by the lowest rank holding part of each, then the metadata by the root.
    void close_collective() {
        closed_ = true;
        auto settled = chunkwise::detail::settle_rows(rows_, c_, emit(), [] {});
        std::exception_ptr own = settled.own;
        if (!settled.ok()) {
            if (c_.root) abandon();
            c_.agree({});  // the store is cleared before any rank returns
            if (own) std::rethrow_exception(own);
            if (!settled.coverage.empty())
                throw error(store_, "", "stream_writer: closed with " + settled.coverage + ", nothing kept");
            throw error(store_, "", "stream_writer failed on another rank: " + settled.agreed);
        }
        std::string meta;
        if (c_.root && existing_) {
            try {
                finish_existing();
            } catch (const std::exception& e) {
                meta = e.what();
                own = std::current_exception();
            }
            meta = c_.agree(meta);
            if (own) std::rethrow_exception(own);
            if (!meta.empty()) throw error(store_, "", "stream_writer: the root could not end the write: " + meta);
            return;
        }
        if (existing_) {
            meta = c_.agree(meta);
            if (!meta.empty()) throw error(store_, "", "stream_writer: the root could not end the write: " + meta);
            return;
        }
        if (c_.root) {
            try {
                detail::write_metadata<T>(store_, plan_);
            } catch (const std::exception& e) {
                meta = e.what();
                own = std::current_exception();
                abandon();
            }
        }
        meta = c_.agree(meta);
        if (own) std::rethrow_exception(own);
        if (!meta.empty()) throw error(store_, "", "stream_writer: the root could not write the metadata: " + meta);
        std::string listed;
        if (c_.root) {
            try {
                detail::list_in_groups(store_, plan_);
            } catch (const std::exception& e) {
                listed = e.what();
                own = std::current_exception();
            }
        }
        listed = c_.agree(listed);
        if (own) std::rethrow_exception(own);
        if (!listed.empty()) throw error(store_, "", "stream_writer: " + listed);
    }

    auto emit() {
        return [this](std::size_t row, const T* values, std::size_t rows) {
            if (existing_) {
                write_into(row, values, rows);
                return;
            }
            const std::vector<detail::slab<T>> slabs{{row, rows, values}};
            const std::size_t unit = plan_.grid[0];
            for (std::size_t g = row / unit; g * unit < row + rows; ++g)
                detail::write_grid_row<T>(store_, plan_, slabs, g);
        };
    }

    void check(const std::string& refused) {
        if (!refused.empty()) throw error(store_, "", "stream_writer: " + refused);
    }

    void abandon() noexcept {
        if (existing_) return;  // the array was there before: what was written stays
        try {
            detail::clear_store(store_, created_);
        } catch (...) {
            // the write's own error says more; the unfinished mark stays where clearing failed
        }
    }

    chunkwise::detail::stream_collective c_;
    std::string store_;
    write_options opt_;
    detail::store_lock hold_;  // the root's: slot 0 of the store's lock, until the metadata (new extent) is written
    std::optional<detail::existing_array> existing_;  // append, update: the array there
    std::optional<detail::state> now_;                // append, update: the array read as it is being written
    bool closed_ = false;
    detail::plan plan_;
    bool created_ = false;
    chunkwise::detail::stream_rows<T> rows_;
};

}  // namespace chunkwise::zarr
