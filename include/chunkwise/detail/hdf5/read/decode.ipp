// The definitions of chunkwise/detail/hdf5/read/decode.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL const unsigned char* decode_chunk(const dataset_state& s, scratch& buf, std::size_t stored,
                                                      std::uint32_t mask, const std::size_t* offset,
                                                      unsigned char* into, const unsigned char* input, bool swapped) {
    const auto skipped = [&](std::size_t i) { return i < 32 && (mask & (1u << i)) != 0; };
    std::size_t last = s.filters.size();  // the filter undone last: the lowest one not skipped
    for (std::size_t i = 0; i < s.filters.size() && last == s.filters.size(); ++i) {
        if (!skipped(i)) last = i;
    }
    // What a stage in the middle of a pipeline may decode to: its codecs' worst case (else, past a
    // filter without one, a chunk and what encoding usually adds, or the stage's input).
    const auto bound_of = [&](std::size_t i, std::size_t in_size) {
        const std::size_t b = i < s.stage_bound.size() ? s.stage_bound[i] : unbounded;
        return b != unbounded ? b : std::max(s.chunk_bytes + s.chunk_bytes / 8 + 65536, in_size);
    };
    std::vector<unsigned char>* cur = &buf.a;
    std::vector<unsigned char>* other = &buf.b;
    const unsigned char* in = input != nullptr ? input : cur->data();
    std::size_t size = stored;
    try {
        for (std::size_t i = s.filters.size(); i-- > 0;) {
            if (skipped(i)) continue;  // skipped for this chunk when written
            const filter_step& f = s.filters[i];
            const bool final = into != nullptr && i == last;
            if (f.plugin != nullptr) {  // an installed plugin's decode, in this thread
                const std::size_t cap = final ? s.chunk_bytes : bound_of(i, size);
                if (!final) grow(*other, cap, s);
                unsigned char* dst = final ? into : other->data();
                size = plugin_decode(f.plugin, f.cd, in, size, dst, cap);
                in = dst;
                if (!final) std::swap(cur, other);
                continue;
            }
            const codec& c = *f.decoder;
            if (final && swapped) {  // shuffle, element bytes reversed (unshuffles_last)
                unshuffle(in, into, size, s.element_bytes, true);
                swapped_unshuffles().fetch_add(1, std::memory_order_relaxed);
                in = into;
                continue;
            }
            if (c.trim != nullptr) {  // checks and drops a suffix (fletcher32): the bytes stay
                size = c.trim(f.cd, in, size);
                if (final) {
                    if (size != s.chunk_bytes) break;  // reported below, nothing written
                    std::memcpy(into, in, size);
                    in = into;
                }
                continue;
            }
            std::size_t cap = s.chunk_bytes;
            if (!final) {
                const std::size_t stated = c.stated_size(f.cd, in, size);
                cap = bound_of(i, size);
                if (stated > 0) cap = std::min(stated, cap);
                grow(*other, cap, s);
            }
            unsigned char* dst = final ? into : other->data();
            size = c.decode(f.cd, in, size, dst, cap);
            in = dst;
            if (!final) std::swap(cur, other);
        }
    } catch (const std::runtime_error& e) {
        s.fail("chunk at " + box_text(offset, s.dims.size()) + ": " + e.what());
    }
    if (size != s.chunk_bytes) {
        s.fail("chunk at " + box_text(offset, s.dims.size()) + " holds " + std::to_string(size) + " bytes, not " +
               std::to_string(s.chunk_bytes) + " (corrupted?)");
    }
    return in;
}

CHUNKWISE_HDF5_DECL bool unshuffles_last(const dataset_state& s, std::uint32_t mask) {
    for (std::size_t i = 0; i < s.filters.size(); ++i) {
        if (i < 32 && (mask & (1u << i)) != 0) continue;  // skipped for this chunk
        const filter_step& f = s.filters[i];
        return f.plugin == nullptr && f.decoder == &shuffle_codec && !f.cd.empty() && f.cd[0] == s.element_bytes;
    }
    return false;
}

}  // namespace chunkwise::h5::detail
