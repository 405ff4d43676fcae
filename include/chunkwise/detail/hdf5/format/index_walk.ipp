// The definitions of chunkwise/detail/hdf5/format/index_walk.hpp's functions that are not templates: included at the
// end of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL index_walk::index_walk(const chunk_index& ix, const std::uint64_t* from, const std::uint64_t* to)
        : ix_(ix), from_(from, from + ix.rank), to_(to, to + ix.rank) {
    for (std::size_t d = 0; d < ix.rank && d < ix.grid.size(); ++d) {
        to_[d] = ix.grid[d] == 0 ? 0 : std::min<std::uint64_t>(to_[d], ix.grid[d] - 1);
        if (ix.grid[d] == 0) empty_box_ = true;
    }
    for (std::size_t d = 0; d < ix.rank; ++d) empty_box_ = empty_box_ || from_[d] > to_[d];
}

CHUNKWISE_HDF5_DECL auto index_walk::read_checked(std::uint64_t addr, std::size_t size, const char* signature,
                                                  const char* what, std::vector<unsigned char>& out) -> bool {
    if (++structures_ > (std::size_t{1} << 22)) return fail("more structures than the file can hold (a cycle?)");
    std::string wrong = read_structure(ix_, addr, size, signature, what, out);
    return wrong.empty() || fail(std::move(wrong));
}

CHUNKWISE_HDF5_DECL auto index_walk::check_block(const std::vector<unsigned char>& b, const char* what,
                                                 std::uint64_t addr) -> bool {
    if (b[5] != (ix_.filtered ? 1 : 0))
        return fail(std::string("the ") + what + " at " + std::to_string(addr) + " is for another kind of entry");
    if (le(b.data() + 6, ix_.addr_size) != ix_.address) {
        return fail(std::string("the ") + what + " at " + std::to_string(addr) + " belongs to another array");
    }
    return true;
}

CHUNKWISE_HDF5_DECL auto index_walk::decode(const unsigned char* p) const -> entry {
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

CHUNKWISE_HDF5_DECL auto index_walk::block(std::uint64_t addr, std::size_t size, const char* signature,
                                           const char* what) -> const std::vector<unsigned char>* {
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

CHUNKWISE_HDF5_DECL auto index_walk::lookup(std::uint64_t i, entry& e) -> bool {
    switch (ix_.kind) {
        case index_kind::single:
            if (i != 0 || ix_.undefined(ix_.address)) return true;
            e = entry{true, ix_.address, ix_.filtered ? ix_.single_size : ix_.chunk_bytes, ix_.single_mask};
            return true;
        case index_kind::implicit:
            if (ix_.undefined(ix_.address)) return true;
            e = entry{true, ix_.address + i * ix_.chunk_bytes, ix_.chunk_bytes, 0};
            return true;
        case index_kind::fixed_array:
            return lookup_fixed(i, e);
        case index_kind::extensible_array:
            return lookup_extensible(i, e);
        default:
            return false;
    }
}

CHUNKWISE_HDF5_DECL auto index_walk::lookup_fixed(std::uint64_t i, entry& e) -> bool {
    if (ix_.undefined(ix_.data_block)) return true;
    if (i >= ix_.elements)
        return fail("chunk " + std::to_string(i) + " beyond its " + std::to_string(ix_.elements) + " entries");
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
    return paged_entry(
        ix_.data_block, prefix, ix_.elements, i,
        [&](std::uint64_t p) { return (bits[p / 8] & (0x80u >> (p % 8))) != 0; }, e);
}

CHUNKWISE_HDF5_DECL auto index_walk::checked(std::uint64_t addr, const std::vector<unsigned char>& b, const char* what)
    -> bool {
    if (checked_.count(addr) != 0) return true;
    if (!check_block(b, what, addr)) return false;
    checked_[addr] = true;
    return true;
}

CHUNKWISE_HDF5_DECL auto index_walk::sblock_start(unsigned k, std::uint64_t& first, std::uint64_t& dblock) const
    -> void {
    first = 0;
    dblock = 0;
    for (unsigned u = 0; u < k; ++u) {
        first += sblock_blocks(u) * sblock_entries(u);
        dblock += sblock_blocks(u);
    }
}

CHUNKWISE_HDF5_DECL auto index_walk::lookup_extensible(std::uint64_t i, entry& e) -> bool {
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
    if (k >= sblocks)
        return fail("entry " + std::to_string(i) + " beyond the array's " + std::to_string(sblocks) + " super blocks");
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
    return paged_entry(
        dblock_addr, prefix + 4, per_dblock, in_dblock,
        [&](std::uint64_t p) {
            const std::uint64_t bit = bit0 + p;
            return (page_bits[bit / 8] & (0x80u >> (bit % 8))) != 0;
        },
        e);
}

CHUNKWISE_HDF5_DECL auto index_walk::checked_dblock(std::uint64_t addr, const std::vector<unsigned char>& b,
                                                    std::uint64_t offset) -> bool {
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

CHUNKWISE_HDF5_DECL auto index_walk::compare(const std::uint64_t* x, const std::uint64_t* y) const noexcept -> int {
    for (std::size_t d = 0; d < ix_.rank; ++d) {
        if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
    }
    return 0;
}

}  // namespace chunkwise::h5::detail
