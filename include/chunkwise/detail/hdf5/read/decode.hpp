#pragma once
// Internal: one stored chunk's filters undone, each by its codec (filters/table.hpp) or by an
// installed plugin in the calling thread, the last one writing straight into the output where
// asked; and the most bytes a stored chunk of a dataset can hold.
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/read/bytes.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// Chunks unshuffled with their bytes swapped into the output, process-wide (for tests).
inline std::atomic<std::uint64_t>& swapped_unshuffles() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}

/// Undoes the chunk's filters (in reverse, skipping those its mask says were skipped) on
/// buf.a[0, stored) (or on `input`[0, stored) where given), each by its codec (filters/table.hpp);
/// returns the chunk_bytes decoded bytes (in buf.a or buf.b, or in `into` when given: then the
/// last filter writes straight there, which must have room for chunk_bytes). `swapped`: the last
/// filter is a shuffle (unshuffles_last) that writes into `into` with each element's bytes
/// reversed, the byte order undone in the same pass.
inline const unsigned char* decode_chunk(const dataset_state& s, scratch& buf, std::size_t stored, std::uint32_t mask,
                                         const std::size_t* offset, unsigned char* into = nullptr,
                                         const unsigned char* input = nullptr, bool swapped = false) {
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

/// True where the filter undone last for a chunk with this mask is HDF5's shuffle of whole
/// elements, decoded by chunkwise (so decode_chunk can reverse each element's bytes as it writes).
inline bool unshuffles_last(const dataset_state& s, std::uint32_t mask) {
    for (std::size_t i = 0; i < s.filters.size(); ++i) {
        if (i < 32 && (mask & (1u << i)) != 0) continue;  // skipped for this chunk
        const filter_step& f = s.filters[i];
        return f.plugin == nullptr && f.decoder == &shuffle_codec && !f.cd.empty() && f.cd[0] == s.element_bytes;
    }
    return false;
}

/// The most bytes a stored chunk of this dataset holds (its pipeline's worst case).
inline std::size_t max_stored_of(const dataset_state& s) {
    return s.stage_bound.empty() ? unbounded : s.stage_bound.back();
}

}  // namespace chunkwise::h5::detail
