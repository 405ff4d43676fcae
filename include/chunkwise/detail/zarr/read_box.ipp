// The definitions of chunkwise/detail/zarr/read_box.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL std::vector<std::uint64_t> read_shard_index(const state& s, const shard_spec& sh,
                                                                const stored_bytes& src, std::uint64_t count,
                                                                scratch& buf) {
    const std::vector<std::size_t> sizes = stage_sizes(s.store, *sh.index, static_cast<std::size_t>(count) * 2, 8);
    const std::size_t index_bytes = sizes.back();
    if (index_bytes == 0) throw std::runtime_error("a shard index through a compressing codec is not read");
    if (src.size < index_bytes)
        throw std::runtime_error("truncated: a shard of " + std::to_string(src.size) +
                                 " bytes, shorter than its index of " + std::to_string(index_bytes));
    try {
        const unsigned char* at = src.get(sh.index_at_start ? 0 : src.size - index_bytes, index_bytes, buf.piece);
        const dtype u64{'u', 8, sh.index->big};
        const unsigned char* raw = decode_bytes(s.store, *sh.index, at, index_bytes,
                                                static_cast<std::size_t>(count) * 2, u64, buf.index_a, buf.index_b);
        std::vector<std::uint64_t> index(static_cast<std::size_t>(count) * 2);
        for (std::size_t i = 0; i < index.size(); ++i)
            index[i] = load<std::uint64_t>(raw + 8 * i, sh.index->big != (std::endian::native == std::endian::big));
        return index;
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("its shard index: ") + e.what());
    }
}

CHUNKWISE_ZARR_DECL std::vector<std::vector<std::size_t>> touched_inner(const request& q,
                                                                        const std::vector<std::size_t>& origin,
                                                                        const std::vector<std::size_t>& extent,
                                                                        const std::vector<std::size_t>& inner) {
    std::vector<std::vector<std::size_t>> out(origin.size());
    for (std::size_t d = 0; d < origin.size(); ++d) {
        if (d == q.sel_axis) {
            for (std::size_t i : *q.sel)
                if (i >= origin[d] && i < origin[d] + extent[d]) out[d].push_back((i - origin[d]) / inner[d]);
            std::sort(out[d].begin(), out[d].end());
            out[d].erase(std::unique(out[d].begin(), out[d].end()), out[d].end());
        } else {
            const std::size_t from = std::max(q.lo[d], origin[d]), to = std::min(q.hi[d], origin[d] + extent[d]);
            for (std::size_t p = from < to ? (from - origin[d]) / inner[d] : 1,
                             e = (to - origin[d] + inner[d] - 1) / inner[d];
                 from < to && p < e; ++p)
                out[d].push_back(p);
        }
    }
    return out;
}

CHUNKWISE_ZARR_DECL std::uint64_t index_position(const shard_spec& sh, const std::vector<std::size_t>& pos,
                                                 const std::vector<std::size_t>& extent) {
    std::uint64_t k = 0;
    for (std::size_t axis : sh.index_axes) k = k * (extent[axis] / sh.inner[axis]) + pos[axis];
    return k;
}

}  // namespace chunkwise::zarr::detail
