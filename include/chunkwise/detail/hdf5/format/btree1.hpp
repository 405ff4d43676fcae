#pragma once
// Internal: chunk locations read from the file's own chunk index, in the reading thread, outside
// the library lock. A dataset whose layout message is of version 3 (what every HDF5 writes unless
// asked for the newest format: h5py, netCDF-4 and chunkwise do) indexes its chunks in a version 1
// B-tree. A read walks the part of that tree its box covers with pread and finds exactly the
// chunks HDF5's own lookup finds: every node is checked (signature, type, level below its
// parent's, entry count, keys rising strictly, inside the file's allocated space), and a chunk
// counts only inside the key ranges of every node above it, as HDF5's binary search descends.
// Anything else (another index type, a node that is not what the format says, a chunk outside
// the allocated space) makes the read locate its chunks the HDF5 way, under the lock, which
// reports what is wrong as before. The walk reads a few nodes per block: no lock, no cache.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/format/object_header.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace chunkwise::h5::detail {

/// Where a dataset's v1 B-tree chunk index is, learnt when it is opened.
struct btree_index {
    int fd = -1;                     // the file the dataset lives in (owned by dataset_state)
    std::uint64_t base = 0;          // file offset of relative address 0 (the user block's size)
    std::uint64_t eoa = 0;           // end of the allocated space, relative
    std::uint64_t root = 0;          // the root node, relative; undefined: no chunk written yet
    bool empty = false;              // no index yet: every chunk reads as the fill value
    unsigned addr_size = 8;          // bytes of a file address
    unsigned max_entries = 0;        // children of a full node (2K, the file's istore_k)
    std::size_t rank = 0;            // the dataset's rank (keys hold one more offset: 0)
    std::vector<std::uint64_t> dim;  // chunk extents (rank of them)
    std::uint64_t element = 0;       // the element size, the last extent of the keys

    [[nodiscard]] bool usable() const noexcept { return fd >= 0; }
    [[nodiscard]] std::size_t key_bytes() const noexcept { return 8 + 8 * (rank + 1); }
    /// Bytes HDF5 reads for one node: its header and room for max_entries children.
    [[nodiscard]] std::size_t node_bytes() const noexcept {
        return 8 + 2 * std::size_t{addr_size} + (std::size_t{max_entries} + 1) * key_bytes() +
               std::size_t{max_entries} * addr_size;
    }
};

/// Reads a v3 layout message of a chunked dataset into `ix` (root, chunk extents); false for any
/// other layout or a message that does not match the dataset's rank and chunk shape.
CHUNKWISE_HDF5_DECL bool read_btree_layout(const std::vector<unsigned char>& m, const std::vector<std::size_t>& chunk,
                                           btree_index& ix);

/// A walk of the B-tree over the chunks whose coordinates lie, row-major, from `from` to `to`
/// (inclusive): calls found(coords, address, size, mask) for each stored chunk HDF5's lookup
/// would find there, in row-major order, until found returns false. run() is false on anything
/// the format does not allow (the read then asks HDF5).
///
/// Keys are compared as HDF5 compares them: lexicographically over the chunk coordinates and the
/// element offset (0 for every chunk; a node's last key, its right bound, may hold 1 there). A
/// leaf's entry is the chunk at its key, found only where that key lies inside the ranges of
/// every node above it.
class btree_walk {
public:
    btree_walk(const btree_index& ix, const std::uint64_t* from, const std::uint64_t* to);

    template <class Found>
    bool run(Found&& found) {
        if (ix_.empty) return true;
        return visit(ix_.root, 64, nullptr, nullptr, found);
    }

private:
    /// Lexicographic comparison of two keys (rank + 1 values).
    [[nodiscard]] int compare(const std::uint64_t* x, const std::uint64_t* y) const noexcept;

    /// Visits the node at `addr` (relative), whose level must be below `above`, inside the key
    /// range [lo, hi) of the nodes above it (null: unbounded).
    template <class Found>
    bool visit(std::uint64_t addr, unsigned above, const std::uint64_t* lo, const std::uint64_t* hi, Found& found) {
        if (++nodes_ > (std::size_t{1} << 22)) return false;
        const std::size_t size = ix_.node_bytes();
        if (addr > ix_.eoa || size > ix_.eoa - addr) return false;  // HDF5 reads the whole node
        std::vector<unsigned char> node(size);
        if (!chunkwise::detail::posix::pread_all(ix_.fd, node.data(), size, ix_.base + addr)) return false;
        const unsigned char* p = node.data();
        if (std::memcmp(p, "TREE", 4) != 0 || p[4] != 1) return false;
        const unsigned level = p[5];
        const auto entries = static_cast<std::size_t>(le(p + 6, 2));
        if (level >= above || entries > ix_.max_entries || (entries == 0 && above != 64)) return false;
        // Keys and children interleaved: key 0, child 0, key 1, ..., child n-1, key n.
        const std::size_t a = ix_.addr_size, kb = ix_.key_bytes(), stride = kb + a, r = ix_.rank, w = r + 1;
        const std::uint64_t element = ix_.element;
        const unsigned char* first = p + 8 + 2 * a;
        std::vector<std::uint64_t> keys((entries + 1) * w);
        std::vector<std::uint32_t> sizes(entries), masks(entries);
        std::vector<std::uint64_t> children(entries);
        for (std::size_t i = 0; i <= entries; ++i) {
            const unsigned char* k = first + i * stride;
            for (std::size_t d = 0; d <= r; ++d) {
                const std::uint64_t offset = le(k + 8 + 8 * d, 8);
                const std::uint64_t extent = d < r ? ix_.dim[d] : element;
                if (offset % extent != 0) return false;
                keys[i * w + d] = offset / extent;
            }
            // HDF5 compares 1-d chunks' left keys without their element offset: where that is
            // not 0, the two comparisons differ.
            if (r == 1 && i < entries && keys[i * w + 1] != 0) return false;
            if (i > 0 && compare(&keys[(i - 1) * w], &keys[i * w]) >= 0) return false;
            if (i < entries) {
                sizes[i] = static_cast<std::uint32_t>(le(k, 4));
                masks[i] = static_cast<std::uint32_t>(le(k + 4, 4));
                children[i] = le(k + kb, a);
            }
        }
        for (std::size_t i = 0; i < entries && !stopped_; ++i) {
            // This child's range: [key i, key i+1) within [lo, hi).
            const std::uint64_t* clo = &keys[i * w];
            const std::uint64_t* chi = &keys[(i + 1) * w];
            if (lo != nullptr && compare(clo, lo) < 0) clo = lo;
            if (hi != nullptr && compare(chi, hi) > 0) chi = hi;
            if (compare(clo, chi) >= 0) continue;                                           // nothing found here
            if (compare(clo, to_.data()) > 0 || compare(chi, from_.data()) <= 0) continue;  // outside the walk
            if (level > 0) {
                if (!visit(children[i], level, clo, chi, found)) return false;
                continue;
            }
            // A leaf's entry i is the chunk at key i: found only inside the ranges above.
            const std::uint64_t* at = &keys[i * w];
            if (clo != at || at[r] != 0 || compare(at, from_.data()) < 0 || compare(at, to_.data()) > 0) continue;
            if (sizes[i] == 0 || children[i] > ix_.eoa || sizes[i] > ix_.eoa - children[i]) return false;
            if (!found(at, ix_.base + children[i], sizes[i], masks[i])) stopped_ = true;
        }
        return true;
    }

    const btree_index& ix_;
    std::vector<std::uint64_t> from_, to_;
    std::size_t nodes_ = 0;
    bool stopped_ = false;
};

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/format/btree1.ipp>
#endif
