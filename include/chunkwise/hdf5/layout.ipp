// The definitions of chunkwise/hdf5/layout.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {

[[nodiscard]] CHUNKWISE_HDF5_DECL layout_report analyze_layout(const dataset& ds) {
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
