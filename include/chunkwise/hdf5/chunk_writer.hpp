#pragma once
/// \file
/// `chunkwise::h5::chunk_writer`: a new chunked dataset written from many threads at once. Each
/// worker cuts its rows into chunks and encodes them (shuffle, deflate, LZ4, Zstandard, Blosc)
/// itself; only the final
/// H5Dwrite_chunk holds the HDF5 lock — compressed writes scale with threads.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/read/box.hpp>
#include <chunkwise/detail/hdf5/read/copy.hpp>
#include <chunkwise/detail/hdf5/types.hpp>
#include <chunkwise/detail/hdf5/write/create.hpp>
#include <chunkwise/detail/hdf5/write/spill.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/write_options.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
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
    /// `contiguous`: where opt asks for no chunks and no compression, a contiguous dataset whose rows are written
    /// as they are (any rows; else opt.chunk is required). With a `spill` file, nothing is made in `file`: the
    /// encoded chunks (contiguous: the rows) go to the spill file, for the root to replay().
    chunk_rows_writer(const std::filesystem::path& file, const std::string& path, std::vector<std::size_t> shape,
                      write_options opt, std::size_t element, hid_t (*type)(), bool contiguous = false,
                      spill_file* spill = nullptr);
    chunk_rows_writer(const chunk_rows_writer&) = delete;
    chunk_rows_writer& operator=(const chunk_rows_writer&) = delete;
    ~chunk_rows_writer() {
        library_lock lock;
        writer_.reset();
    }

    const std::vector<std::size_t>& shape() const noexcept { return shape_; }
    const std::vector<std::size_t>& chunk_shape() const noexcept { return opt_.chunk; }
    /// Rows per chunk row (1 where contiguous: any rows may be written).
    std::size_t unit_rows() const noexcept { return opt_.chunk.empty() ? 1 : opt_.chunk[0]; }
    const std::string& file() const noexcept { return file_; }
    const std::string& path() const noexcept { return path_; }

    /// chunk_writer<T>::write_rows of `count` values at `values`.
    void write_rows(std::size_t first_row, const unsigned char* values, std::size_t count);

    void close() {
        if (spill_ != nullptr) {
            spill_->finish();
            return;
        }
        library_lock lock;
        writer_->commit();
    }

    /// Removes what was made (a file created, or the dataset) and throws h5::error "WHAT".
    [[noreturn]] void fail(const std::string& what) {
        if (spill_ != nullptr) throw error(file_, path_, "write: " + what);
        library_lock lock;
        writer_->fail(what);
    }

    /// Writes into the dataset what another rank's writer put in the spill file `spill` (see spill_file).
    void replay(const std::string& spill);

private:
    // Rows [first_row, first_row + rows) of a contiguous dataset, as they are.
    void write_contiguous(std::size_t first_row, const unsigned char* values, std::size_t rows);

    std::string file_, path_;
    std::vector<std::size_t> shape_;
    write_options opt_;
    std::size_t element_ = 1;
    hid_t (*type_)() = nullptr;                                      // the element's memory type
    std::vector<std::pair<const codec*, encode_request>> pipeline_;  // each chunk's filters
    std::unique_ptr<dataset_writer> writer_;
    spill_file* spill_ = nullptr;  // or, on a rank that does not write the file, where its chunks go
    std::size_t chunk_elements_ = 1, row_elements_ = 1;
};

}  // namespace detail

/// One chunk encoded as a write with `opt` stores it (shuffle, then deflate or the codec), alone: for tools and
/// benchmarks that measure the encoding apart from HDF5. Each thread uses its own encoder.
class chunk_encoder {
public:
    /// \throws std::invalid_argument naming the problem where this build cannot write `opt`'s codecs
    chunk_encoder(const write_options& opt, std::size_t element_size);

    /// The encoded bytes of the `chunk` bytes of one whole chunk (row-major, as stored); valid until the next call
    /// (they may be `chunk` itself, where nothing is applied).
    std::span<const unsigned char> encode(std::span<const unsigned char> chunk);

private:
    std::vector<std::pair<const detail::codec*, detail::encode_request>> pipeline_;
    std::vector<unsigned char> out_, scratch_;
};

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

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/chunk_writer.ipp>
#endif
