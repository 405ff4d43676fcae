#pragma once
// Internal: what HDF5 says about a dataset's chunks, asked the way each release can answer.
// - Every stored chunk's address, size and filter mask in one pass (`H5Dchunk_iter`, in HDF5
//   1.14, 1.12.3 and 1.10.10 on), checked against the bytes HDF5 itself reads for one chunk (a
//   file's user block was left out of these addresses before 2024).
// - Whether a chunk HDF5 did not read was never written: from its answers (a stored size of 0,
//   an undefined address), never from the text of an error message.
// - `H5Dread_chunk` under its name in each API (HDF5 2.0 takes the buffer's size).
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/library.hpp>

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#if H5_VERSION_GE(1, 14, 0) || (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 12 && H5_VERS_RELEASE >= 3) || \
    (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 10)
#define CHUNKWISE_H5_CHUNK_ITER 1
#else
#define CHUNKWISE_H5_CHUNK_ITER 0
#endif

namespace chunkwise::h5::detail {

/// True where this HDF5 lists every chunk of a dataset in one pass (H5Dchunk_iter).
inline constexpr bool has_chunk_iter = CHUNKWISE_H5_CHUNK_ITER != 0;

/// H5Dread_chunk: the chunk at `offset` as stored, into buf (`size` bytes). Call with the lock held.
CHUNKWISE_HDF5_DECL herr_t direct_read_chunk(hid_t dset, const hsize_t* offset, std::uint32_t* mask, void* buf,
                                             [[maybe_unused]] std::size_t size);

/// One stored chunk, as H5Dchunk_iter lists it.
struct indexed_chunk {
    std::uint64_t linear = 0;  // row-major in the chunk grid
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    std::uint32_t mask = 0;
};

/// Every stored chunk of `dset` (chunk extents `chunk`, chunks per axis `grid`), or nullopt where
/// this HDF5 cannot list them or the listing fails. Chunks beyond the current extent (left by a
/// shrinking H5Dset_extent) are left out. Call with the lock held.
CHUNKWISE_HDF5_DECL std::optional<std::vector<indexed_chunk>> list_chunks(
    [[maybe_unused]] hid_t dset, [[maybe_unused]] const std::vector<std::size_t>& chunk,
    [[maybe_unused]] const std::vector<std::size_t>& grid);

/// How far the listed addresses are from where the bytes are in the file (`fd`): 0, or the user
/// block's size where this HDF5 left it out; nullopt where neither gives the bytes HDF5 reads for
/// chunk `c` (at element offset `offset`): then the listing is not used. Call with the lock held.
CHUNKWISE_HDF5_DECL std::optional<std::uint64_t> listing_shift(hid_t dset, hid_t file, int fd, const indexed_chunk& c,
                                                               const hsize_t* offset);

/// Whether the chunk at `offset`, which HDF5 did not read, was never written (HDF5 then gives
/// fill values): true or false from HDF5's answers, nullopt where it gives none. On HDF5 without
/// H5Dchunk_iter this costs a walk of the chunk index (only for chunks HDF5 did not read). Call
/// with the lock held.
CHUNKWISE_HDF5_DECL std::optional<bool> never_written(hid_t dset, const hsize_t* offset);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/locate.ipp>
#endif
