#pragma once
/// \file
/// `chunkwise::h5::chunk_writer`: a new chunked dataset written from many threads at once. Each
/// worker cuts its rows into chunks and encodes them (shuffle, deflate, LZ4, Zstandard, Blosc)
/// itself; only the final
/// H5Dwrite_chunk holds the HDF5 lock — compressed writes scale with threads.

#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/read/box.hpp>
#include <chunkwise/detail/hdf5/read/copy.hpp>
#include <chunkwise/detail/hdf5/types.hpp>
#include <chunkwise/detail/hdf5/write/create.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/write_options.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::h5 {

namespace detail {

/// What chunk_writer<T> does, in bytes of `element` bytes each: compiled once, whatever types a
/// program writes.
class chunk_rows_writer {
public:
    chunk_rows_writer(const std::filesystem::path& file, const std::string& path, std::vector<std::size_t> shape,
                      write_options opt, std::size_t element, hid_t (*type)())
            : file_(file.string()),
              path_(normalize_path(path)),
              shape_(std::move(shape)),
              opt_(std::move(opt)),
              element_(element) {
        if (opt_.chunk.empty())
            throw error(file_, path_, "chunk_writer: write_options::chunk must give the chunk shape");
        complete_options(opt_, shape_, element_, file_, path_);
        pipeline_ = write_pipeline(opt_, element_);
        std::error_code ec;
        const bool existed = std::filesystem::exists(file, ec);
        library_lock lock;
        writer_ = std::make_unique<dataset_writer>(file_, path_, type(), shape_, opt_, H5P_DEFAULT, existed);
        chunk_elements_ = 1;
        for (std::size_t c : opt_.chunk) chunk_elements_ *= c;
        row_elements_ = 1;
        for (std::size_t d = 1; d < shape_.size(); ++d) row_elements_ *= shape_[d];
    }
    chunk_rows_writer(const chunk_rows_writer&) = delete;
    chunk_rows_writer& operator=(const chunk_rows_writer&) = delete;
    ~chunk_rows_writer() {
        library_lock lock;
        writer_.reset();
    }

    const std::vector<std::size_t>& shape() const noexcept { return shape_; }
    const std::vector<std::size_t>& chunk_shape() const noexcept { return opt_.chunk; }

    /// chunk_writer<T>::write_rows of `count` values at `values`.
    void write_rows(std::size_t first_row, const unsigned char* values, std::size_t count) {
        const std::size_t n = shape_.size();
        const std::size_t rows = row_elements_ == 0 ? 0 : count / row_elements_;
        const std::size_t last = first_row + rows;
        const std::size_t cr = opt_.chunk[0];
        if (count != rows * row_elements_ || first_row % cr != 0 || last > shape_[0] ||
            (last % cr != 0 && last != shape_[0])) {
            throw error(file_, path_,
                        "chunk_writer: rows [" + std::to_string(first_row) + ", " + std::to_string(last) + ") of " +
                            std::to_string(count) + " values do not cover whole chunk rows of " + std::to_string(cr) +
                            " inside " + std::to_string(shape_[0]) + " rows");
        }
        if (rows == 0) return;
        std::vector<unsigned char> chunk(chunk_elements_ * element_), shuffled, packed;
        std::vector<std::size_t> grid(n), c(n, 0), lo(n), hi(n), src_shape = shape_, zero(n, 0);
        src_shape[0] = rows;
        for (std::size_t d = 0; d < n; ++d) grid[d] = (shape_[d] + opt_.chunk[d] - 1) / opt_.chunk[d];
        std::vector<hsize_t> offset(n);
        for (c[0] = first_row / cr; c[0] * cr < last; ++c[0]) {
            std::fill(c.begin() + 1, c.end(), 0);
            for (;;) {
                // The chunk's part of these rows, zero padded past the dataset's edge.
                bool partial = false;
                for (std::size_t d = 0; d < n; ++d) {
                    const std::size_t off = c[d] * opt_.chunk[d];
                    lo[d] = d == 0 ? off - first_row : off;
                    hi[d] = std::min(off + opt_.chunk[d], d == 0 ? last : shape_[d]) - (d == 0 ? first_row : 0);
                    partial = partial || hi[d] - lo[d] < opt_.chunk[d];
                    offset[d] = off;
                }
                if (partial) std::fill(chunk.begin(), chunk.end(), static_cast<unsigned char>(0));
                copy_box_bytes(values, element_, src_shape.data(), lo.data(), hi.data(), chunk.data(),
                               opt_.chunk.data(), zero.data(), n);
                const auto [bytes, size] = encode_chunk(pipeline_, chunk.data(), chunk.size(), shuffled, packed);
                {
                    library_lock lock;
                    if (H5Dwrite_chunk(writer_->dataset(), H5P_DEFAULT, 0, offset.data(), size, bytes) < 0) {
                        throw error(file_, path_,
                                    "chunk_writer: writing the chunk at row " + std::to_string(offset[0]) +
                                        " failed: " + last_error());
                    }
                }
                std::size_t d = n;
                bool more = false;
                while (d > 1) {
                    --d;
                    if (++c[d] < grid[d]) {
                        more = true;
                        break;
                    }
                    c[d] = 0;
                }
                if (!more) break;
            }
        }
    }

    void close() {
        library_lock lock;
        writer_->commit();
    }

private:
    std::string file_, path_;
    std::vector<std::size_t> shape_;
    write_options opt_;
    std::size_t element_ = 1;
    std::vector<std::pair<const codec*, encode_request>> pipeline_;  // each chunk's filters
    std::unique_ptr<dataset_writer> writer_;
    std::size_t chunk_elements_ = 1, row_elements_ = 1;
};

}  // namespace detail

/// A new chunked dataset that many threads fill at once, by rows: each `write_rows` call cuts
/// its rows into chunks, shuffles and compresses them in the calling thread (as `opt` asks) and
/// hands the finished chunks to HDF5 (H5Dwrite_chunk, the only part under the lock). Calls from
/// different threads must write different chunks (rows split on chunk boundaries, as
/// `h5::partition` or `partition(n, parts, align{chunk rows})` make them). `close()` checks that
/// everything reached the file. Readable by every HDF5 reader (h5py, h5dump).
template <class T>
class chunk_writer {
public:
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::h5::chunk_writer: T must be an arithmetic type (not bool)");

    /// Creates dataset `path` in `file` (the file is created if missing) of `shape`, chunked as
    /// `opt.chunk` (required), filtered as `opt` says.
    /// \throws h5::error as h5::write does, and if opt.chunk is empty
    chunk_writer(const std::filesystem::path& file, const std::string& path, std::vector<std::size_t> shape,
                 write_options opt)
            : rows_(file, path, std::move(shape), std::move(opt), sizeof(T), &detail::native_type<T>) {}
    chunk_writer(const chunk_writer&) = delete;
    chunk_writer& operator=(const chunk_writer&) = delete;
    /// Without close(): removes what it made (a file it created, or the dataset).
    ~chunk_writer() = default;

    /// The dataset's shape.
    [[nodiscard]] const std::vector<std::size_t>& shape() const noexcept { return rows_.shape(); }
    /// The chunk shape.
    [[nodiscard]] const std::vector<std::size_t>& chunk_shape() const noexcept { return rows_.chunk_shape(); }

    /// Writes rows [first_row, first_row + values.size() / elements per row), row-major. The
    /// rows must start on a chunk row boundary and end on one or at the last row.
    /// Thread-safe for disjoint rows. \throws h5::error on misaligned rows or a failed write
    void write_rows(std::size_t first_row, std::span<const T> values) {
        rows_.write_rows(first_row, reinterpret_cast<const unsigned char*>(values.data()), values.size());
    }

    /// Closes the dataset and the file, checking both: the data is in the file when it returns.
    /// \throws h5::error (a full disk, ...), after removing what it made
    void close() { rows_.close(); }

private:
    detail::chunk_rows_writer rows_;
};

}  // namespace chunkwise::h5
