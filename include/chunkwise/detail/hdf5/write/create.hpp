#pragma once
// Internal: creating datasets for h5::write and h5::write_blocks: the creation properties
// (chunks; the filters a write applies, from the filter table; automatic chunks of whole rows), and a file + dataset
// being written that either completes — every close checked, since HDF5 writes cached data when closing — or leaves
// nothing behind that would make a retry fail with "already exists": a file it created is removed, a dataset it added
// to an existing file is unlinked.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/attributes.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/dimensions.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/write_options.hpp>

#include <hdf5.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace chunkwise::h5 {

namespace detail {

/// The shape of one block result (arrays: shape(); vectors: their length): the store-neutral one.
using chunkwise::detail::result_shape;

/// The options as text, to compare them across ranks and name them in messages.
CHUNKWISE_HDF5_DECL std::string options_text(const write_options& opt);

/// Checks the options against the array's shape; fills in automatic chunks (whole rows, about
/// 1 MiB) when compressing without a chunk shape. Throws h5::error.
CHUNKWISE_HDF5_DECL void complete_options(write_options& opt, const std::vector<std::size_t>& shape,
                                          std::size_t elem_size, const std::string& file, const std::string& path);

/// Why the values of `shape` (`elem_size` bytes each) and `heap_bytes` more (variable-length values) cannot go into
/// the existing `file` ("" if they can): too little free space on its file system, or a file size limit
/// (ulimit -f). Checked before an existing file is touched, because HDF5 records the file's new end before the data
/// is written: running out of space half-way leaves the file unreadable ("truncated file"), not just without the
/// dataset.
CHUNKWISE_HDF5_DECL std::string room_problem(const std::string& file, std::size_t elem_size,
                                             const std::vector<std::size_t>& shape, std::uintmax_t heap_bytes = 0);

/// The filters a write applies to each chunk, in HDF5's order (what each one encodes, with its
/// request): shuffle (unless the codec shuffles itself), then deflate or the codec, from the codec
/// floor (detail/codecs/). Call only after h5::codec_problem(opt) found nothing.
CHUNKWISE_HDF5_DECL codecs::pipeline write_pipeline(const write_options& opt, std::size_t elem_size);

/// Sets `opt`'s chunk shape and filters on a dataset creation property list (none when opt.chunk
/// is empty: contiguous), each with the parameters its plugin states; optional, since chunkwise
/// encodes the chunks itself. False when HDF5 refuses one.
CHUNKWISE_HDF5_DECL bool set_creation_properties(hid_t dcpl, const write_options& opt, std::size_t elem_size = 0);

/// An existing dataset that write_mode::append or update writes into, checked.
struct existing_dataset {
    handle dataset;
    std::vector<hsize_t> dims;  // its extent before the write
    std::size_t first_row = 0;  // where the values' first row goes
};

/// Fails (through `fail`) where the filters `opt` asks for are not the dataset's: `ids` and `params`, its filters'
/// ids and creation parameters in order. A level asked for must be the dataset's; a level of 0 takes it.
CHUNKWISE_HDF5_DECL void check_filters(const write_options& opt, const std::vector<std::size_t>& chunk,
                                       std::size_t elem_size, const std::vector<int>& ids,
                                       const std::vector<std::vector<unsigned>>& params,
                                       const std::function<void(const std::string&)>& fail);

/// Why values of the memory type `values` cannot be written into a dataset of the type `stored` ("the dataset holds
/// float64, the values are float32: ..."), or "" where they can: numbers of the same kind and size, or
/// variable-length sequences of such numbers on both sides. Call with the lock held.
CHUNKWISE_HDF5_DECL std::string type_mismatch(hid_t stored, hid_t values);

/// Opens dataset `path` of the open file `fh` and checks it against values of `shape` in `mem_type` and the options
/// (mode append or update, first_row, and any chunk, filters and dimension names given, which must be the
/// dataset's): the same type, every axis but the first, rows within it (update) or room on an unlimited or large
/// enough axis 0 (append), and every filter it has available to HDF5 here (HDF5 applies them to the chunks the rows
/// share with others). Call with the lock held. \throws h5::error "append: ..." or "update: ..." naming what is wrong
CHUNKWISE_HDF5_DECL existing_dataset open_existing_dataset(hid_t fh, const std::string& file, const std::string& path,
                                                           hid_t mem_type, const std::vector<std::size_t>& shape,
                                                           const write_options& opt);

/// Rows written into an existing dataset (write_mode::append or update) as they come, from any thread: the file
/// opened and the dataset checked (open_existing_dataset) and, for an append, extended once; each run of rows one
/// H5Dwrite under the lock, HDF5 merging the chunks that runs, or the rows kept, share. What is written stays, closed
/// or not: the dataset was there before.
class existing_rows_writer {
public:
    /// `shape`: the rows this write gives (axis 0) and the dataset's other axes; `heap_bytes`: what variable-length
    /// values add to the file beyond `elem_size` per element (their heap). \throws h5::error as
    /// open_existing_dataset, where the file system lacks room for them, or where the file cannot be opened or
    /// extended
    existing_rows_writer(const std::string& file, const std::string& path, hid_t mem_type, std::size_t elem_size,
                         const std::vector<std::size_t>& shape, const write_options& opt, std::size_t heap_bytes = 0);
    existing_rows_writer(const existing_rows_writer&) = delete;
    existing_rows_writer& operator=(const existing_rows_writer&) = delete;
    ~existing_rows_writer();

    /// Rows [first, first + rows) of this write (row-major at `data`) at the dataset's rows from first_row (or its
    /// old end). \throws h5::error where HDF5 fails
    void write_rows(std::size_t first, const void* data, std::size_t rows);
    /// Sets the attributes of the options (as set_attributes does), then closes the dataset and the file, checking
    /// both. \throws h5::error
    void close();
    /// Throws h5::error "MODE: WHAT" (the rows written so far stay).
    [[noreturn]] void fail(const std::string& what) const;

private:
    std::string file_, path_;
    hid_t mem_type_;
    write_options opt_;
    std::vector<std::size_t> shape_;
    handle file_h_;
    existing_dataset d_;
};

/// A dataset being created and written. Call everything with the library lock held.
class dataset_writer {
public:
    /// Opens (or creates) `file` with `fapl` and creates the dataset; throws h5::error.
    dataset_writer(const std::string& file, const std::string& path, hid_t file_type,
                   const std::vector<std::size_t>& shape, const write_options& opt, hid_t fapl, bool file_existed);
    dataset_writer(const dataset_writer&) = delete;
    dataset_writer& operator=(const dataset_writer&) = delete;

    /// If not committed: removes what this writer made (see the file comment).
    ~dataset_writer() { abandon(); }

    [[nodiscard]] hid_t dataset() const noexcept { return dset_h_.get(); }

    /// Throws h5::error "write: WHAT" after removing what this writer made.
    [[noreturn]] void fail(const std::string& what) {
        const std::string hint = abandon();
        throw error(file_, path_, "write: " + what + hint);
    }

    /// Closes the dataset and the file, checking both: the data is in the file when it returns.
    void commit();

private:
    // What exists at the path: refused (create), or a dataset unlinked first (replace).
    void replace_existing(write_mode mode);

    // Undoes what was made; returns a note for the message when that did not fully work.
    std::string abandon() noexcept;

    std::string file_, path_;
    handle file_h_, dset_h_;
    bool created_file_ = false;
    bool created_dataset_ = false;
    bool committed_ = false;
};

}  // namespace detail
}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/write/create.ipp>
#endif
