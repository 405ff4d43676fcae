#pragma once
/// \file
/// `chunkwise::h5::stream_writer`: a new dataset written row range by row range, from any thread, as results are
/// made: each range goes to the file at once, encoded in the thread that gives it; only rows of a chunk that other
/// ranges share wait, in a buffer, for their neighbours. Memory: what the callers hold, and that buffer (at most one
/// row of chunks per boundary between ranges of which only one side has been given). Under MPI the root writes the
/// file and every other rank its spill file (FILE.chunkwise-spill-RANK), which the root reads back at close(), one
/// record at a time (an encoded chunk, or at most 4 MiB of rows).

#include <chunkwise/hdf5/chunk_writer.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/write_options.hpp>
#include <chunkwise/detail/core/stream_steps.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/store.hpp>

#include <cstddef>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::h5 {

/// A new dataset of `shape` filled by rows from many threads at once, in any order (a sink for `map_blocks`):
/// `write(first_row, values)` or `write(block, result)` stores those rows now, cut into chunks and encoded (shuffle,
/// deflate, LZ4, Zstandard, Blosc, bzip2) in the calling thread; HDF5's lock is held only to hand over the finished
/// chunks (H5Dwrite_chunk). Rows of a chunk that two calls share are held until the chunk is whole, then written once
/// by the call that completes it. Every row must be given exactly once; `close()` checks that and that everything
/// reached the file. Without a chunk shape and without compression the dataset is contiguous, its rows written as
/// they come; compressed without one, chunks of about 1 MiB of rows (as h5::write). The file must not be open for
/// reading in this process meanwhile. Under MPI construct it with the policy: every rank streams its own rows,
/// encoded by its own workers; the root's go to the file at once, the others' to their spill files (one file
/// system for all ranks), which the root writes into the file at close().
///
/// A write that fails (a full disk) is remembered: later calls throw it again, and close() removes what was made.
/// Destroyed without close(), or closed with rows missing, the dataset (or the file it created) is removed.
template <class T>
class stream_writer {
public:
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::stream_writer: T must be an arithmetic type (not bool)");

    /// Creates dataset `path` in `file` (the file and groups as needed) of `shape` (axis 0: the rows), stored as
    /// `opt` says (the mode decides about a dataset there; attributes are written now). With write_mode::append or
    /// update, the rows go into the existing dataset instead (`shape[0]` rows at its end, or from `opt.first_row`),
    /// each run of rows one H5Dwrite as it comes (HDF5 merges the chunks runs share); what is written stays.
    /// \throws h5::error as h5::write does
    stream_writer(const std::filesystem::path& file, const std::string& path, std::vector<std::size_t> shape,
                  write_options opt = {})
            : stream_writer(chunkwise::detail::stream_collective{}, file, path, std::move(shape), std::move(opt)) {}

    /// As stream_writer(file, path, shape, opt), for the processes of `policy`. Under MPI (mpi_policy,
    /// hybrid_policy) it is collective: every rank passes the same file, dataset, shape and options (else every rank
    /// throws naming each rank's value), the root makes the dataset (or opens it: append, update), and each rank then
    /// writes the rows it is given; `close()` is collective too. Other policies: the same as without one.
    /// \throws h5::error as h5::write does, on every rank
    template <class Policy>
    requires execution_policy<Policy> stream_writer(Policy& policy, const std::filesystem::path& file,
                                                    const std::string& path, std::vector<std::size_t> shape,
                                                    write_options opt = {})
            : stream_writer(collective_of(policy, file, path, shape, opt), file, path, shape, std::move(opt)) {
    }  // (shape read twice: no move)
    stream_writer(const stream_writer&) = delete;
    stream_writer& operator=(const stream_writer&) = delete;
    /// Without close(): removes what it made (a rank's spill file too).
    ~stream_writer() { drop_spill(); }

    /// The dataset's shape.
    [[nodiscard]] const std::vector<std::size_t>& shape() const noexcept { return rows_.shape(); }

    /// Writes `values` as rows from `first_row`: an xtensor container whose shape beyond axis 0 is the dataset's, or
    /// whole rows, row-major, in a std::vector or std::span of T (n rows: rows [first_row, first_row + n)).
    /// Thread-safe. \throws h5::error naming the rows where they pass the end, overlap rows given before, are
    ///         not whole rows or not of the dataset's shape (nothing written then), or where a write fails (this one
    ///         or an earlier one)
    template <class Values>
    void write(std::size_t first_row, const Values& values) {
        static_assert(std::is_same_v<std::remove_cv_t<typename Values::value_type>, T>,
                      "chunkwise::h5::stream_writer: the values must be of the writer's type T");
        check(rows_.put(first_row, values, emit()));
    }

    /// Writes block `b`'s result at the block's rows (`b.begin` .. `b.end`): a map_blocks worker's one call.
    /// \throws h5::error naming the block where the result's rows are not the block's; as write(first_row, result)
    ///         otherwise
    template <class Array>
    void write(const block& b, const Array& result) {
        static_assert(std::is_same_v<std::remove_cv_t<typename Array::value_type>, T>,
                      "chunkwise::h5::stream_writer: the result's values must be of the writer's type T");
        check(rows_.put(b, result, emit()));
    }

    /// Ends the write: checks that every row was given, closes the dataset and the file and checks both (the data
    /// is in the file when it returns).
    /// \throws h5::error naming the first rows never given, an earlier failed write or a failed close; what was
    ///         made is removed then
    void close() {
        if (c_.distributed()) {
            close_collective();
            return;
        }
        if (into_) {
            try {
                rows_.rethrow_failure();
            } catch (...) {
                into_->fail("stream_writer: a write failed (the rows written before it stay)");
            }
            if (const std::string gap = rows_.gap(); !gap.empty())
                into_->fail("stream_writer: closed with " + gap + " never written (the rows given are in the dataset)");
            into_->close();
            return;
        }
        try {
            rows_.rethrow_failure();
        } catch (...) {  // an h5::error, or what an allocation threw: either way nothing is kept
            writer_->fail("stream_writer: a write failed, nothing kept");
        }
        if (const std::string gap = rows_.gap(); !gap.empty())
            writer_->fail("stream_writer: closed with " + gap + " never written, nothing kept");
        writer_->close();
    }

    /// Bytes of rows held now, waiting for the rest of their chunks.
    [[nodiscard]] std::size_t buffered_bytes() const { return rows_.held_bytes(); }
    /// The most bytes held at once so far.
    [[nodiscard]] std::size_t peak_buffered_bytes() const { return rows_.peak_bytes(); }

private:
    stream_writer(chunkwise::detail::stream_collective c, const std::filesystem::path& file, const std::string& path,
                  std::vector<std::size_t> shape, write_options opt)
            : c_(std::move(c)),
              file_(file.string()),
              path_(path),
              rows_(check_shape(file, path, shape), open(shape, std::move(opt))) {}

    static std::vector<std::size_t> check_shape(const std::filesystem::path& file, const std::string& path,
                                                const std::vector<std::size_t>& shape) {
        if (shape.empty())
            throw error(file.string(), path, "stream_writer: a 0-d shape: datasets of 1 or more axes are written");
        return shape;
    }

    // The writer `opt` asks for; returns the rows a unit of the stream holds.
    std::size_t open(const std::vector<std::size_t>& shape, write_options opt) {
        (void)check_shape(file_, path_, shape);  // first: rows_'s arguments are evaluated in no fixed order
        if (c_.distributed()) return open_collective(shape, std::move(opt));
        if (opt.mode == write_mode::append || opt.mode == write_mode::update) {
            into_ = std::make_unique<detail::existing_rows_writer>(file_, detail::normalize_path(path_),
                                                                   detail::native_type<T>(), sizeof(T), shape, opt);
            return 1;  // every row goes as it comes: HDF5 merges the chunks runs share
        }
        writer_.emplace(file_, path_, shape, std::move(opt), sizeof(T), &detail::native_type<T>, true);
        return writer_->unit_rows();
    }

    // open() under MPI: the root's writer, or a rank's spill file (and its encoder, for a new dataset); every rank
    // throws where one could not.
    std::size_t open_collective(const std::vector<std::size_t>& shape, write_options opt) {
        const bool existing = opt.mode == write_mode::append || opt.mode == write_mode::update;
        existing_ = existing;
        const std::string p = detail::normalize_path(path_);
        std::string problem;
        std::exception_ptr mine;
        std::size_t unit = 1;
        try {
            if (c_.root && existing) {
                into_ = std::make_unique<detail::existing_rows_writer>(file_, p, detail::native_type<T>(), sizeof(T),
                                                                       shape, opt);
            } else {
                if (!c_.root)
                    spill_ = std::make_unique<detail::spill_file>(detail::spill_path(file_, c_.rank), file_, p);
                if (!existing) {
                    writer_.emplace(file_, path_, shape, std::move(opt), sizeof(T), &detail::native_type<T>, true,
                                    spill_.get());
                    unit = writer_->unit_rows();
                }
            }
        } catch (const std::exception& e) {
            problem = e.what();
            mine = std::current_exception();
        }
        problem = c_.agree(problem);
        if (!problem.empty()) {
            writer_.reset();  // (the root's removes what it made)
            into_.reset();
            drop_spill();
            if (mine) std::rethrow_exception(mine);
            throw error(file_, p, "stream_writer failed on another rank: " + problem);
        }
        return unit;
    }

    // close() under MPI: the rows every rank gave checked (each row by exactly one rank), the chunk rows ranks share
    // completed by the lowest rank holding part of each, the spill files closed; then the root writes them into the
    // dataset and closes it.
    void close_collective() {
        const std::string p = detail::normalize_path(path_);
        auto settled = chunkwise::detail::settle_rows(rows_, c_, emit(), [&] {
            if (spill_) spill_->finish();
        });
        std::exception_ptr own = settled.own;
        if (!settled.ok()) {
            if (c_.root) abandon_collective(settled.parts.size());
            drop_spill();
            c_.agree({});  // everything is cleared before any rank returns
            if (own) std::rethrow_exception(own);
            if (!settled.coverage.empty())
                throw error(file_, p,
                            "stream_writer: closed with " + settled.coverage +
                                (existing_ ? " (the rows given are in the dataset)" : ", nothing kept"));
            throw error(file_, p, "stream_writer failed on another rank: " + settled.agreed);
        }
        std::string problem;
        if (c_.root) {
            try {
                for (std::size_t r = 1; r < settled.parts.size(); ++r) replay(r);
                if (writer_)
                    writer_->close();
                else
                    into_->close();
            } catch (const std::exception& e) {
                problem = e.what();
                own = std::current_exception();
                abandon_collective(settled.parts.size());
            }
        }
        problem = c_.agree(problem);
        drop_spill();
        if (own) std::rethrow_exception(own);
        if (!problem.empty()) throw error(file_, p, "stream_writer: the root could not finish the write: " + problem);
    }

    // The root writes rank r's spill file into the dataset, then removes it.
    void replay(std::size_t r) {
        const std::string spill = detail::spill_path(file_, r);
        if (writer_) {
            writer_->replay(spill);
        } else {
            detail::replay_spill(spill, file_, detail::normalize_path(path_), [&](const detail::spill_record& rec) {
                into_->write_rows(rec.offset[0], rec.bytes, rec.offset[1]);
            });
        }
        std::error_code ec;
        std::filesystem::remove(spill, ec);
    }

    // The root, where the write failed: every rank's spill file removed, the dataset made removed (into one there:
    // the rows written stay).
    void abandon_collective(std::size_t ranks) noexcept {
        std::error_code ec;
        for (std::size_t r = 1; r < ranks; ++r) std::filesystem::remove(detail::spill_path(file_, r), ec);
        if (!writer_) return;
        try {
            writer_->fail("stream_writer: the write failed, nothing kept");
        } catch (...) {
            // the write's own error is what the caller sees
        }
    }

    void drop_spill() noexcept {
        if (!spill_) return;
        const std::string spill = spill_->path();
        writer_.reset();
        spill_.reset();
        std::error_code ec;
        std::filesystem::remove(spill, ec);
    }

    // The collective steps of `policy` (none without MPI), after checking that every rank asks for the same write.
    template <class Policy>
    static chunkwise::detail::stream_collective collective_of(Policy& policy, const std::filesystem::path& file,
                                                              const std::string& path,
                                                              const std::vector<std::size_t>& shape,
                                                              const write_options& opt) {
        return chunkwise::detail::collective_steps<chunkwise::detail::stream_collective>(
            policy, {{"files", chunkwise::detail::comparable_path(file)},
                     {"datasets", detail::normalize_path(path)},
                     {"shapes", chunkwise::detail::shape_text(shape)},
                     {"write_options", detail::options_text(opt)}});
    }

    auto emit() {
        return [this](std::size_t row, const T* values, std::size_t rows) {
            if (into_)
                into_->write_rows(row, values, rows);
            else if (writer_)
                writer_->write_rows(row, reinterpret_cast<const unsigned char*>(values), rows * rows_.row_elements());
            else
                spill_->put_rows(row, rows, rows_.row_bytes(), values);
        };
    }

    void check(const std::string& refused) {
        if (!refused.empty()) throw error(file_, detail::normalize_path(path_), "stream_writer: " + refused);
    }

    chunkwise::detail::stream_collective c_;
    std::string file_, path_;
    std::unique_ptr<detail::spill_file> spill_;           // under MPI, a rank's but the root's
    std::optional<detail::chunk_rows_writer> writer_;     // a new dataset
    std::unique_ptr<detail::existing_rows_writer> into_;  // or the one there (append, update)
    bool existing_ = false;                               // (append, update)
    chunkwise::detail::stream_rows<T> rows_;
};

}  // namespace chunkwise::h5
