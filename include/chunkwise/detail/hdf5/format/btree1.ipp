// The definitions of chunkwise/detail/hdf5/format/btree1.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL bool read_btree_layout(const std::vector<unsigned char>& m, const std::vector<std::size_t>& chunk,
                                           btree_index& ix) {
    const std::size_t a = ix.addr_size;
    if (m.size() < 3 || m[0] != 3 || m[1] != 2) return false;
    const std::size_t ndims = m[2];
    if (ndims != chunk.size() + 1 || m.size() < 3 + a + 4 * ndims) return false;
    ix.root = le(m.data() + 3, a);
    ix.empty = true;
    for (std::size_t i = 0; i < a; ++i) ix.empty = ix.empty && m[3 + i] == 0xff;  // HADDR_UNDEF
    ix.rank = chunk.size();
    ix.dim.resize(ix.rank);
    for (std::size_t d = 0; d < ix.rank; ++d) {
        ix.dim[d] = le(m.data() + 3 + a + 4 * d, 4);
        if (ix.dim[d] != chunk[d]) return false;
    }
    ix.element = le(m.data() + 3 + a + 4 * ix.rank, 4);
    return ix.element != 0;
}

}  // namespace chunkwise::h5::detail

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL btree_walk::btree_walk(const btree_index& ix, const std::uint64_t* from, const std::uint64_t* to)
        : ix_(ix), from_(ix.rank + 1, 0), to_(ix.rank + 1, 0) {
    std::copy(from, from + ix.rank, from_.begin());
    std::copy(to, to + ix.rank, to_.begin());
}

CHUNKWISE_HDF5_DECL auto btree_walk::compare(const std::uint64_t* x, const std::uint64_t* y) const noexcept -> int {
    for (std::size_t d = 0; d <= ix_.rank; ++d) {
        if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
    }
    return 0;
}

}  // namespace chunkwise::h5::detail
