#pragma once
/// \file
/// `chunkwise::h5::stream_writer`: a new dataset written row range by row range, from any thread, as results are
/// made: each range goes to the file at once, encoded in the thread that gives it; only rows of a chunk that other
/// ranges share wait, in a buffer, for their neighbours. Memory: what the callers hold, and that buffer (at most one
/// row of chunks per boundary between ranges of which only one side has been given).

#include <chunkwise/hdf5/chunk_writer.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/write_options.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/store.hpp>

#include <cstddef>
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
/// reading in this process meanwhile. One process writes (under MPI: `write_blocks`).
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
            : file_(file.string()), path_(path), rows_(check_shape(file, path, shape), open(shape, std::move(opt))) {}
    stream_writer(const stream_writer&) = delete;
    stream_writer& operator=(const stream_writer&) = delete;
    /// Without close(): removes what it made.
    ~stream_writer() = default;

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
    static std::vector<std::size_t> check_shape(const std::filesystem::path& file, const std::string& path,
                                                const std::vector<std::size_t>& shape) {
        if (shape.empty())
            throw error(file.string(), path, "stream_writer: a 0-d shape: datasets of 1 or more axes are written");
        return shape;
    }

    // The writer `opt` asks for; returns the rows a unit of the stream holds.
    std::size_t open(const std::vector<std::size_t>& shape, write_options opt) {
        (void)check_shape(file_, path_, shape);  // first: rows_'s arguments are evaluated in no fixed order
        if (opt.mode == write_mode::append || opt.mode == write_mode::update) {
            into_ = std::make_unique<detail::existing_rows_writer>(file_, detail::normalize_path(path_),
                                                                   detail::native_type<T>(), sizeof(T), shape, opt);
            return 1;  // every row goes as it comes: HDF5 merges the chunks runs share
        }
        writer_.emplace(file_, path_, shape, std::move(opt), sizeof(T), &detail::native_type<T>, true);
        return writer_->unit_rows();
    }

    auto emit() {
        return [this](std::size_t row, const T* values, std::size_t rows) {
            if (into_)
                into_->write_rows(row, values, rows);
            else
                writer_->write_rows(row, reinterpret_cast<const unsigned char*>(values), rows * rows_.row_elements());
        };
    }

    void check(const std::string& refused) {
        if (!refused.empty()) throw error(file_, detail::normalize_path(path_), "stream_writer: " + refused);
    }

    std::string file_, path_;
    std::optional<detail::chunk_rows_writer> writer_;     // a new dataset
    std::unique_ptr<detail::existing_rows_writer> into_;  // or the one there (append, update)
    chunkwise::detail::stream_rows<T> rows_;
};

}  // namespace chunkwise::h5
