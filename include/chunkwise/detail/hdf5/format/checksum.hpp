#pragma once
// Internal: the checksum of every HDF5 metadata structure of format version 2 and later (Bob
// Jenkins' lookup3 hash, "hashlittle", initial value 0), and small integer helpers of the format.
#include <chunkwise/detail/core/compiled.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace chunkwise::h5::detail {

/// Jenkins' lookup3 hash of `n` bytes (hashlittle, initial value 0): the checksum of every HDF5
/// metadata structure of format version 2 and later.
CHUNKWISE_HDF5_DECL std::uint32_t lookup3(const unsigned char* k, std::size_t n);

/// floor(log2(v)) for v > 0.
inline unsigned log2_floor(std::uint64_t v) { return 63u - static_cast<unsigned>(__builtin_clzll(v)); }

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/format/checksum.ipp>
#endif
