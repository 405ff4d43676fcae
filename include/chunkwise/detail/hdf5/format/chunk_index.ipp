// The definitions of chunkwise/detail/hdf5/format/chunk_index.hpp's functions that are not templates: included at the
// end of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL const char* index_name(index_kind k) {
    switch (k) {
        case index_kind::none:
            return "none";
        case index_kind::btree1:
            return "v1 B-tree";
        case index_kind::single:
            return "single chunk";
        case index_kind::implicit:
            return "implicit";
        case index_kind::fixed_array:
            return "fixed array";
        case index_kind::extensible_array:
            return "extensible array";
        case index_kind::btree2:
            return "v2 B-tree";
    }
    return "unknown";
}

CHUNKWISE_HDF5_DECL std::string read_structure(const chunk_index& ix, std::uint64_t addr, std::size_t size,
                                               const char* signature, const char* what,
                                               std::vector<unsigned char>& out) {
    const std::string at = std::string(what) + " at address " + std::to_string(addr);
    if (size < 10 || addr > ix.eoa || size > ix.eoa - addr) {
        return "the " + at + " lies past the end of the file's allocated space (" + std::to_string(ix.eoa) + ")";
    }
    out.resize(size);
    for (int attempt = 0; attempt < 5; ++attempt) {
        if (!chunkwise::detail::posix::pread_all(ix.fd, out.data(), size, ix.base + addr))
            return "the " + at + " cannot be read";
        if (signature != nullptr && std::memcmp(out.data(), signature, 4) != 0) continue;
        if (lookup3(out.data(), size - 4) == static_cast<std::uint32_t>(le(out.data() + size - 4, 4))) {
            if (signature != nullptr && out[4] != 0) return "the " + at + " is of version " + std::to_string(out[4]);
            return {};
        }
    }
    if (signature != nullptr && std::memcmp(out.data(), signature, 4) != 0) {
        return std::string("no ") + what + " (signature " + signature + ") at address " + std::to_string(addr);
    }
    return "the " + at + " fails its checksum";
}

CHUNKWISE_HDF5_DECL bool all_chunks(const std::vector<std::uint64_t>& maxgrid, std::uint64_t& total) {
    total = 1;
    for (std::uint64_t g : maxgrid) {
        if (g == 0 || __builtin_mul_overflow(total, g, &total)) return false;
    }
    return true;
}

CHUNKWISE_HDF5_DECL bool v4_entry_ok(chunk_index& ix, unsigned elsize, bool filtered) {
    ix.entry_bytes = elsize;
    if (!filtered) return elsize == ix.addr_size;
    if (elsize < ix.addr_size + 5 || elsize > ix.addr_size + 12) return false;
    ix.size_bytes = elsize - static_cast<unsigned>(ix.addr_size) - 4;
    return true;
}

CHUNKWISE_HDF5_DECL std::string v4_single(v4_fields f) {
    chunk_index& ix = f.ix;
    std::uint64_t size = 0;
    std::uint32_t mask = 0;
    if ((f.flags & 2) != 0) {
        if (!f.need(ix.len_size + 4)) return {};
        size = le(f.m.data() + f.at, ix.len_size);
        mask = static_cast<std::uint32_t>(le(f.m.data() + f.at + ix.len_size, 4));
        f.at += ix.len_size + 4;
    } else if (f.filtered) {
        return {};
    }
    if (!f.need(0)) return {};
    ix.address = le(f.m.data() + f.at, ix.addr_size);
    ix.single_size = size;
    ix.single_mask = mask;
    ix.kind = index_kind::single;
    if (!ix.undefined(ix.address) && (f.filtered ? size == 0 : false)) return "a single chunk of 0 bytes";
    return {};
}

CHUNKWISE_HDF5_DECL std::string v4_implicit(v4_fields f) {
    chunk_index& ix = f.ix;
    if (f.filtered || !f.need(0)) return {};
    ix.address = le(f.m.data() + f.at, ix.addr_size);
    ix.kind = index_kind::implicit;
    std::uint64_t total = 1;
    if (!all_chunks(f.maxgrid, total)) return {};
    std::uint64_t span = 0;
    if (!ix.undefined(ix.address) &&
        (__builtin_mul_overflow(total, ix.chunk_bytes, &span) || ix.address > ix.eoa || span > ix.eoa - ix.address)) {
        return "implicit chunk storage of " + std::to_string(total) + " chunks at " + std::to_string(ix.address) +
               " lies past the end of the file's allocated space (" + std::to_string(ix.eoa) + ")";
    }
    return {};
}

CHUNKWISE_HDF5_DECL std::string v4_fixed_array(v4_fields f) {
    chunk_index& ix = f.ix;
    if (!f.need(1)) return {};
    const unsigned page_bits = f.m[f.at++];
    ix.address = le(f.m.data() + f.at, ix.addr_size);
    std::uint64_t total = 1;
    if (!all_chunks(f.maxgrid, total)) return {};
    ix.kind = index_kind::fixed_array;
    if (ix.undefined(ix.address)) {
        ix.data_block = ix.address;
        return {};
    }
    std::vector<unsigned char> h;
    if (std::string wrong =
            read_structure(ix, ix.address, 4 + 4 + ix.len_size + ix.addr_size + 4, "FAHD", "fixed array header", h);
        !wrong.empty())
        return wrong;
    if (h[5] != (f.filtered ? 1 : 0)) return "the fixed array header is for another kind of entry";
    if (!v4_entry_ok(ix, h[6], f.filtered)) return "fixed array entries of " + std::to_string(h[6]) + " bytes";
    if (h[7] != page_bits || page_bits > 32)
        return "a fixed array of pages of 2^" + std::to_string(h[7]) + " entries (the layout says 2^" +
               std::to_string(page_bits) + ")";
    ix.page_bits = page_bits;
    ix.elements = le(h.data() + 8, ix.len_size);
    if (ix.elements != total) {
        return "a fixed array of " + std::to_string(ix.elements) + " entries for " + std::to_string(total) + " chunks";
    }
    ix.data_block = le(h.data() + 8 + ix.len_size, ix.addr_size);
    return {};
}

CHUNKWISE_HDF5_DECL std::string v4_extensible_array(v4_fields f) {
    chunk_index& ix = f.ix;
    const std::size_t n = ix.rank;
    if (!f.need(5)) return {};
    const unsigned char* p = f.m.data() + f.at;
    f.at += 5;
    ix.address = le(f.m.data() + f.at, ix.addr_size);
    std::size_t unlimited = n;
    for (std::size_t d = 0; d < n; ++d) {
        if (f.maxgrid[d] == 0) {
            if (unlimited != n) return {};
            unlimited = d;
        }
    }
    if (unlimited == n) return {};
    ix.unlimited = unlimited;
    std::vector<std::uint64_t> sw{0};
    for (std::size_t d = 0; d < n; ++d) {
        if (d != unlimited) sw.push_back(f.maxgrid[d]);
    }
    ix.down.assign(n, 1);
    for (std::size_t d = n; d-- > 1;) ix.down[d - 1] = ix.down[d] * sw[d];
    ix.kind = index_kind::extensible_array;
    if (ix.undefined(ix.address)) {
        ix.index_block = ix.address;
        return {};
    }
    std::vector<unsigned char> h;
    if (std::string wrong = read_structure(ix, ix.address, 4 + 8 + 6 * ix.len_size + ix.addr_size + 4, "EAHD",
                                           "extensible array header", h);
        !wrong.empty())
        return wrong;
    if (h[5] != (f.filtered ? 1 : 0)) return "the extensible array header is for another kind of entry";
    if (!v4_entry_ok(ix, h[6], f.filtered)) return "extensible array entries of " + std::to_string(h[6]) + " bytes";
    // The layout holds (max bits, index block entries, super block pointers, data block entries,
    // page bits); the header the two middle ones the other way round.
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
    ix.index_block = le(h.data() + 12 + 6 * ix.len_size, ix.addr_size);
    return {};
}

CHUNKWISE_HDF5_DECL std::string btree2_geometry(chunk_index& ix) {
    const std::size_t a = ix.addr_size;
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
    return {};
}

CHUNKWISE_HDF5_DECL std::string v4_btree2(v4_fields f) {
    chunk_index& ix = f.ix;
    const std::size_t a = ix.addr_size, n = ix.rank;
    if (!f.need(6)) return {};
    f.at += 6;
    ix.address = le(f.m.data() + f.at, a);
    ix.kind = index_kind::btree2;
    if (ix.undefined(ix.address)) {
        ix.root_node = ix.address;
        return {};
    }
    std::vector<unsigned char> h;
    if (std::string wrong = read_structure(ix, ix.address, 4 + 2 + 4 + 2 + 2 + 2 + a + 2 + ix.len_size + 4, "BTHD",
                                           "v2 B-tree header", h);
        !wrong.empty())
        return wrong;
    if (h[5] != (f.filtered ? 11 : 10)) return "a v2 B-tree of type " + std::to_string(h[5]) + " for chunks";
    ix.node_size = static_cast<unsigned>(le(h.data() + 6, 4));
    ix.record_bytes = static_cast<unsigned>(le(h.data() + 10, 2));
    ix.depth = static_cast<unsigned>(le(h.data() + 12, 2));
    ix.root_node = le(h.data() + 16, a);
    ix.root_records = static_cast<unsigned>(le(h.data() + 16 + a, 2));
    const std::size_t coords = 8 * n;
    bool record_ok = false;
    if (!f.filtered) {
        record_ok = ix.record_bytes == a + coords;
    } else if (ix.record_bytes >= a + coords + 5 && ix.record_bytes <= a + coords + 12) {
        ix.size_bytes = static_cast<unsigned>(ix.record_bytes - a - coords - 4);
        record_ok = true;
    }
    if (!record_ok) {
        return "v2 B-tree records of " + std::to_string(ix.record_bytes) + " bytes (chunk records of rank " +
               std::to_string(n) + " take " + std::to_string(a + coords) + (f.filtered ? " + 5..12" : "") + ")";
    }
    if (ix.node_size < 16 + 2 * ix.record_bytes || ix.node_size > (1u << 24) || ix.depth > 32) {
        return "a v2 B-tree of nodes of " + std::to_string(ix.node_size) + " bytes and depth " +
               std::to_string(ix.depth);
    }
    if (std::string wrong = btree2_geometry(ix); !wrong.empty()) return wrong;
    if (!ix.undefined(ix.root_node) && (ix.root_records == 0) != (le(h.data() + 18 + a, ix.len_size) == 0)) {
        return "a v2 B-tree whose root holds " + std::to_string(ix.root_records) + " records of " +
               std::to_string(le(h.data() + 18 + a, ix.len_size));
    }
    return {};
}

CHUNKWISE_HDF5_DECL std::string read_v4_index(const std::vector<unsigned char>& m,
                                              const std::vector<std::size_t>& chunk,
                                              const std::vector<std::uint64_t>& maxgrid, bool filtered,
                                              chunk_index& ix) {
    ix.kind = index_kind::none;
    const std::size_t n = chunk.size();
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
    // Linear entry index: row-major over the maximum grid.
    ix.down.assign(n, 1);
    for (std::size_t d = n; d-- > 1;) {
        if (maxgrid[d] == 0 && type != 4 && type != 5) return {};  // unlimited: EA (swizzled) and v2 B-tree only
        ix.down[d - 1] = ix.down[d] * std::max<std::uint64_t>(maxgrid[d], 1);
    }
    const v4_fields f{m, flags, at, ix, filtered, maxgrid};
    switch (type) {
        case 1:
            return v4_single(f);
        case 2:
            return v4_implicit(f);
        case 3:
            return v4_fixed_array(f);
        case 4:
            return v4_extensible_array(f);
        case 5:
            return v4_btree2(f);
        default:
            return {};
    }
}

}  // namespace chunkwise::h5::detail
