#pragma once
/// \file
/// `chunkwise::h5::layout_report`: what reading a dataset row by row (frame by frame) costs with
/// its chunk layout, and the chunk shape that would make it cheap.

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
[[nodiscard]] inline layout_report analyze_layout(const dataset& ds) {
    layout_report r;
    r.shape = ds.shape();
    r.row_bytes = ds.element_size();
    for (std::size_t d = 1; d < r.shape.size(); ++d) r.row_bytes *= r.shape[d];
    const auto chunk = ds.chunk_shape();
    if (!chunk) {
        r.bytes_decoded_per_row = r.row_bytes;
        r.advice = "contiguous: a row is one read of " + std::to_string(r.row_bytes) + " bytes";
        return r;
    }
    r.chunk = *chunk;
    std::size_t chunk_bytes = ds.element_size();
    r.chunks_per_row = 1;
    for (std::size_t d = 0; d < r.shape.size(); ++d) {
        chunk_bytes *= r.chunk[d];
        if (d > 0) r.chunks_per_row *= (r.shape[d] + r.chunk[d] - 1) / r.chunk[d];
    }
    r.bytes_decoded_per_row = r.chunks_per_row * chunk_bytes;
    r.amplification =
        r.row_bytes == 0 ? 1.0 : static_cast<double>(r.bytes_decoded_per_row) / static_cast<double>(r.row_bytes);
    std::vector<std::size_t> one_row = r.shape;
    one_row[0] = 1;
    if (r.chunk != one_row && r.row_bytes > 0 && r.row_bytes <= (std::size_t{64} << 20)) {
        r.suggested_chunk = one_row;
    }
    if (r.amplification <= 1.5 && r.chunks_per_row <= 1) {
        r.advice = "good for row-by-row reads: one chunk per row, " + std::to_string(r.bytes_decoded_per_row) +
                   " bytes decoded per row";
    } else {
        std::string s = "(";
        for (std::size_t d = 0; d < one_row.size(); ++d) s += (d ? ", " : "") + std::to_string(one_row[d]);
        s += ")";
        r.advice = "row-by-row reads decode " + std::to_string(r.bytes_decoded_per_row) + " bytes (" +
                   std::to_string(r.chunks_per_row) + " chunks) per row of " + std::to_string(r.row_bytes) +
                   " bytes; rechunk to " + s + " (examples/04-rechunk) or read whole chunk-aligned blocks";
    }
    return r;
}

}  // namespace chunkwise::h5
