// The definitions of chunkwise/hdf5/chunks.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {

CHUNKWISE_HDF5_DECL std::vector<stored_chunk> stored_chunks(const dataset& ds) {
    std::vector<stored_chunk> out;
    for (auto& e : detail::inventory(detail::dataset_access::state(ds))) {
        out.push_back(stored_chunk{std::move(e.offset), e.address, e.size, e.mask});
    }
    return out;
}

CHUNKWISE_HDF5_DECL chunk_source chunk_locations(const dataset& ds) {
    const detail::dataset_state& s = detail::dataset_access::state(ds);
    if (s.layout != detail::storage::chunked) return chunk_source::not_chunked;
    if (!s.decodable) return chunk_source::hdf5;
    if (s.index.usable()) return chunk_source::file_index;
    if (s.probing) return chunk_source::probe_driver;
    return s.listed ? chunk_source::listing : chunk_source::hdf5;
}

CHUNKWISE_HDF5_DECL std::string describe(chunk_source c) {
    switch (c) {
        case chunk_source::not_chunked:
            return "not chunked";
        case chunk_source::file_index:
            return "the file's chunk index, walked by each reader without a lock";
        case chunk_source::probe_driver:
            return "the probe driver, one lookup per chunk under the library lock";
        case chunk_source::listing:
            return "HDF5's listing of every chunk, once, under the library lock";
        case chunk_source::hdf5:
            return "none: H5Dread reads under the library lock";
    }
    return "unknown";
}

CHUNKWISE_HDF5_DECL std::size_t decode_chunk(const dataset& ds, std::span<const unsigned char> stored,
                                             std::uint32_t filter_mask, std::span<unsigned char> out) {
    const detail::dataset_state& s = detail::dataset_access::state(ds);
    if (s.layout != detail::storage::chunked || !s.decodable) {
        s.fail("decode_chunk: chunkwise does not decode this dataset's chunks (not chunked, or filters HDF5 decodes)");
    }
    if (out.size() < s.chunk_bytes) {
        s.fail("decode_chunk: an output of " + std::to_string(out.size()) + " bytes for chunks of " +
               std::to_string(s.chunk_bytes));
    }
    const std::size_t at[32] = {};  // (HDF5's most axes; errors name the chunk at the origin)
    (void)detail::decode_chunk(s, detail::scratch::mine(), stored.size(), filter_mask, at, out.data(), stored.data());
    return s.chunk_bytes;
}

CHUNKWISE_HDF5_DECL copy_method large_read_copies() {
    const auto& m = detail::map_setting::get();
    copy_method c;
    c.min_bytes = m.min_bytes.load();
    const auto choice = m.choice.load();
    c.method = choice == detail::copy_choice::mapped  ? "mapped copies"
               : choice == detail::copy_choice::pread ? "pread"
                                                      : "not decided yet";
    c.pread_ms = static_cast<double>(m.measured_pread_ns.load()) / 1e6;
    c.mapped_ms = static_cast<double>(m.measured_mapped_ns.load()) / 1e6;
    return c;
}

}  // namespace chunkwise::h5
