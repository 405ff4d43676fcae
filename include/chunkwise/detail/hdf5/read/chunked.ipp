// The definitions of chunkwise/detail/hdf5/read/chunked.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL bool is_filtered(const dataset_state& s, const chunk_location& loc) {
    for (std::size_t i = 0; i < s.filters.size(); ++i) {
        if (i >= 32 || (loc.mask & (1u << i)) == 0) return true;
    }
    return false;
}

CHUNKWISE_HDF5_DECL bool locate_from_index(const dataset_state& s, chunk_plan& p) {
    if (!s.index.usable()) return false;
    const std::size_t n = p.n;
    std::vector<std::uint64_t> from(p.c_lo.begin(), p.c_lo.end()), to(p.c_hi.begin(), p.c_hi.end());
    std::vector<std::size_t> stride(n);
    stride[n - 1] = 1;
    for (std::size_t d = n - 1; d > 0; --d) stride[d - 1] = stride[d] * (p.c_hi[d] - p.c_lo[d] + 1);
    std::fill(p.locations.begin(), p.locations.end(), chunk_location{chunk_location::kind::absent});
    index_walk walk(s.index, from.data(), to.data());
    const bool ok =
        walk.run([&](const std::uint64_t* at, std::uint64_t address, std::uint64_t size, std::uint32_t mask) {
            std::size_t k = 0;
            for (std::size_t d = 0; d < n; ++d) {
                if (at[d] < p.c_lo[d] || at[d] > p.c_hi[d]) return true;  // in the range, not in the box
                k += static_cast<std::size_t>(at[d] - p.c_lo[d]) * stride[d];
            }
            p.locations[k] = chunk_location{chunk_location::kind::stored, mask, s.index.fd, address, size};
            return true;
        });
    if (!walk.damage().empty()) s.fail("its chunk index is damaged: " + walk.damage());
    if (ok) index_walks().fetch_add(1, std::memory_order_relaxed);
    return ok;
}

CHUNKWISE_HDF5_DECL chunk_plan plan_chunks(const dataset_state& s, const std::size_t* lo, const std::size_t* hi,
                                           const output_ops& t) {
    chunk_plan p;
    const std::size_t n = p.n = s.dims.size();
    // H5Dread asks whether a fill value is defined before reading any chunk, and fails when it
    // cannot tell: so does chunkwise.
    if (!s.fill_defect.empty()) s.fail("cannot read chunks: " + s.fill_defect + " (corrupted?)");
    p.lo.assign(lo, lo + n);
    p.hi.assign(hi, hi + n);
    p.out_shape.resize(n);
    p.c_lo.resize(n);
    p.c_hi.resize(n);
    for (std::size_t d = 0; d < n; ++d) {
        p.out_shape[d] = hi[d] - lo[d];
        if (p.out_shape[d] == 0) return p;  // nothing to read
        p.c_lo[d] = lo[d] / s.chunk[d];
        p.c_hi[d] = (hi[d] - 1) / s.chunk[d];
    }
    std::vector<std::size_t> gstride(n);
    gstride[n - 1] = 1;
    for (std::size_t d = n - 1; d > 0; --d) gstride[d - 1] = gstride[d] * s.grid[d];

    // Every chunk the box touches, row-major: from the file's chunk index in this thread where
    // the dataset has one the reads can walk, else located under one lock.
    std::size_t touched = 1;
    for (std::size_t d = 0; d < n; ++d) touched *= p.c_hi[d] - p.c_lo[d] + 1;
    p.locations.resize(touched);
    if (!locate_from_index(s, p)) {
        std::fill(p.locations.begin(), p.locations.end(), chunk_location{});
        std::vector<hsize_t> hoff(n);
        std::vector<std::size_t> c = p.c_lo;
        library_lock lock;
        if (!s.probing && !s.listing_tried) s.list_all();
        if (!s.probing && !s.listed) {  // no way to learn locations here: HDF5 reads the box
            p.through_hdf5 = true;
            return p;
        }
        for (std::size_t k = 0; k < touched; ++k) {
            std::uint64_t linear = 0;
            for (std::size_t d = 0; d < n; ++d) {
                hoff[d] = static_cast<hsize_t>(c[d]) * s.chunk[d];
                linear += static_cast<std::uint64_t>(c[d]) * gstride[d];
            }
            p.locations[k] = s.locate(linear, hoff.data());
            for (std::size_t d = n; d-- > 0;) {
                if (++c[d] <= p.c_hi[d]) break;
                c[d] = p.c_lo[d];
            }
        }
    }

    p.inner = s.chunk_elements / s.chunk[0];
    bool whole_rows = true;  // chunks and box span whole trailing axes
    for (std::size_t d = 1; d < n; ++d)
        whole_rows = whole_rows && s.chunk[d] == s.dims[d] && lo[d] == 0 && hi[d] == s.dims[d];
    p.direct = whole_rows && t.same_representation(s.type);
    p.swapped = whole_rows && t.swapped_representation(s.type);
    for (std::size_t d = 1; d < n; ++d) p.out_row *= p.out_shape[d];
    std::size_t out_bytes = t.size;
    for (std::size_t d = 0; d < n; ++d) out_bytes *= p.out_shape[d];
    p.mapped = p.direct && maps_into(s, out_bytes);
    // A filtered chunk larger than its pipeline makes of a chunk at worst is a damaged index.
    const std::size_t max_stored = max_stored_of(s);
    // Chunks one element wide on a short last axis read whole (h5py's automatic chunks of a
    // (frames, atoms, 3) trajectory: one coordinate each): the `ways` chunks side by side are
    // decoded together and woven into the output, each output line written once.
    const std::size_t ways = s.dims[n - 1];
    const bool weave = n >= 2 && s.chunk[n - 1] == 1 && ways >= 2 && ways <= interleave_most && lo[n - 1] == 0 &&
                       hi[n - 1] == ways && t.same_representation(s.type) && ways * s.chunk_bytes <= weave_most_bytes;
    if (weave) p.ways = ways;
    auto action_of = [&](const chunk_location& loc) {
        if (loc.state == chunk_location::kind::absent) return chunk_action::fill;
        // An unfiltered chunk stored in fewer bytes is refused; HDF5 before 2.0 reads the first
        // chunk_bytes of a larger one, HDF5 2.x refuses that too ("incorrect chunk size").
        if (!is_filtered(s, loc)) {
            const bool refused = loc.size < s.chunk_bytes || (H5_VERSION_GE(2, 0, 0) && loc.size != s.chunk_bytes);
            return refused ? chunk_action::short_stored : chunk_action::copy;
        }
        return loc.size > max_stored ? chunk_action::too_large : chunk_action::decode;
    };
    p.actions.resize(touched);
    for (std::size_t k = 0; k < touched; ++k) p.actions[k] = action_of(p.locations[k]);
    if (weave) {
        // A group of chunks side by side is woven when all are stored and readable as they are
        // (anything else goes one chunk at a time, which reports it). With the whole last axis in
        // the box, groups are consecutive runs of `ways` locations.
        for (std::size_t k = 0; k + ways <= touched; k += ways) {
            bool weavable = true;
            for (std::size_t j = 0; j < ways; ++j) {
                const chunk_action a = p.actions[k + j];
                weavable = weavable && (a == chunk_action::copy || a == chunk_action::decode);
            }
            if (!weavable) continue;
            p.actions[k] = chunk_action::weave;
            for (std::size_t j = 1; j < ways; ++j) p.actions[k + j] = chunk_action::woven;
        }
    }
    return p;
}

}  // namespace chunkwise::h5::detail
