#pragma once
// Internal: opening a dataset: the path checked group by group (naming what exists), the file
// opened through the probe driver where it can be, the header read and checked (header.hpp:
// type, shape, layout, fill value, filters), the chunk index found and the chunk cache sized, the
// raw bytes' file descriptor found.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/format/index_walk.hpp>
#include <chunkwise/detail/hdf5/header.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace chunkwise::h5::detail {

/// Checks that s.path names a dataset; otherwise throws naming the nearest existing group and
/// what it holds. Call with the lock held.
CHUNKWISE_HDF5_DECL void check_dataset_path(const dataset_state& s);

/// "" when reads may walk the file's own chunk index, else why not (CHUNKWISE_HDF5_INDEX=off,
/// read once).
CHUNKWISE_HDF5_DECL const std::string& index_walk_unused_because();

/// Where the chunked dataset's chunk index is, where it has one the reads can walk
/// (format/chunk_index.hpp): the layout message read from the file the dataset lives in, the
/// index's own header read and checked, then the first stored chunk the walk finds checked
/// against HDF5 (its stored size, and its bytes where HDF5 reads them); an unusable index
/// otherwise. An index whose structures the format does not allow is an h5::error, before HDF5
/// is asked to trust it. Call with the lock held.
CHUNKWISE_HDF5_DECL chunk_index find_chunk_index(const dataset_state& s);

/// Learns s.index (find_chunk_index); with CHUNKWISE_HDF5_INDEX=off it is only checked, and the
/// reads ask HDF5. Call with the lock held.
CHUNKWISE_HDF5_DECL void learn_chunk_index(dataset_state& s);

/// Opens s->file read-only: through the probe driver where it can, else HDF5's own driver.
/// \throws h5::error naming the file where it is missing, a directory, or not HDF5
CHUNKWISE_HDF5_DECL void open_file(dataset_state& s, const std::filesystem::path& file);

/// For a chunked dataset: where its chunks are (its index, or a listing made now), and a chunk
/// cache for whatever H5Dread reads that holds one row of chunks, not 1 MiB.
CHUNKWISE_HDF5_DECL void prepare_chunked(dataset_state& s);

/// For a contiguous dataset: the file descriptor its bytes are read from with pread, only where
/// HDF5 itself would read them without complaint (inside its allocated space). Data said to lie
/// outside it is corrupted: H5Dread then fails or not depending on what was read before, so
/// chunkwise refuses every read of it. Without the probe driver: the file by the name HDF5 gives
/// it, and HDF5's end of the allocated space (relative to the user block, as H5Dget_offset is
/// not). An external link may lead to another file than s.file.
CHUNKWISE_HDF5_DECL void locate_contiguous(dataset_state& s, std::size_t total_bytes);

/// Opens dataset `path` of `file` for reading: the file, the path checked, the dataset's header
/// read and checked (detail/hdf5/header.hpp), where its bytes are.
/// \throws h5::error naming the file and the dataset (h5::dataset's constructor lists them)
CHUNKWISE_HDF5_DECL std::shared_ptr<const dataset_state> open_dataset(const std::filesystem::path& file,
                                                                      const std::string& path);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/open.ipp>
#endif
