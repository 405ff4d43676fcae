// The definitions of chunkwise/detail/hdf5/read/locate.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL herr_t direct_read_chunk(hid_t dset, const hsize_t* offset, std::uint32_t* mask, void* buf,
                                             [[maybe_unused]] std::size_t size) {
#if defined(H5Dread_chunk_vers) && H5Dread_chunk_vers >= 2
    std::size_t n = size;
    return H5Dread_chunk2(dset, H5P_DEFAULT, offset, mask, buf, &n);
#else
    return H5Dread_chunk(dset, H5P_DEFAULT, offset, mask, buf);
#endif
}

CHUNKWISE_HDF5_DECL std::optional<std::vector<indexed_chunk>> list_chunks(
    [[maybe_unused]] hid_t dset, [[maybe_unused]] const std::vector<std::size_t>& chunk,
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

CHUNKWISE_HDF5_DECL std::optional<std::uint64_t> listing_shift(hid_t dset, hid_t file, int fd, const indexed_chunk& c,
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

CHUNKWISE_HDF5_DECL std::optional<bool> never_written(hid_t dset, const hsize_t* offset) {
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
