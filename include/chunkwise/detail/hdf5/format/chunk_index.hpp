#pragma once
// Internal: every chunk index HDF5 writes, read from the file's own structures by the reading
// thread, outside the library lock (layout message version 3: the v1 B-tree, format/btree1.hpp;
// version 4 and later, written by `libver='latest'`, SWMR writers and a format bound of 1.10 or
// later: single chunk, implicit, fixed array, extensible array, v2 B-tree).
//
// Each structure of the newer indexes carries a signature, a version and a Jenkins lookup3
// checksum: every one is checked, with the structure's own fields (client, element and record
// sizes, the header each block points back to, block offsets, entry counts, keys rising
// strictly, addresses inside the allocated space). A checksum that does not match is read again
// a few times, as HDF5's SWMR reader does, before the structure is called damaged. A walk finds a
// chunk only where HDF5's lookup finds it; what the format does not allow is `damage()`, which
// the read reports as an h5::error (HDF5 itself is never asked to trust such a structure); what
// this walk does not read (a layout it does not know) leaves the read to HDF5. The walk itself:
// format/index_walk.hpp.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/format/btree1.hpp>
#include <chunkwise/detail/hdf5/format/checksum.hpp>
#include <chunkwise/detail/hdf5/format/object_header.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// The chunk index types of the HDF5 file format (layout message field "chunk indexing type";
/// btree1 for layout messages of version 3).
enum class index_kind : std::uint8_t { none, btree1, single, implicit, fixed_array, extensible_array, btree2 };

/// The name of an index type, for messages and the doctor.
CHUNKWISE_HDF5_DECL const char* index_name(index_kind k);

/// Where a dataset's chunk index is and how to read it, learnt when the dataset is opened. The
/// v1 B-tree part (btree_index) also holds what every index needs: the file, its base and end of
/// allocated space, the address size, the rank and the chunk extents.
struct chunk_index : btree_index {
    index_kind kind = index_kind::none;
    unsigned len_size = 8;            // bytes of a file length
    bool filtered = false;            // the dataset has filters: entries carry size and mask
    std::uint64_t address = 0;        // the index header, the single chunk, or the implicit storage
    std::uint64_t chunk_bytes = 0;    // bytes of an unfiltered chunk
    std::vector<std::uint64_t> grid;  // chunks along each axis now (a walk's box is clamped to it)
    std::vector<std::uint64_t> down;  // element index = sum coords[d] * down[d] (axes swizzled for EA)
    std::size_t unlimited = 0;        // extensible array: the unlimited axis
    std::uint64_t single_size = 0;    // single filtered chunk: its stored size and filter mask
    std::uint32_t single_mask = 0;
    // Fixed and extensible arrays: an entry's bytes, and the header's fields.
    unsigned entry_bytes = 0, size_bytes = 0;  // an entry; its stored-size field (filtered only)
    unsigned page_bits = 0;                    // elements per data block page: 2^page_bits
    std::uint64_t elements = 0;                // fixed array: entries; extensible: the highest set + 1
    std::uint64_t data_block = 0;              // fixed array: its data block (undefined: none)
    // Extensible array.
    unsigned max_bits = 0, iblock_elements = 0, min_pointers = 0, min_elements = 0;
    std::uint64_t index_block = 0;
    // v2 B-tree.
    unsigned node_size = 0, record_bytes = 0, depth = 0, root_records = 0;
    std::uint64_t root_node = 0;
    std::vector<std::uint64_t> max_records;     // per depth
    std::vector<unsigned> total_records_bytes;  // per depth: bytes of a child's subtree record count
    unsigned records_bytes = 0;                 // bytes of a child's record count

    [[nodiscard]] bool undefined(std::uint64_t a) const noexcept {
        return addr_size >= 8 ? a == ~std::uint64_t{0} : a == (std::uint64_t{1} << (8 * addr_size)) - 1;
    }
};

/// Reads the structure of `size` bytes at relative address `addr` of `ix`'s file into `out`: its
/// last 4 bytes the lookup3 checksum of the others, beginning with `signature` (unless null) and
/// version 0. A checksum that does not match is read again up to 4 times (a SWMR writer may be
/// rewriting it). Returns "" or what is wrong, naming the structure (`what`).
CHUNKWISE_HDF5_DECL std::string read_structure(const chunk_index& ix, std::uint64_t addr, std::size_t size,
                                               const char* signature, const char* what,
                                               std::vector<unsigned char>& out);

/// The index fields of a layout message of version 4 or later, as read_v4_index reads them: the
/// message `m` with its flags, where the index type's own fields start (`at`), the index being
/// filled, whether chunks are filtered, and the chunks along each axis at the maximum extent.
struct v4_fields {
    const std::vector<unsigned char>& m;
    unsigned flags;
    std::size_t at;
    chunk_index& ix;
    bool filtered;
    const std::vector<std::uint64_t>& maxgrid;
    /// True where k more bytes and an address follow `at` in the message.
    [[nodiscard]] bool need(std::size_t k) const { return at + k + ix.addr_size <= m.size(); }
};

/// The number of chunks of the maximum grid, false where an axis is unlimited or it overflows.
CHUNKWISE_HDF5_DECL bool all_chunks(const std::vector<std::uint64_t>& maxgrid, std::uint64_t& total);

/// Sets ix's entry size from a fixed or extensible array header's; false where it does not fit
/// an address (and, filtered, a size of 1-8 bytes and a filter mask).
CHUNKWISE_HDF5_DECL bool v4_entry_ok(chunk_index& ix, unsigned elsize, bool filtered);

/// Index type 1: a single chunk (its size and filter mask in the message where filtered).
CHUNKWISE_HDF5_DECL std::string v4_single(v4_fields f);

/// Index type 2: implicit, every chunk allocated, in order, inside the allocated space.
CHUNKWISE_HDF5_DECL std::string v4_implicit(v4_fields f);

/// Index type 3: a fixed array, its header read and checked.
CHUNKWISE_HDF5_DECL std::string v4_fixed_array(v4_fields f);

/// Index type 4: an extensible array over the one unlimited axis (entries swizzled: the unlimited
/// axis first), its header read and checked against the layout's parameters.
CHUNKWISE_HDF5_DECL std::string v4_extensible_array(v4_fields f);

/// A v2 B-tree's records per node at each depth and the widths of its child pointers' counts.
CHUNKWISE_HDF5_DECL std::string btree2_geometry(chunk_index& ix);

/// Index type 5: a v2 B-tree of chunk records, its header read and checked.
CHUNKWISE_HDF5_DECL std::string v4_btree2(v4_fields f);

/// Reads the index header of a layout message of version 4 or later into `ix` (the message's
/// fields, then the index's own header, every field checked). Returns "" when ix is ready to
/// walk (or kind none: a layout this walk does not read), else what is wrong with the file.
/// `maxgrid`: chunks along each axis at the dataset's maximum extent (0 for an unlimited axis).
CHUNKWISE_HDF5_DECL std::string read_v4_index(const std::vector<unsigned char>& m,
                                              const std::vector<std::size_t>& chunk,
                                              const std::vector<std::uint64_t>& maxgrid, bool filtered,
                                              chunk_index& ix);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/format/chunk_index.ipp>
#endif
