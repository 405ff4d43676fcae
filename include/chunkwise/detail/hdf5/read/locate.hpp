#pragma once
// Internal: what HDF5 says about a dataset's chunks, asked the way each release can answer.
// - Every stored chunk's address, size and filter mask in one pass (`H5Dchunk_iter`, in HDF5
//   1.14, 1.12.3 and 1.10.10 on), checked against the bytes HDF5 itself reads for one chunk (a
//   file's user block was left out of these addresses before 2024).
// - Whether a chunk HDF5 did not read was never written: from its answers (a stored size of 0,
//   an undefined address), never from the text of an error message.
// - `H5Dread_chunk` under its name in each API (HDF5 2.0 takes the buffer's size).
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
inline herr_t direct_read_chunk(hid_t dset, const hsize_t* offset, std::uint32_t* mask, void* buf,
                                [[maybe_unused]] std::size_t size) {
#if defined(H5Dread_chunk_vers) && H5Dread_chunk_vers >= 2
    std::size_t n = size;
    return H5Dread_chunk2(dset, H5P_DEFAULT, offset, mask, buf, &n);
#else
    return H5Dread_chunk(dset, H5P_DEFAULT, offset, mask, buf);
#endif
}

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
inline std::optional<std::vector<indexed_chunk>> list_chunks([[maybe_unused]] hid_t dset,
                                                             [[maybe_unused]] const std::vector<std::size_t>& chunk,
                                                             [[maybe_unused]] const std::vector<std::size_t>& grid) {
#if CHUNKWISE_H5_CHUNK_ITER
    struct context {
        const std::vector<std::size_t>* chunk;
        const std::vector<std::size_t>* grid;
        std::vector<indexed_chunk> out;
    } ctx{&chunk, &grid, {}};
    const herr_t rc = H5Dchunk_iter(
        dset, H5P_DEFAULT,
        [](const hsize_t* offset, unsigned mask, haddr_t addr, hsize_t size, void* data) -> int {
            auto& c = *static_cast<context*>(data);
            std::uint64_t linear = 0;
            for (std::size_t d = 0; d < c.chunk->size(); ++d) {
                const std::uint64_t k = offset[d] / (*c.chunk)[d];
                if (offset[d] % (*c.chunk)[d] != 0 || k >= (*c.grid)[d]) return H5_ITER_CONT;  // outside the extent
                linear = linear * (*c.grid)[d] + k;
            }
            if (addr == HADDR_UNDEF) return H5_ITER_CONT;
            c.out.push_back(indexed_chunk{linear, static_cast<std::uint64_t>(addr), static_cast<std::uint64_t>(size),
                                          static_cast<std::uint32_t>(mask)});
            return H5_ITER_CONT;
        },
        &ctx);
    if (rc < 0) {
        H5Eclear2(H5E_DEFAULT);
        return std::nullopt;
    }
    return std::move(ctx.out);
#else
    return std::nullopt;
#endif
}

/// How far the listed addresses are from where the bytes are in the file (`fd`): 0, or the user
/// block's size where this HDF5 left it out; nullopt where neither gives the bytes HDF5 reads for
/// chunk `c` (at element offset `offset`): then the listing is not used. Call with the lock held.
inline std::optional<std::uint64_t> listing_shift(hid_t dset, hid_t file, int fd, const indexed_chunk& c,
                                                  const hsize_t* offset) {
    if (c.size == 0 || c.size > (std::uint64_t{1} << 30)) return std::nullopt;
    const auto n = static_cast<std::size_t>(c.size);
    std::vector<unsigned char> by_hdf5(n), by_us(n);
    std::uint32_t mask = 0;
    if (direct_read_chunk(dset, offset, &mask, by_hdf5.data(), n) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return std::nullopt;
    }
    hsize_t userblock = 0;
    {
        handle fcpl(H5Fget_create_plist(file), H5Pclose);
        if (!fcpl.valid() || H5Pget_userblock(fcpl.get(), &userblock) < 0) userblock = 0;
        H5Eclear2(H5E_DEFAULT);
    }
    for (const std::uint64_t shift : {std::uint64_t{0}, static_cast<std::uint64_t>(userblock)}) {
        if (c.address > std::numeric_limits<std::uint64_t>::max() - shift) continue;
        const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(fd, by_us.data(), n, c.address + shift);
        if (got == static_cast<std::ptrdiff_t>(n) && std::memcmp(by_us.data(), by_hdf5.data(), n) == 0) return shift;
        if (userblock == 0) break;
    }
    return std::nullopt;
}

/// Whether the chunk at `offset`, which HDF5 did not read, was never written (HDF5 then gives
/// fill values): true or false from HDF5's answers, nullopt where it gives none. On HDF5 without
/// H5Dchunk_iter this costs a walk of the chunk index (only for chunks HDF5 did not read). Call
/// with the lock held.
inline std::optional<bool> never_written(hid_t dset, const hsize_t* offset) {
    hsize_t stored = 0;
    if (H5Dget_chunk_storage_size(dset, offset, &stored) >= 0 && stored == 0) return true;
    H5Eclear2(H5E_DEFAULT);
#if H5_VERSION_GE(1, 10, 5)
    unsigned mask = 0;
    haddr_t address = HADDR_UNDEF;
    hsize_t size = 0;
    if (H5Dget_chunk_info_by_coord(dset, offset, &mask, &address, &size) >= 0) return address == HADDR_UNDEF;
    H5Eclear2(H5E_DEFAULT);
#endif
    return std::nullopt;
}

}  // namespace chunkwise::h5::detail
