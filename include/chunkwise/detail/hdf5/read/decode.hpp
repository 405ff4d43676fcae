#pragma once
// Internal: one stored chunk's filters undone, each by its codec (filters/table.hpp) or by an
// installed plugin in the calling thread, the last one writing straight into the output where
// asked; and the most bytes a stored chunk of a dataset can hold.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/read/bytes.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// Chunks unshuffled with their bytes swapped into the output, process-wide (for tests).
inline std::atomic<std::uint64_t>& swapped_unshuffles() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}

/// Undoes the chunk's filters (in reverse, skipping those its mask says were skipped) on
/// buf.a[0, stored) (or on `input`[0, stored) where given), each by its codec (filters/table.hpp);
/// returns the chunk_bytes decoded bytes (in buf.a or buf.b, or in `into` when given: then the
/// last filter writes straight there, which must have room for chunk_bytes). `swapped`: the last
/// filter is a shuffle (unshuffles_last) that writes into `into` with each element's bytes
/// reversed, the byte order undone in the same pass.
CHUNKWISE_HDF5_DECL const unsigned char* decode_chunk(const dataset_state& s, scratch& buf, std::size_t stored,
                                                      std::uint32_t mask, const std::size_t* offset,
                                                      unsigned char* into = nullptr,
                                                      const unsigned char* input = nullptr, bool swapped = false);

/// True where the filter undone last for a chunk with this mask is HDF5's shuffle of whole
/// elements, decoded by chunkwise (so decode_chunk can reverse each element's bytes as it writes).
CHUNKWISE_HDF5_DECL bool unshuffles_last(const dataset_state& s, std::uint32_t mask);

/// The most bytes a stored chunk of this dataset holds (its pipeline's worst case).
inline std::size_t max_stored_of(const dataset_state& s) {
    return s.stage_bound.empty() ? unbounded : s.stage_bound.back();
}

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/decode.ipp>
#endif
