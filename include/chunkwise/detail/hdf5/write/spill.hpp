#pragma once
// Internal: the spill file of a rank that streams into an HDF5 file it may not open (serial HDF5 under MPI: only the
// root writes the file). The rank's workers append what they made, as records: an encoded chunk (its offset and
// bytes) or raw rows (at most spill_rows_bytes each); at the end the root reads each rank's records back, one at a
// time, and hands them to HDF5. Named FILE.chunkwise-spill-RANK, beside the file (one file system for all ranks).
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/hdf5/error.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// The most raw-row bytes in one spill record: what the root holds at once for such a record.
inline constexpr std::size_t spill_rows_bytes = std::size_t{4} << 20;

/// The spill file of rank `rank` writing `file`.
CHUNKWISE_HDF5_DECL std::string spill_path(const std::string& file, std::size_t rank);

/// One record read back: an encoded chunk (`offset`: its element offset on each axis) or rows (`offset`: the first
/// row and the row count).
struct spill_record {
    bool chunk = false;
    std::vector<std::uint64_t> offset;
    const unsigned char* bytes = nullptr;
    std::size_t size = 0;
};

/// A spill file being written, from any thread (records are whole: a mutex orders them).
class spill_file {
public:
    /// Creates (or empties) `path`. \throws h5::error naming `file`, `dataset` and the spill file where it cannot
    spill_file(std::string path, std::string file, std::string dataset);
    spill_file(const spill_file&) = delete;
    spill_file& operator=(const spill_file&) = delete;
    /// Closes the file if still open (the root removes it once read).
    ~spill_file();

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    /// Appends an encoded chunk at element offset `offset` (`axes` values). \throws h5::error on a failed write
    void put_chunk(const std::uint64_t* offset, std::size_t axes, const void* bytes, std::size_t size);
    /// Appends rows [first_row, first_row + rows) of `row_bytes` bytes each, in records of at most spill_rows_bytes.
    /// \throws h5::error on a failed write
    void put_rows(std::size_t first_row, std::size_t rows, std::size_t row_bytes, const void* values);
    /// Closes the file, checking the close. \throws h5::error
    void finish();

private:
    void put(std::uint64_t kind, const std::uint64_t* numbers, std::size_t count, const void* bytes,
             std::size_t size);  // with the mutex held
    [[noreturn]] void failed(const std::string& what) const;

    std::string path_, file_, dataset_;
    int fd_ = -1;
    std::mutex guard_;
};

/// Calls `take` with each record of the spill file `path`, in the order written, holding one at a time.
/// \throws h5::error naming `file`, `dataset` and the spill file where it cannot be read or is cut short
CHUNKWISE_HDF5_DECL void replay_spill(const std::string& path, const std::string& file, const std::string& dataset,
                                      const std::function<void(const spill_record&)>& take);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/write/spill.ipp>
#endif
