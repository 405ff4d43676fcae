#pragma once
/// \file
/// `chunkwise::h5::layout_report`: what reading a dataset row by row (frame by frame) costs with
/// its chunk layout, and the chunk shape that would make it cheap.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/hdf5/dataset.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::h5 {

/// The cost of reading one row (a frame) at a time, as the storage layout dictates.
struct layout_report {
    std::vector<std::size_t> shape;            ///< the dataset's shape
    std::vector<std::size_t> chunk;            ///< its chunk shape (empty: contiguous)
    std::size_t row_bytes = 0;                 ///< bytes of one row
    std::size_t chunks_per_row = 0;            ///< chunks a read of one row touches (0: contiguous)
    std::size_t bytes_decoded_per_row = 0;     ///< bytes decoded to read one row without a cache
    double amplification = 1;                  ///< bytes_decoded_per_row / row_bytes
    std::vector<std::size_t> suggested_chunk;  ///< (1, rest of the shape) when that is better
    std::string advice;                        ///< one sentence
};

/// Reports how chunking serves row-by-row reading of `ds`. A row-by-row reader without a chunk
/// cache decodes every chunk a row touches, whole, once per row; h5py's automatic chunking puts
/// parts of many rows in one chunk and spreads a row over many chunks.
[[nodiscard]] CHUNKWISE_HDF5_DECL layout_report analyze_layout(const dataset& ds);

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/layout.ipp>
#endif
