#pragma once
// Internal: every stored chunk of a dataset (h5::stored_chunks): from the file's own chunk index,
// walked by the calling thread without the lock where chunkwise walks it; else HDF5's listing,
// once, or one probe per chunk, under the lock; else HDF5's chunk queries. In time linear in the
// number of chunks wherever the index is walked or HDF5 lists.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/format/index_walk.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// One stored chunk: its first element, where its bytes are (absolute file offset), how many,
/// and the filters skipped for it (bit i: filter i).
struct chunk_entry {
    std::vector<std::size_t> offset;
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    std::uint32_t mask = 0;
};

/// Every stored chunk of a chunked dataset, row-major in its chunk grid.
CHUNKWISE_HDF5_DECL std::vector<chunk_entry> inventory(const dataset_state& s);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/inventory.ipp>
#endif
