// The definitions of chunkwise/detail/hdf5/read/inventory.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::vector<chunk_entry> inventory(const dataset_state& s) {
    std::vector<chunk_entry> out;
    if (s.layout != storage::chunked || s.total_chunks == 0) return out;
    const std::size_t n = s.dims.size();
    if (s.index.usable()) {
        std::vector<std::uint64_t> from(n, 0), to(n);
        for (std::size_t d = 0; d < n; ++d) to[d] = s.grid[d] - 1;
        index_walk walk(s.index, from.data(), to.data());
        const bool ok =
            walk.run([&](const std::uint64_t* at, std::uint64_t address, std::uint64_t size, std::uint32_t mask) {
                chunk_entry e;
                e.offset.resize(n);
                for (std::size_t d = 0; d < n; ++d) e.offset[d] = static_cast<std::size_t>(at[d]) * s.chunk[d];
                e.address = address;
                e.size = size;
                e.mask = mask;
                out.push_back(std::move(e));
                return true;
            });
        if (!walk.damage().empty()) s.fail("its chunk index is damaged: " + walk.damage());
        if (ok) return out;
        out.clear();  // damaged: asked of HDF5, which reports what is wrong
    }
    library_lock lock;
    if (!s.probing && !s.listing_tried) s.list_all();
    std::vector<hsize_t> offset(n);
    if (s.probing || s.listed) {
        for (std::uint64_t linear = 0; linear < s.total_chunks; ++linear) {
            std::uint64_t rest = linear;
            for (std::size_t d = n; d-- > 0;) {
                offset[d] = static_cast<hsize_t>(rest % s.grid[d]) * s.chunk[d];
                rest /= s.grid[d];
            }
            const chunk_location loc = s.locate(linear, offset.data());
            if (loc.state != chunk_location::kind::stored) continue;
            out.push_back(
                chunk_entry{std::vector<std::size_t>(offset.begin(), offset.end()), loc.address, loc.size, loc.mask});
        }
        return out;
    }
    // Neither the probe driver nor a listing: HDF5's queries, chunk by chunk.
    // HDF5 1.10 takes the dataset's own dataspace here, not H5S_ALL.
    handle space(H5Dget_space(s.dset_h.get()), H5Sclose);
    hsize_t count = 0;
    if (!space.valid() || H5Dget_num_chunks(s.dset_h.get(), space.get(), &count) < 0)
        s.fail("cannot count the stored chunks: " + last_error());
    for (hsize_t i = 0; i < count; ++i) {
        unsigned mask = 0;
        haddr_t address = HADDR_UNDEF;
        hsize_t size = 0;
        if (H5Dget_chunk_info(s.dset_h.get(), space.get(), i, offset.data(), &mask, &address, &size) < 0) {
            s.fail("cannot read where chunk " + std::to_string(i) + " is: " + last_error());
        }
        out.push_back(chunk_entry{std::vector<std::size_t>(offset.begin(), offset.end()), address, size, mask});
    }
    std::sort(out.begin(), out.end(), [](const chunk_entry& a, const chunk_entry& b) { return a.offset < b.offset; });
    return out;
}

}  // namespace chunkwise::h5::detail
