#pragma once
// Internal: reads of chunked datasets whose filters chunkwise decodes itself (filters/), in two parts: the
// plan (which chunks the box touches, where each one's bytes are, and what is done with it) made
// under the library lock, and its execution (pread, decode, copy or weave into the output)
// outside it. A new way to serve a chunk is one action in chunk_plan and one case in run_plan.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/format/index_walk.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/read/bytes.hpp>
#include <chunkwise/detail/hdf5/read/convert.hpp>
#include <chunkwise/detail/hdf5/read/copy.hpp>
#include <chunkwise/detail/hdf5/read/decode.hpp>
#include <chunkwise/detail/hdf5/read/fallback.hpp>
#include <chunkwise/detail/hdf5/read/fill.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/detail/hdf5/types.hpp>

#include <hdf5.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// Chunks one element wide on the last axis are woven together when that axis holds at most
/// interleave_most of them and they take at most this many bytes together.
inline constexpr std::size_t weave_most_bytes = std::size_t{8} << 20;

/// Filtered chunks that follow each other in the file are read with one pread per run of them,
/// runs of at most this many bytes (small chunks then cost no system call each; a larger chunk
/// is read alone, as coalescing it would save nothing).
inline constexpr std::size_t coalesce_most_bytes = std::size_t{1} << 20;
/// A run goes on across a gap of at most this many bytes between two chunks (the chunk index's
/// own nodes, which HDF5 writes among the chunks it indexes: 2.6 KiB each for a 2-d dataset).
inline constexpr std::size_t coalesce_gap_bytes = std::size_t{8} << 10;

/// Groups of chunks woven so far, process-wide (for tests).
inline std::atomic<std::uint64_t>& woven_groups() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}

/// What a read does with one chunk its box touches.
enum class chunk_action : std::uint8_t {
    fill,          // never written: the fill value
    copy,          // stored unfiltered: its rows read (straight into the output where they land whole)
    decode,        // stored filtered: read, decoded (into the output where the chunk lands whole)
    weave,         // the first of `ways` one-wide chunks side by side: all read, woven together
    woven,         // one of those after the first: done with the first
    short_stored,  // unfiltered but stored in fewer bytes than a chunk (HDF5 2.x: any other size): refused
    too_large,     // filtered and stored in more bytes than any filter makes: refused (corrupted)
};

/// A read of the box [lo, hi) of a chunked dataset, planned: every chunk the box touches (row-
/// major in the chunk grid from c_lo to c_hi), where its bytes are, and what is done with it.
/// Made under the library lock (the chunk locations), run outside it.
struct chunk_plan {
    std::size_t n = 0;  // rank
    std::vector<std::size_t> lo, hi, out_shape, c_lo, c_hi;
    std::vector<chunk_location> locations;
    std::vector<chunk_action> actions;
    bool direct = false;        // whole rows of T's own representation: bytes land in the output as they are
    bool swapped = false;       // whole rows of T in the other byte order: shuffled chunks unshuffled into it, swapped
    bool mapped = false;        // unfiltered pieces copied from mappings of the file (a large output)
    bool through_hdf5 = false;  // the chunks cannot be located here: H5Dread reads the box
    std::size_t ways = 0;       // chunks woven side by side (0: none)
    std::size_t inner = 0;      // elements per chunk row
    std::size_t out_row = 1;    // elements per output row
    [[nodiscard]] bool empty() const noexcept { return locations.empty(); }
};

/// True when the chunk's stored bytes went through some filter (its mask skips not all of them).
CHUNKWISE_HDF5_DECL bool is_filtered(const dataset_state& s, const chunk_location& loc);

/// Reads walked in the file's chunk index, process-wide (for tests).
inline std::atomic<std::uint64_t>& index_walks() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}

/// Fills p.locations (the chunks from p.c_lo to p.c_hi, row-major) from a walk of the file's
/// chunk index in this thread: stored where the walk finds a chunk, absent elsewhere. False
/// where the dataset has no index the reads can walk, or the walk finds what the format does not
/// allow (then the caller asks HDF5).
CHUNKWISE_HDF5_DECL bool locate_from_index(const dataset_state& s, chunk_plan& p);

/// What reading into an output of T needs of T: its size, whether the stored values are already
/// T, and the steps that write T (filling, placing, weaving). One table per T, so that plan_chunks
/// and run_plan are compiled once, whatever types a program reads into.
struct output_ops {
    std::size_t size = 0;  ///< sizeof(T)
    bool (*same_representation)(const element_type&) = nullptr;
    bool (*swapped_representation)(const element_type&) = nullptr;
    void (*fill)(const dataset_state&, const std::size_t* lo, const std::size_t* hi, unsigned char* out,
                 const std::size_t* out_shape, const std::size_t* out_lo) = nullptr;
    void (*place)(const dataset_state&, scratch&, const unsigned char* src, const std::size_t* src_shape,
                  const std::size_t* lo, const std::size_t* hi, unsigned char* out, const std::size_t* out_shape,
                  const std::size_t* out_lo) = nullptr;
    void (*interleave)(const unsigned char* const* planes, std::size_t k, const std::size_t* src_shape,
                       const std::size_t* lo, const std::size_t* hi, unsigned char* out, const std::size_t* out_shape,
                       const std::size_t* out_lo, std::size_t n) = nullptr;
};

/// output_ops for an output of T.
template <class T>
inline constexpr output_ops output_ops_of{
    sizeof(T),
    [](const element_type& t) { return same_representation<T>(t); },
    [](const element_type& t) { return swapped_representation<T>(t); },
    [](const dataset_state& s, const std::size_t* lo, const std::size_t* hi, unsigned char* out,
       const std::size_t* out_shape,
       const std::size_t* out_lo) { fill_absent<T>(s, lo, hi, reinterpret_cast<T*>(out), out_shape, out_lo); },
    [](const dataset_state& s, scratch& buf, const unsigned char* src, const std::size_t* src_shape,
       const std::size_t* lo, const std::size_t* hi, unsigned char* out, const std::size_t* out_shape,
       const std::size_t* out_lo) {
        place_box<T>(s, buf, src, src_shape, lo, hi, reinterpret_cast<T*>(out), out_shape, out_lo);
    },
    [](const unsigned char* const* planes, std::size_t k, const std::size_t* src_shape, const std::size_t* lo,
       const std::size_t* hi, unsigned char* out, const std::size_t* out_shape, const std::size_t* out_lo,
       std::size_t n) {
        const T* typed[interleave_most];
        for (std::size_t j = 0; j < k && j < interleave_most; ++j) typed[j] = reinterpret_cast<const T*>(planes[j]);
        interleave_box<T>(typed, k, src_shape, lo, hi, reinterpret_cast<T*>(out), out_shape, out_lo, n);
    },
};

/// Plans the read of the box [lo, hi) into an output of `t`: locates every chunk it touches
/// (under one lock) and decides what to do with each.
CHUNKWISE_HDF5_DECL chunk_plan plan_chunks(const dataset_state& s, const std::size_t* lo, const std::size_t* hi,
                                           const output_ops& t);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/chunked.ipp>
#endif
