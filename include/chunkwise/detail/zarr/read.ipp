// The definitions of chunkwise/detail/zarr/read.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL bool pread_all(int fd, unsigned char* out, std::size_t n, std::uint64_t at) {
    const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(fd, out, n, at);
    if (got < 0) throw std::runtime_error(std::string("cannot be read: ") + std::strerror(errno));
    chunkwise::detail::thread_read_bytes += static_cast<double>(got);  // worker_stats::read_bytes
    return static_cast<std::size_t>(got) == n;
}

CHUNKWISE_ZARR_DECL bool open_chunk(const state& s, const std::string& key, fd_guard& f, std::uint64_t& size) {
    namespace posix = chunkwise::detail::posix;
    posix::open_outcome how{};
    f.fd = posix::open_regular(s.store + "/" + key, O_RDONLY, 0, how);
    if (f.fd < 0) {
        if (how == posix::open_outcome::missing) return false;
        if (how == posix::open_outcome::not_regular) throw error(s.store, key, "is not a file");
        throw error(s.store, key, std::string("cannot be opened: ") + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) throw error(s.store, key, std::string("cannot be read: ") + std::strerror(errno));
    size = static_cast<std::uint64_t>(st.st_size);
    return true;
}

CHUNKWISE_ZARR_DECL bool chunk_runs(const request& q, const std::vector<std::size_t>& origin,
                                    const std::vector<std::size_t>& extent, std::vector<std::vector<run>>& runs) {
    const std::size_t rank = origin.size();
    runs.assign(rank, {});
    for (std::size_t d = 0; d < rank; ++d) {
        const std::size_t a = origin[d], b = origin[d] + extent[d];
        if (d == q.sel_axis) {
            const auto& idx = *q.sel;
            for (std::size_t k = 0; k < idx.size(); ++k) {
                if (idx[k] < a || idx[k] >= b) continue;
                auto& v = runs[d];
                if (!v.empty() && v.back().src0 + v.back().count == idx[k] - a && v.back().dst0 + v.back().count == k) {
                    ++v.back().count;
                } else {
                    v.push_back({idx[k] - a, k, 1});
                }
            }
        } else {
            const std::size_t from = std::max(a, q.lo[d]), to = std::min(b, q.hi[d]);
            if (from < to) runs[d].push_back({from - a, from - q.lo[d], to - from});
        }
        if (runs[d].empty()) return false;
    }
    return true;
}

CHUNKWISE_ZARR_DECL std::size_t merge_axes(std::vector<std::vector<run>>& runs, std::vector<std::size_t>& sstride,
                                           std::vector<std::size_t>& dstride, std::vector<std::size_t> extent,
                                           std::vector<std::size_t> out_extent) {
    std::size_t rank = runs.size();
    while (rank > 1) {
        const std::size_t d = rank - 1;
        const auto& r = runs[d];
        const bool whole =
            r.size() == 1 && r[0].src0 == 0 && r[0].dst0 == 0 && r[0].count == extent[d] && r[0].count == out_extent[d];
        if (!whole || sstride[d - 1] != sstride[d] * extent[d] || dstride[d - 1] != dstride[d] * out_extent[d]) break;
        const std::size_t n = r[0].count;
        for (run& x : runs[d - 1]) {
            x.src0 *= n;
            x.dst0 *= n;
            x.count *= n;
        }
        sstride[d - 1] = sstride[d];
        dstride[d - 1] = dstride[d];
        extent[d - 1] *= n;
        out_extent[d - 1] *= n;
        --rank;
    }
    runs.resize(rank);
    return rank;
}

CHUNKWISE_ZARR_DECL std::size_t runs_elements(const std::vector<std::size_t>& extent) {
    std::size_t n = 1;
    for (std::size_t e : extent) n *= e;
    return n;
}

}  // namespace chunkwise::zarr::detail
