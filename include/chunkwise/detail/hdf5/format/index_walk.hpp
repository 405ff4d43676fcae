#pragma once
// Internal: a walk of a dataset's chunk index (format/chunk_index.hpp) over a box of chunks, in
// the reading thread, with pread and no lock: the v1 B-tree through format/btree1.hpp; the
// single chunk and implicit indexes from the layout; fixed and extensible arrays entry by entry,
// each block or page read once per walk; the v2 B-tree node by node over the key ranges that meet
// the box. Every structure's signature, version, checksum and fields are checked.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/format/chunk_index.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace chunkwise::h5::detail {

/// A walk of a chunk index over the box of chunk coordinates [from, to] (inclusive, clamped to
/// the grid): calls found(coords, address, size, mask) for each stored chunk in it, in row-major
/// order, until
/// found returns false. run() is false where the read must not use the walk: damage() then says
/// what the format does not allow, or is empty where the walk does not read this layout.
class index_walk {
public:
    index_walk(const chunk_index& ix, const std::uint64_t* from, const std::uint64_t* to);

    /// What the format does not allow, found by the last run ("" if nothing).
    [[nodiscard]] const std::string& damage() const noexcept { return damage_; }

    template <class Found>
    bool run(Found&& found) {
        switch (ix_.kind) {
            case index_kind::none:
                return false;
            case index_kind::btree1: {
                btree_walk walk(ix_, from_.data(), to_.data());
                return walk.run(
                    [&](const std::uint64_t* at, std::uint64_t address, std::uint32_t size, std::uint32_t mask) {
                        for (std::size_t d = 0; d < ix_.rank; ++d) {
                            if (at[d] < from_[d] || at[d] > to_[d]) return true;  // in the row-major range, not the box
                        }
                        return found(at, address, std::uint64_t{size}, mask);
                    });
            }
            case index_kind::btree2: {
                if (ix_.undefined(ix_.root_node) || ix_.root_records == 0 || empty_box_) return true;
                std::vector<std::uint64_t> lo, hi;
                return visit_btree2(ix_.root_node, ix_.depth, ix_.root_records, nullptr, nullptr, found);
            }
            default:
                break;
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

    /// The structure at `addr` (read_structure), counted against a bound on structures per walk.
    bool read_checked(std::uint64_t addr, std::size_t size, const char* signature, const char* what,
                      std::vector<unsigned char>& out);

    /// Checks a block's client id and the header address it points back to (at offset 5 and 6).
    bool check_block(const std::vector<unsigned char>& b, const char* what, std::uint64_t addr);

    /// Decodes the entry at `p`.
    entry decode(const unsigned char* p) const;

    /// The block at `addr` (`size` bytes, checked), read once per walk.
    const std::vector<unsigned char>* block(std::uint64_t addr, std::size_t size, const char* signature,
                                            const char* what);

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

    bool lookup(std::uint64_t i, entry& e);

    bool lookup_fixed(std::uint64_t i, entry& e);

    bool checked(std::uint64_t addr, const std::vector<unsigned char>& b, const char* what);

    /// Super block k of the extensible array: its data blocks, and their entries.
    [[nodiscard]] std::uint64_t sblock_blocks(unsigned k) const { return std::uint64_t{1} << (k / 2); }
    [[nodiscard]] std::uint64_t sblock_entries(unsigned k) const {
        return (std::uint64_t{1} << ((k + 1) / 2)) * ix_.min_elements;
    }
    /// The first entry (after the index block's) and the first data block of super block k.
    void sblock_start(unsigned k, std::uint64_t& first, std::uint64_t& dblock) const;

    bool lookup_extensible(std::uint64_t i, entry& e);

    bool checked_dblock(std::uint64_t addr, const std::vector<unsigned char>& b, std::uint64_t offset);

    /// Lexicographic comparison of chunk coordinates.
    [[nodiscard]] int compare(const std::uint64_t* x, const std::uint64_t* y) const noexcept;

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
        if (!read_checked(addr, size, depth > 0 ? "BTIN" : "BTLF",
                          depth > 0 ? "v2 B-tree internal node" : "v2 B-tree leaf", node)) {
            return false;
        }
        if (node[5] != (ix_.filtered ? 11 : 10))
            return fail("the node at " + std::to_string(addr) + " is of another B-tree type");
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
            if (!entries[i].stored)
                return fail("a record without a chunk address in the node at " + std::to_string(addr));
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

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/format/index_walk.ipp>
#endif
