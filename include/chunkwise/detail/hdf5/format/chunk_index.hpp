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
// this walk does not read (a layout it does not know) leaves the read to HDF5.
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/format/btree1.hpp>
#include <chunkwise/detail/hdf5/format/object_header.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace chunkwise::h5::detail {

/// The chunk index types of the HDF5 file format (layout message field "chunk indexing type";
/// btree1 for layout messages of version 3).
enum class index_kind : std::uint8_t { none, btree1, single, implicit, fixed_array, extensible_array, btree2 };

/// The name of an index type, for messages and the doctor.
inline const char* index_name(index_kind k) {
    switch (k) {
        case index_kind::none: return "none";
        case index_kind::btree1: return "v1 B-tree";
        case index_kind::single: return "single chunk";
        case index_kind::implicit: return "implicit";
        case index_kind::fixed_array: return "fixed array";
        case index_kind::extensible_array: return "extensible array";
        case index_kind::btree2: return "v2 B-tree";
    }
    return "unknown";
}

/// Jenkins' lookup3 hash of `n` bytes (hashlittle, initial value 0): the checksum of every HDF5
/// metadata structure of format version 2 and later.
inline std::uint32_t lookup3(const unsigned char* k, std::size_t n) {
    auto rot = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
    std::uint32_t a = 0xdeadbeefu + static_cast<std::uint32_t>(n), b = a, c = a;
    auto word = [&](std::size_t i) {
        return static_cast<std::uint32_t>(k[i]) | static_cast<std::uint32_t>(k[i + 1]) << 8 |
               static_cast<std::uint32_t>(k[i + 2]) << 16 | static_cast<std::uint32_t>(k[i + 3]) << 24;
    };
    while (n > 12) {
        a += word(0);
        b += word(4);
        c += word(8);
        a -= c; a ^= rot(c, 4);  c += b;  // NOLINT: lookup3's mix, as published
        b -= a; b ^= rot(a, 6);  a += c;
        c -= b; c ^= rot(b, 8);  b += a;
        a -= c; a ^= rot(c, 16); c += b;
        b -= a; b ^= rot(a, 19); a += c;
        c -= b; c ^= rot(b, 4);  b += a;
        n -= 12;
        k += 12;
    }
    if (n == 0) return c;
    unsigned char tail[12] = {};
    std::memcpy(tail, k, n);
    a += static_cast<std::uint32_t>(tail[0]) | static_cast<std::uint32_t>(tail[1]) << 8 |
         static_cast<std::uint32_t>(tail[2]) << 16 | static_cast<std::uint32_t>(tail[3]) << 24;
    b += static_cast<std::uint32_t>(tail[4]) | static_cast<std::uint32_t>(tail[5]) << 8 |
         static_cast<std::uint32_t>(tail[6]) << 16 | static_cast<std::uint32_t>(tail[7]) << 24;
    c += static_cast<std::uint32_t>(tail[8]) | static_cast<std::uint32_t>(tail[9]) << 8 |
         static_cast<std::uint32_t>(tail[10]) << 16 | static_cast<std::uint32_t>(tail[11]) << 24;
    c ^= b; c -= rot(b, 14);  // lookup3's final
    a ^= c; a -= rot(c, 11);
    b ^= a; b -= rot(a, 25);
    c ^= b; c -= rot(b, 16);
    a ^= c; a -= rot(c, 4);
    b ^= a; b -= rot(a, 14);
    c ^= b; c -= rot(b, 24);
    return c;
}

/// floor(log2(v)) for v > 0.
inline unsigned log2_floor(std::uint64_t v) { return 63u - static_cast<unsigned>(__builtin_clzll(v)); }

/// Where a dataset's chunk index is and how to read it, learnt when the dataset is opened. The
/// v1 B-tree part (btree_index) also holds what every index needs: the file, its base and end of
/// allocated space, the address size, the rank and the chunk extents.
struct chunk_index : btree_index {
    index_kind kind = index_kind::none;
    unsigned len_size = 8;               // bytes of a file length
    bool filtered = false;               // the dataset has filters: entries carry size and mask
    std::uint64_t address = 0;           // the index header, the single chunk, or the implicit storage
    std::uint64_t chunk_bytes = 0;       // bytes of an unfiltered chunk
    std::vector<std::uint64_t> grid;     // chunks along each axis now (a walk's box is clamped to it)
    std::vector<std::uint64_t> down;     // element index = sum coords[d] * down[d] (axes swizzled for EA)
    std::size_t unlimited = 0;           // extensible array: the unlimited axis
    std::uint64_t single_size = 0;       // single filtered chunk: its stored size and filter mask
    std::uint32_t single_mask = 0;
    // Fixed and extensible arrays: an entry's bytes, and the header's fields.
    unsigned entry_bytes = 0, size_bytes = 0;  // an entry; its stored-size field (filtered only)
    unsigned page_bits = 0;                     // elements per data block page: 2^page_bits
    std::uint64_t elements = 0;                 // fixed array: entries; extensible: the highest set + 1
    std::uint64_t data_block = 0;               // fixed array: its data block (undefined: none)
    // Extensible array.
    unsigned max_bits = 0, iblock_elements = 0, min_pointers = 0, min_elements = 0;
    std::uint64_t index_block = 0;
    // v2 B-tree.
    unsigned node_size = 0, record_bytes = 0, depth = 0, root_records = 0;
    std::uint64_t root_node = 0;
    std::vector<std::uint64_t> max_records;      // per depth
    std::vector<unsigned> total_records_bytes;   // per depth: bytes of a child's subtree record count
    unsigned records_bytes = 0;                  // bytes of a child's record count

    [[nodiscard]] bool undefined(std::uint64_t a) const noexcept {
        return addr_size >= 8 ? a == ~std::uint64_t{0} : a == (std::uint64_t{1} << (8 * addr_size)) - 1;
    }
};

/// A walk of a chunk index over the box of chunk coordinates [from, to] (inclusive, clamped to
/// the grid): calls found(coords, address, size, mask) for each stored chunk in it, in row-major
/// order (the v1 B-tree may add chunks of the row-major range from..to outside the box), until
/// found returns false. run() is false where the read must not use the walk: damage() then says
/// what the format does not allow, or is empty where the walk does not read this layout.
class index_walk {
public:
    index_walk(const chunk_index& ix, const std::uint64_t* from, const std::uint64_t* to)
            : ix_(ix), from_(from, from + ix.rank), to_(to, to + ix.rank) {
        for (std::size_t d = 0; d < ix.rank && d < ix.grid.size(); ++d) {
            to_[d] = ix.grid[d] == 0 ? 0 : std::min<std::uint64_t>(to_[d], ix.grid[d] - 1);
            if (ix.grid[d] == 0) empty_box_ = true;
        }
        for (std::size_t d = 0; d < ix.rank; ++d) empty_box_ = empty_box_ || from_[d] > to_[d];
    }

    /// What the format does not allow, found by the last run ("" if nothing).
    [[nodiscard]] const std::string& damage() const noexcept { return damage_; }

    template <class Found>
    bool run(Found&& found) {
        switch (ix_.kind) {
            case index_kind::none: return false;
            case index_kind::btree1: {
                btree_walk walk(ix_, from_.data(), to_.data());
                return walk.run([&](const std::uint64_t* at, std::uint64_t address, std::uint32_t size, std::uint32_t mask) {
                    return found(at, address, std::uint64_t{size}, mask);
                });
            }
            case index_kind::btree2: {
                if (ix_.undefined(ix_.root_node) || ix_.root_records == 0 || empty_box_) return true;
                std::vector<std::uint64_t> lo, hi;
                return visit_btree2(ix_.root_node, ix_.depth, ix_.root_records, nullptr, nullptr, found);
            }
            default: break;
        }
        if (empty_box_) return true;
        // Single, implicit, fixed and extensible arrays: each chunk of the box looked up by its index.
        std::vector<std::uint64_t> at(from_);
        const std::size_t n = ix_.rank;
        while (true) {
            std::uint64_t linear = 0;
            if (ix_.kind == index_kind::extensible_array && ix_.unlimited != 0) {
                linear = at[ix_.unlimited] * ix_.down[0];
                for (std::size_t d = 0, s = 1; d < n; ++d) {
                    if (d != ix_.unlimited) linear += at[d] * ix_.down[s++];
                }
            } else {
                for (std::size_t d = 0; d < n; ++d) linear += at[d] * ix_.down[d];
            }
            entry e;
            if (!lookup(linear, e)) return false;
            if (e.stored) {
                if (e.address > ix_.eoa || e.size > ix_.eoa - e.address || e.size == 0) {
                    return fail("a chunk at address " + std::to_string(e.address) + " of " + std::to_string(e.size) +
                                " bytes, past the end of the file's allocated space (" + std::to_string(ix_.eoa) + ")");
                }
                if (!found(at.data(), ix_.base + e.address, e.size, e.mask)) return true;
            }
            std::size_t d = n;
            while (d-- > 0) {
                if (at[d] < to_[d]) {
                    ++at[d];
                    break;
                }
                at[d] = from_[d];
            }
            if (d == static_cast<std::size_t>(-1)) return true;
        }
    }

private:
    struct entry {
        bool stored = false;
        std::uint64_t address = 0, size = 0;
        std::uint32_t mask = 0;
    };

    bool fail(std::string what) {
        damage_ = std::string(index_name(ix_.kind)) + " chunk index: " + std::move(what);
        return false;
    }

    /// `size` bytes at `addr` whose last 4 are the lookup3 checksum of the others, beginning with
    /// `signature`, version 0: read (again up to 4 times while the checksum does not match).
    bool read_checked(std::uint64_t addr, std::size_t size, const char* signature, const char* what,
                      std::vector<unsigned char>& out) {
        if (++structures_ > (std::size_t{1} << 22)) return fail("more structures than the file can hold (a cycle?)");
        if (size < 10 || addr > ix_.eoa || size > ix_.eoa - addr) {
            return fail(std::string("the ") + what + " at address " + std::to_string(addr) +
                        " lies past the end of the file's allocated space (" + std::to_string(ix_.eoa) + ")");
        }
        out.resize(size);
        for (int attempt = 0; attempt < 5; ++attempt) {
            if (!chunkwise::detail::posix::pread_all(ix_.fd, out.data(), size, ix_.base + addr)) {
                return fail(std::string("the ") + what + " at address " + std::to_string(addr) + " cannot be read");
            }
            if (signature != nullptr && std::memcmp(out.data(), signature, 4) != 0) continue;
            if (lookup3(out.data(), size - 4) == static_cast<std::uint32_t>(le(out.data() + size - 4, 4))) {
                if (signature != nullptr && out[4] != 0) {
                    return fail(std::string("the ") + what + " at address " + std::to_string(addr) + " is of version " +
                                std::to_string(out[4]));
                }
                return true;
            }
        }
        if (signature != nullptr && std::memcmp(out.data(), signature, 4) != 0) {
            return fail(std::string("no ") + what + " (signature " + signature + ") at address " + std::to_string(addr));
        }
        return fail(std::string("the ") + what + " at address " + std::to_string(addr) + " fails its checksum");
    }

    /// Checks a block's client id and the header address it points back to (at offset 5 and 6).
    bool check_block(const std::vector<unsigned char>& b, const char* what, std::uint64_t addr) {
        if (b[5] != (ix_.filtered ? 1 : 0)) return fail(std::string("the ") + what + " at " + std::to_string(addr) + " is for another kind of entry");
        if (le(b.data() + 6, ix_.addr_size) != ix_.address) {
            return fail(std::string("the ") + what + " at " + std::to_string(addr) + " belongs to another array");
        }
        return true;
    }

    /// Decodes the entry at `p`.
    entry decode(const unsigned char* p) const {
        entry e;
        e.address = le(p, ix_.addr_size);
        if (ix_.undefined(e.address)) return e;
        e.stored = true;
        if (ix_.filtered) {
            e.size = le(p + ix_.addr_size, ix_.size_bytes);
            e.mask = static_cast<std::uint32_t>(le(p + ix_.addr_size + ix_.size_bytes, 4));
        } else {
            e.size = ix_.chunk_bytes;
        }
        return e;
    }

    /// The block at `addr` (`size` bytes, checked), read once per walk.
    const std::vector<unsigned char>* block(std::uint64_t addr, std::size_t size, const char* signature,
                                            const char* what) {
        auto it = blocks_.find(addr);
        if (it != blocks_.end()) {
            if (it->second.size() != size) {
                fail(std::string("two structures at address ") + std::to_string(addr));
                return nullptr;
            }
            return &it->second;
        }
        std::vector<unsigned char> b;
        if (!read_checked(addr, size, signature, what, b)) return nullptr;
        return &blocks_.emplace(addr, std::move(b)).first->second;
    }

    /// Entry `i` of a (possibly paged) data block at `addr` of `count` entries whose pages begin
    /// at `pages` (relative to addr); `init` says whether page p holds entries.
    template <class Init>
    bool paged_entry(std::uint64_t addr, std::size_t pages, std::uint64_t count, std::uint64_t i, Init&& init,
                     entry& e) {
        const std::uint64_t per_page = std::uint64_t{1} << ix_.page_bits;
        const std::uint64_t p = i / per_page;
        if (!init(p)) return true;  // never written: no chunk
        const std::uint64_t in_page = std::min(per_page, count - p * per_page);
        const std::uint64_t page_size = per_page * ix_.entry_bytes + 4;
        const std::uint64_t at = addr + pages + p * page_size;
        const auto* b = block(at, static_cast<std::size_t>(in_page * ix_.entry_bytes + 4), nullptr, "data block page");
        if (b == nullptr) return false;
        e = decode(b->data() + (i % per_page) * ix_.entry_bytes);
        return true;
    }

    bool lookup(std::uint64_t i, entry& e) {
        switch (ix_.kind) {
            case index_kind::single:
                if (i != 0 || ix_.undefined(ix_.address)) return true;
                e = entry{true, ix_.address, ix_.filtered ? ix_.single_size : ix_.chunk_bytes, ix_.single_mask};
                return true;
            case index_kind::implicit:
                if (ix_.undefined(ix_.address)) return true;
                e = entry{true, ix_.address + i * ix_.chunk_bytes, ix_.chunk_bytes, 0};
                return true;
            case index_kind::fixed_array: return lookup_fixed(i, e);
            case index_kind::extensible_array: return lookup_extensible(i, e);
            default: return false;
        }
    }

    bool lookup_fixed(std::uint64_t i, entry& e) {
        if (ix_.undefined(ix_.data_block)) return true;
        if (i >= ix_.elements) return fail("chunk " + std::to_string(i) + " beyond its " + std::to_string(ix_.elements) + " entries");
        const std::size_t a = ix_.addr_size, eb = ix_.entry_bytes;
        const std::uint64_t per_page = std::uint64_t{1} << ix_.page_bits;
        if (ix_.elements <= per_page) {
            const auto* b = block(ix_.data_block, 4 + 2 + a + static_cast<std::size_t>(ix_.elements) * eb + 4, "FADB",
                                  "fixed array data block");
            if (b == nullptr || !checked(ix_.data_block, *b, "fixed array data block")) return false;
            e = decode(b->data() + 6 + a + i * eb);
            return true;
        }
        const std::uint64_t pages = (ix_.elements + per_page - 1) / per_page;
        const std::size_t bitmap = static_cast<std::size_t>((pages + 7) / 8);
        const std::size_t prefix = 4 + 2 + a + bitmap + 4;
        const auto* b = block(ix_.data_block, prefix, "FADB", "fixed array data block");
        if (b == nullptr || !checked(ix_.data_block, *b, "fixed array data block")) return false;
        const unsigned char* bits = b->data() + 6 + a;
        return paged_entry(ix_.data_block, prefix, ix_.elements, i,
                           [&](std::uint64_t p) { return (bits[p / 8] & (0x80u >> (p % 8))) != 0; }, e);
    }

    bool checked(std::uint64_t addr, const std::vector<unsigned char>& b, const char* what) {
        if (checked_.count(addr) != 0) return true;
        if (!check_block(b, what, addr)) return false;
        checked_[addr] = true;
        return true;
    }

    /// Super block k of the extensible array: its data blocks, and their entries.
    [[nodiscard]] std::uint64_t sblock_blocks(unsigned k) const { return std::uint64_t{1} << (k / 2); }
    [[nodiscard]] std::uint64_t sblock_entries(unsigned k) const {
        return (std::uint64_t{1} << ((k + 1) / 2)) * ix_.min_elements;
    }
    /// The first entry (after the index block's) and the first data block of super block k.
    void sblock_start(unsigned k, std::uint64_t& first, std::uint64_t& dblock) const {
        first = 0;
        dblock = 0;
        for (unsigned u = 0; u < k; ++u) {
            first += sblock_blocks(u) * sblock_entries(u);
            dblock += sblock_blocks(u);
        }
    }

    bool lookup_extensible(std::uint64_t i, entry& e) {
        if (ix_.undefined(ix_.index_block) || i >= ix_.elements) return true;  // beyond what was ever set
        const std::size_t a = ix_.addr_size, eb = ix_.entry_bytes;
        const unsigned off_bytes = (ix_.max_bits + 7) / 8;
        const unsigned sblocks = 1 + ix_.max_bits - log2_floor(ix_.min_elements);
        const unsigned iblock_sblocks = 2 * log2_floor(ix_.min_pointers);
        const std::size_t iblock_dblocks = 2 * (std::size_t{ix_.min_pointers} - 1);
        const std::size_t iblock_sblock_addrs = sblocks > iblock_sblocks ? sblocks - iblock_sblocks : 0;
        const std::size_t iblock_size =
            4 + 2 + a + std::size_t{ix_.iblock_elements} * eb + (iblock_dblocks + iblock_sblock_addrs) * a + 4;
        const auto* ib = block(ix_.index_block, iblock_size, "EAIB", "extensible array index block");
        if (ib == nullptr || !checked(ix_.index_block, *ib, "extensible array index block")) return false;
        if (i < ix_.iblock_elements) {
            e = decode(ib->data() + 6 + a + i * eb);
            return true;
        }
        const std::uint64_t j = i - ix_.iblock_elements;
        const unsigned k = log2_floor(j / ix_.min_elements + 1);
        if (k >= sblocks) return fail("entry " + std::to_string(i) + " beyond the array's " + std::to_string(sblocks) + " super blocks");
        std::uint64_t first = 0, first_dblock = 0;
        sblock_start(k, first, first_dblock);
        const std::uint64_t in_sblock = j - first, per_dblock = sblock_entries(k);
        const std::uint64_t per_page = std::uint64_t{1} << ix_.page_bits;
        const std::uint64_t d = in_sblock / per_dblock, in_dblock = in_sblock % per_dblock;
        // The data block's "block offset", as HDF5 writes it: the super block's first entry plus
        // the block's number times its entries, numbered across the index block's data blocks
        // for those, within its super block for the others.
        const std::uint64_t dblock_offset = first + (k < iblock_sblocks ? first_dblock + d : d) * per_dblock;
        const unsigned char* addrs = ib->data() + 6 + a + std::size_t{ix_.iblock_elements} * eb;
        std::uint64_t dblock_addr = 0;
        const unsigned char* page_bits = nullptr;  // the super block's page bitmap of this data block
        std::uint64_t pages = 0;
        if (k < iblock_sblocks) {
            const std::uint64_t n = first_dblock + d;
            if (n >= iblock_dblocks) return fail("data block " + std::to_string(n) + " beyond the index block's");
            dblock_addr = le(addrs + n * a, a);
            if (per_dblock > per_page) return false;  // paged blocks under the index block: not read here
        } else {
            const std::uint64_t sb_addr = le(addrs + (iblock_dblocks + (k - iblock_sblocks)) * a, a);
            if (ix_.undefined(sb_addr)) return true;
            const std::uint64_t n = sblock_blocks(k);
            pages = per_dblock > per_page ? per_dblock / per_page : 0;
            const std::size_t bitmap_bytes = pages > 0 ? static_cast<std::size_t>((pages + 7) / 8) : 0;
            const std::size_t sb_size = 4 + 2 + a + off_bytes + static_cast<std::size_t>(n) * (bitmap_bytes + a) + 4;
            const auto* sb = block(sb_addr, sb_size, "EASB", "extensible array super block");
            if (sb == nullptr || !checked(sb_addr, *sb, "extensible array super block")) return false;
            if (le(sb->data() + 6 + a, off_bytes) != first) {
                return fail("the super block at " + std::to_string(sb_addr) + " says it begins at entry " +
                            std::to_string(le(sb->data() + 6 + a, off_bytes)) + ", not " + std::to_string(first));
            }
            page_bits = sb->data() + 6 + a + off_bytes;
            dblock_addr = le(page_bits + n * bitmap_bytes + d * a, a);
        }
        if (ix_.undefined(dblock_addr)) return true;
        const std::size_t prefix = 4 + 2 + a + off_bytes;
        if (pages == 0) {
            const auto* db = block(dblock_addr, prefix + static_cast<std::size_t>(per_dblock) * eb + 4, "EADB",
                                   "extensible array data block");
            if (db == nullptr || !checked_dblock(dblock_addr, *db, dblock_offset)) return false;
            e = decode(db->data() + prefix + in_dblock * eb);
            return true;
        }
        const auto* db = block(dblock_addr, prefix + 4, "EADB", "extensible array data block");
        if (db == nullptr || !checked_dblock(dblock_addr, *db, dblock_offset)) return false;
        const std::uint64_t bit0 = d * pages;
        return paged_entry(dblock_addr, prefix + 4, per_dblock, in_dblock,
                           [&](std::uint64_t p) {
                               const std::uint64_t bit = bit0 + p;
                               return (page_bits[bit / 8] & (0x80u >> (bit % 8))) != 0;
                           },
                           e);
    }

    bool checked_dblock(std::uint64_t addr, const std::vector<unsigned char>& b, std::uint64_t offset) {
        if (checked_.count(addr) != 0) return true;
        if (!check_block(b, "extensible array data block", addr)) return false;
        const std::uint64_t says = le(b.data() + 6 + ix_.addr_size, (ix_.max_bits + 7) / 8);
        if (says != offset) {
            return fail("the data block at " + std::to_string(addr) + " says it begins at entry " + std::to_string(says) +
                        ", not " + std::to_string(offset));
        }
        checked_[addr] = true;
        return true;
    }

    /// Lexicographic comparison of chunk coordinates.
    [[nodiscard]] int compare(const std::uint64_t* x, const std::uint64_t* y) const noexcept {
        for (std::size_t d = 0; d < ix_.rank; ++d) {
            if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
        }
        return 0;
    }

    /// Visits the v2 B-tree node at `addr` of `depth` holding `records`, whose records lie
    /// strictly between lo and hi (null: unbounded), in order.
    template <class Found>
    bool visit_btree2(std::uint64_t addr, unsigned depth, std::uint64_t records, const std::uint64_t* lo,
                      const std::uint64_t* hi, Found& found) {
        if (stopped_) return true;
        if (records == 0 || records > ix_.max_records[depth]) {
            return fail("a node of depth " + std::to_string(depth) + " with " + std::to_string(records) + " records");
        }
        const std::size_t a = ix_.addr_size, rb = ix_.record_bytes, r = ix_.rank;
        const std::size_t pointer = depth > 0 ? a + ix_.records_bytes + ix_.total_records_bytes[depth - 1] : 0;
        const std::size_t size = 6 + static_cast<std::size_t>(records) * rb +
                                 (depth > 0 ? static_cast<std::size_t>(records + 1) * pointer : 0) + 4;
        std::vector<unsigned char> node;
        if (!read_checked(addr, size, depth > 0 ? "BTIN" : "BTLF", depth > 0 ? "v2 B-tree internal node" : "v2 B-tree leaf",
                          node)) {
            return false;
        }
        if (node[5] != (ix_.filtered ? 11 : 10)) return fail("the node at " + std::to_string(addr) + " is of another B-tree type");
        // Records: address, [size, mask], then the chunk's coordinates.
        std::vector<std::uint64_t> keys(static_cast<std::size_t>(records) * r);
        std::vector<entry> entries(static_cast<std::size_t>(records));
        const std::size_t coords_at = ix_.filtered ? a + ix_.size_bytes + 4 : a;
        for (std::size_t i = 0; i < records; ++i) {
            const unsigned char* p = node.data() + 6 + i * rb;
            entries[i] = decode(p);
            for (std::size_t d = 0; d < r; ++d) keys[i * r + d] = le(p + coords_at + 8 * d, 8);
            const std::uint64_t* k = &keys[i * r];
            if ((i > 0 && compare(&keys[(i - 1) * r], k) >= 0) || (lo != nullptr && compare(lo, k) >= 0) ||
                (hi != nullptr && compare(k, hi) >= 0)) {
                return fail("the records of the node at " + std::to_string(addr) + " are out of order");
            }
            if (!entries[i].stored) return fail("a record without a chunk address in the node at " + std::to_string(addr));
        }
        std::vector<std::uint64_t> children, counts;
        if (depth > 0) {
            const unsigned char* p = node.data() + 6 + static_cast<std::size_t>(records) * rb;
            for (std::size_t i = 0; i <= records; ++i, p += pointer) {
                children.push_back(le(p, a));
                counts.push_back(le(p + a, ix_.records_bytes));
            }
        }
        for (std::size_t i = 0; i <= records && !stopped_; ++i) {
            const std::uint64_t* clo = i == 0 ? lo : &keys[(i - 1) * r];
            const std::uint64_t* chi = i == records ? hi : &keys[i * r];
            // Child i holds the records between clo and chi: visited where they may meet the walk.
            if (depth > 0 && (chi == nullptr || compare(chi, from_.data()) > 0) &&
                (clo == nullptr || compare(clo, to_.data()) < 0)) {
                if (!visit_btree2(children[i], depth - 1, counts[i], clo, chi, found)) return false;
            }
            if (i == records || stopped_) break;
            const std::uint64_t* k = &keys[i * r];
            bool inside = true;
            for (std::size_t d = 0; d < r; ++d) inside = inside && k[d] >= from_[d] && k[d] <= to_[d];
            if (!inside) continue;
            const entry& e = entries[i];
            if (e.address > ix_.eoa || e.size > ix_.eoa - e.address || e.size == 0) {
                return fail("a chunk at address " + std::to_string(e.address) + " of " + std::to_string(e.size) +
                            " bytes, past the end of the file's allocated space (" + std::to_string(ix_.eoa) + ")");
            }
            if (!found(k, ix_.base + e.address, e.size, e.mask)) stopped_ = true;
        }
        return true;
    }

    const chunk_index& ix_;
    std::vector<std::uint64_t> from_, to_;
    bool empty_box_ = false, stopped_ = false;
    std::size_t structures_ = 0;
    std::string damage_;
    std::unordered_map<std::uint64_t, std::vector<unsigned char>> blocks_;
    std::unordered_map<std::uint64_t, bool> checked_;
};

/// Reads the index header of a layout message of version 4 or later into `ix` (the message's
/// fields, then the index's own header, every field checked). Returns "" when ix is ready to
/// walk (or kind none: a layout this walk does not read), else what is wrong with the file.
/// `maxgrid`: chunks along each axis at the dataset's maximum extent (0 for an unlimited axis).
inline std::string read_v4_index(const std::vector<unsigned char>& m, const std::vector<std::size_t>& chunk,
                                 const std::vector<std::uint64_t>& maxgrid, bool filtered, chunk_index& ix) {
    ix.kind = index_kind::none;
    const std::size_t a = ix.addr_size, n = chunk.size();
    if (m.size() < 5 || m[0] < 4 || m[0] > 5 || m[1] != 2) return {};
    const unsigned flags = m[2], ndims = m[3], width = m[4];
    if (ndims != n + 1 || width < 1 || width > 8 || m.size() < 5 + ndims * width + 1) return {};
    std::uint64_t bytes = 1;
    ix.rank = n;
    ix.dim.assign(n, 0);
    for (std::size_t d = 0; d <= n; ++d) {
        const std::uint64_t v = le(m.data() + 5 + d * width, width);
        if (d < n && v != chunk[d]) return {};
        if (d < n) ix.dim[d] = v;
        if (v == 0 || __builtin_mul_overflow(bytes, v, &bytes)) return {};
        if (d == n) ix.element = v;
    }
    ix.chunk_bytes = bytes;
    ix.filtered = filtered;
    std::size_t at = 5 + ndims * width;
    const unsigned type = m[at++];
    auto need = [&](std::size_t k) { return at + k + a <= m.size(); };
    std::string wrong;
    // Linear entry index: row-major over the maximum grid.
    ix.down.assign(n, 1);
    for (std::size_t d = n; d-- > 1;) {
        if (maxgrid[d] == 0 && type != 4 && type != 5) return {};  // unlimited: EA (swizzled below) and v2 B-tree only
        ix.down[d - 1] = ix.down[d] * std::max<std::uint64_t>(maxgrid[d], 1);
    }
    std::vector<unsigned char> h;
    auto header = [&](std::uint64_t addr, std::size_t size, const char* sig, const char* what) -> bool {
        h.resize(size);
        if (addr > ix.eoa || size > ix.eoa - addr) {
            wrong = std::string("the ") + what + " at address " + std::to_string(addr) + " lies past the end of the file's allocated space";
            return false;
        }
        for (int attempt = 0; attempt < 5; ++attempt) {
            if (!chunkwise::detail::posix::pread_all(ix.fd, h.data(), size, ix.base + addr)) {
                wrong = std::string("the ") + what + " at address " + std::to_string(addr) + " cannot be read";
                return false;
            }
            if (std::memcmp(h.data(), sig, 4) == 0 && lookup3(h.data(), size - 4) == le(h.data() + size - 4, 4)) {
                if (h[4] != 0) {
                    wrong = std::string("the ") + what + " is of version " + std::to_string(h[4]);
                    return false;
                }
                return true;
            }
        }
        wrong = std::memcmp(h.data(), sig, 4) != 0
                    ? std::string("no ") + what + " (signature " + sig + ") at address " + std::to_string(addr)
                    : std::string("the ") + what + " at address " + std::to_string(addr) + " fails its checksum";
        return false;
    };
    const auto entry_ok = [&](unsigned elsize) -> bool {
        ix.entry_bytes = elsize;
        if (!filtered) return elsize == a;
        if (elsize < a + 5 || elsize > a + 12) return false;
        ix.size_bytes = elsize - static_cast<unsigned>(a) - 4;
        return true;
    };
    switch (type) {
        case 1: {  // single chunk
            std::uint64_t size = 0;
            std::uint32_t mask = 0;
            if ((flags & 2) != 0) {
                if (!need(ix.len_size + 4)) return {};
                size = le(m.data() + at, ix.len_size);
                mask = static_cast<std::uint32_t>(le(m.data() + at + ix.len_size, 4));
                at += ix.len_size + 4;
            } else if (filtered) {
                return {};
            }
            if (!need(0)) return {};
            ix.address = le(m.data() + at, a);
            ix.single_size = size;
            ix.single_mask = mask;
            ix.kind = index_kind::single;
            if (!ix.undefined(ix.address) && (filtered ? size == 0 : false)) return "a single chunk of 0 bytes";
            return {};
        }
        case 2: {  // implicit: every chunk allocated, in order
            if (filtered || !need(0)) return {};
            ix.address = le(m.data() + at, a);
            ix.kind = index_kind::implicit;
            std::uint64_t total = 1;
            for (std::uint64_t g : maxgrid) {
                if (g == 0 || __builtin_mul_overflow(total, g, &total)) return {};
            }
            std::uint64_t span = 0;
            if (!ix.undefined(ix.address) &&
                (__builtin_mul_overflow(total, ix.chunk_bytes, &span) || ix.address > ix.eoa || span > ix.eoa - ix.address)) {
                return "implicit chunk storage of " + std::to_string(total) + " chunks at " + std::to_string(ix.address) +
                       " lies past the end of the file's allocated space (" + std::to_string(ix.eoa) + ")";
            }
            return {};
        }
        case 3: {  // fixed array
            if (!need(1)) return {};
            const unsigned page_bits = m[at++];
            ix.address = le(m.data() + at, a);
            std::uint64_t total = 1;
            for (std::uint64_t g : maxgrid) {
                if (g == 0 || __builtin_mul_overflow(total, g, &total)) return {};
            }
            ix.kind = index_kind::fixed_array;
            if (ix.undefined(ix.address)) {
                ix.data_block = ix.address;
                return {};
            }
            if (!header(ix.address, 4 + 4 + ix.len_size + a + 4, "FAHD", "fixed array header")) return wrong;
            if (h[5] != (filtered ? 1 : 0)) return "the fixed array header is for another kind of entry";
            if (!entry_ok(h[6])) return "fixed array entries of " + std::to_string(h[6]) + " bytes";
            if (h[7] != page_bits || page_bits > 32) return "a fixed array of pages of 2^" + std::to_string(h[7]) + " entries (the layout says 2^" + std::to_string(page_bits) + ")";
            ix.page_bits = page_bits;
            ix.elements = le(h.data() + 8, ix.len_size);
            if (ix.elements != total) {
                return "a fixed array of " + std::to_string(ix.elements) + " entries for " + std::to_string(total) + " chunks";
            }
            ix.data_block = le(h.data() + 8 + ix.len_size, a);
            return {};
        }
        case 4: {  // extensible array
            if (!need(5)) return {};
            const unsigned char* p = m.data() + at;
            at += 5;
            ix.address = le(m.data() + at, a);
            std::size_t unlimited = n;
            for (std::size_t d = 0; d < n; ++d) {
                if (maxgrid[d] == 0) {
                    if (unlimited != n) return {};
                    unlimited = d;
                }
            }
            if (unlimited == n) return {};
            ix.unlimited = unlimited;
            // Swizzled: the unlimited axis first, the others in order.
            std::vector<std::uint64_t> sw;
            sw.push_back(0);
            for (std::size_t d = 0; d < n; ++d) {
                if (d != unlimited) sw.push_back(maxgrid[d]);
            }
            ix.down.assign(n, 1);
            for (std::size_t d = n; d-- > 1;) ix.down[d - 1] = ix.down[d] * sw[d];
            ix.kind = index_kind::extensible_array;
            if (ix.undefined(ix.address)) {
                ix.index_block = ix.address;
                return {};
            }
            if (!header(ix.address, 4 + 8 + 6 * ix.len_size + a + 4, "EAHD", "extensible array header")) return wrong;
            if (h[5] != (filtered ? 1 : 0)) return "the extensible array header is for another kind of entry";
            if (!entry_ok(h[6])) return "extensible array entries of " + std::to_string(h[6]) + " bytes";
            // The layout holds (max bits, index block entries, super block pointers, data block
            // entries, page bits); the header the two middle ones the other way round.
            if (h[7] != p[0] || h[8] != p[1] || h[10] != p[2] || h[9] != p[3] || h[11] != p[4]) {
                return "an extensible array header whose parameters differ from the layout's";
            }
            ix.max_bits = h[7];
            ix.iblock_elements = h[8];
            ix.min_elements = h[9];
            ix.min_pointers = h[10];
            ix.page_bits = h[11];
            const auto pow2 = [](unsigned v) { return v != 0 && (v & (v - 1)) == 0; };
            if (ix.max_bits == 0 || ix.max_bits > 64 || !pow2(ix.min_elements) || !pow2(ix.min_pointers) ||
                ix.min_pointers < 2 || log2_floor(ix.min_elements) > ix.max_bits || ix.page_bits > 32 ||
                ix.page_bits >= ix.max_bits) {
                return "an extensible array header with parameters the format does not allow";
            }
            ix.elements = le(h.data() + 12 + 4 * ix.len_size, ix.len_size);  // the highest index set + 1
            ix.index_block = le(h.data() + 12 + 6 * ix.len_size, a);
            return {};
        }
        case 5: {  // v2 B-tree
            if (!need(6)) return {};
            at += 6;
            ix.address = le(m.data() + at, a);
            ix.kind = index_kind::btree2;
            if (ix.undefined(ix.address)) {
                ix.root_node = ix.address;
                return {};
            }
            if (!header(ix.address, 4 + 2 + 4 + 2 + 2 + 2 + a + 2 + ix.len_size + 4, "BTHD", "v2 B-tree header")) return wrong;
            if (h[5] != (filtered ? 11 : 10)) return "a v2 B-tree of type " + std::to_string(h[5]) + " for chunks";
            ix.node_size = static_cast<unsigned>(le(h.data() + 6, 4));
            ix.record_bytes = static_cast<unsigned>(le(h.data() + 10, 2));
            ix.depth = static_cast<unsigned>(le(h.data() + 12, 2));
            ix.root_node = le(h.data() + 16, a);
            ix.root_records = static_cast<unsigned>(le(h.data() + 16 + a, 2));
            const std::size_t coords = 8 * n;
            bool record_ok = false;
            if (!filtered) {
                record_ok = ix.record_bytes == a + coords;
            } else if (ix.record_bytes >= a + coords + 5 && ix.record_bytes <= a + coords + 12) {
                ix.size_bytes = static_cast<unsigned>(ix.record_bytes - a - coords - 4);
                record_ok = true;
            }
            if (!record_ok) {
                return "v2 B-tree records of " + std::to_string(ix.record_bytes) + " bytes (chunk records of rank " +
                       std::to_string(n) + " take " + std::to_string(a + coords) + (filtered ? " + 5..12" : "") + ")";
            }
            if (ix.node_size < 16 + 2 * ix.record_bytes || ix.node_size > (1u << 24) || ix.depth > 32) {
                return "a v2 B-tree of nodes of " + std::to_string(ix.node_size) + " bytes and depth " + std::to_string(ix.depth);
            }
            // Records per node at each depth, and the widths of the child pointers' counts.
            const auto enc = [](std::uint64_t v) { return v == 0 ? 1u : log2_floor(v) / 8 + 1; };
            ix.max_records.assign(ix.depth + 1, 0);
            ix.total_records_bytes.assign(ix.depth + 1, 0);
            std::vector<std::uint64_t> cumulative(ix.depth + 1, 0);
            ix.max_records[0] = (ix.node_size - 10) / ix.record_bytes;
            cumulative[0] = ix.max_records[0];
            ix.records_bytes = enc(ix.max_records[0]);
            for (unsigned u = 1; u <= ix.depth; ++u) {
                const std::size_t pointer = a + ix.records_bytes + ix.total_records_bytes[u - 1];
                if (ix.node_size < 10 + pointer + ix.record_bytes) return "v2 B-tree nodes too small for their depth";
                ix.max_records[u] = (ix.node_size - (10 + pointer)) / (ix.record_bytes + pointer);
                if (ix.max_records[u] == 0) return "v2 B-tree nodes too small for their depth";
                if (__builtin_mul_overflow(ix.max_records[u] + 1, cumulative[u - 1], &cumulative[u]) ||
                    __builtin_add_overflow(cumulative[u], ix.max_records[u], &cumulative[u])) {
                    cumulative[u] = ~std::uint64_t{0};
                }
                ix.total_records_bytes[u] = enc(cumulative[u]);
            }
            if (!ix.undefined(ix.root_node) && (ix.root_records == 0) != (le(h.data() + 18 + a, ix.len_size) == 0)) {
                return "a v2 B-tree whose root holds " + std::to_string(ix.root_records) + " records of " +
                       std::to_string(le(h.data() + 18 + a, ix.len_size));
            }
            return {};
        }
        default: return {};
    }
}

}  // namespace chunkwise::h5::detail
