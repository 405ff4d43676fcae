#pragma once
// Internal: what reading a box of a Zarr array is made of (read_box.hpp puts it together): a
// chunk file opened and read with pread, the runs of each axis a chunk gives the box, a chunk's
// values decoded (detail/zarr/codecs.hpp) into per-thread buffers and copied into the output with
// its byte order, layout (C, F, transposed) and type in one pass, or decoded straight into the
// output where they land as they are; the fill value where a chunk has no file. No lock: the only
// shared state is the metadata, read-only after the array is opened.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/zarr/codecs.hpp>
#include <chunkwise/detail/zarr/convert.hpp>
#include <chunkwise/detail/zarr/metadata_v3.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr::detail {

/// An open array: its store's path and metadata (immutable once opened).
struct state {
    std::string store;
    meta m;
};

/// A file descriptor closed on scope exit.
struct fd_guard {
    int fd = -1;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};

/// Reads [at, at + n) of `fd` into out; false where the file ends first.
/// \throws std::runtime_error where the read fails
CHUNKWISE_ZARR_DECL bool pread_all(int fd, unsigned char* out, std::size_t n, std::uint64_t at);

/// Opens the file of chunk `key` (only a regular file: never blocks on a FIFO); false (fd -1)
/// where it does not exist.
CHUNKWISE_ZARR_DECL bool open_chunk(const state& s, const std::string& key, fd_guard& f, std::uint64_t& size);

/// The request: the box [lo, hi) of the array, or on `sel_axis` only the indices `sel`, into a
/// row-major output.
struct request {
    std::vector<std::size_t> lo, hi;
    std::size_t sel_axis = static_cast<std::size_t>(-1);
    const std::vector<std::size_t>* sel = nullptr;
    std::vector<std::size_t> out_shape, out_stride;
};

/// The runs of each axis for a chunk covering [origin, origin + extent) per axis; false where the
/// chunk holds none of the request.
CHUNKWISE_ZARR_DECL bool chunk_runs(const request& q, const std::vector<std::size_t>& origin,
                                    const std::vector<std::size_t>& extent, std::vector<std::vector<run>>& runs);

/// Merges trailing axes that a chunk and the output both hold whole and contiguously into the axis
/// before them, so that the innermost copy is as long as it can be: a chunk of (1, 50000, 3) rows
/// copies 150000 values at once, not 50000 runs of 3.
CHUNKWISE_ZARR_DECL std::size_t merge_axes(std::vector<std::vector<run>>& runs, std::vector<std::size_t>& sstride,
                                           std::vector<std::size_t>& dstride, std::vector<std::size_t> extent,
                                           std::vector<std::size_t> out_extent);

/// Copies one chunk's decoded values (or, with `values` null, the fill value) into the output.
template <class T>
void place(const state& s, const unsigned char* values, const chain& c, const std::vector<std::size_t>& extent,
           std::vector<std::vector<run>>& runs, T* out, const request& q) {
    const std::size_t rank = extent.size();
    std::vector<std::size_t> sstride(rank, 0);
    const unsigned char* src = s.m.fill.data();
    bool swap = false;
    std::vector<std::size_t> dstride = q.out_stride;
    if (values != nullptr) {
        std::size_t step = s.m.type.size;
        for (std::size_t k = rank; k-- > 0;) {
            sstride[c.perm[k]] = step;
            step *= extent[c.perm[k]];
        }
        src = values;
        swap = c.big != (std::endian::native == std::endian::big) && s.m.type.size > 1;
    }
    merge_axes(runs, sstride, dstride, extent, q.out_shape);
    with_type(s.m.type, [&](auto tag) {
        using S = decltype(tag);
        if (s.m.type.kind == 'b') {
            copy_runs<T, std::uint8_t>(src, sstride, out, dstride, runs, 0, false);
        } else {
            copy_runs<T, S>(src, sstride, out, dstride, runs, 0, swap);
        }
    });
}

/// The number of values in a chunk of `extent`.
CHUNKWISE_ZARR_DECL std::size_t runs_elements(const std::vector<std::size_t>& extent);

/// Where a chunk's values can go straight into the output: T is the stored type in this machine's
/// byte order, the chunk is in C order, and it fills one contiguous run of the output whole.
/// Returns that run's start, else null (the chunk is then decoded into a buffer and copied).
template <class T>
T* direct_target(const state& s, const chain& c, const std::vector<std::size_t>& extent,
                 const std::vector<std::vector<run>>& runs, T* out, const request& q) {
    const dtype& t = s.m.type;
    const bool same =
        sizeof(T) == t.size && t.kind != 'b' &&
        (t.kind == 'f' ? std::is_floating_point_v<T>
                       : std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_signed_v<T> == (t.kind == 'i'));
    if (!same || (t.size > 1 && c.big != (std::endian::native == std::endian::big))) return nullptr;
    for (std::size_t k = 0; k < c.perm.size(); ++k)
        if (c.perm[k] != k) return nullptr;
    std::vector<std::vector<run>> r = runs;
    std::vector<std::size_t> sstride(extent.size()), dstride = q.out_stride;
    std::size_t step = t.size, elems = 1;
    for (std::size_t k = extent.size(); k-- > 0;) {
        sstride[k] = step;
        step *= extent[k];
        elems *= extent[k];
    }
    if (merge_axes(r, sstride, dstride, extent, q.out_shape) != 1 || r[0].size() != 1 || r[0][0].count != elems ||
        r[0][0].src0 != 0 || dstride[0] != 1)
        return nullptr;
    return out + r[0][0].dst0;
}

/// Per-thread buffers of one level of (nested) sharding: the stored bytes (a chunk, or a whole
/// shard where codecs follow sharding), two decode stages, an inner chunk's stored bytes, and the
/// index's two decode stages.
struct scratch {
    std::vector<unsigned char> file, a, b, piece, index_a, index_b;
};
inline scratch& thread_scratch(std::size_t level = 0) {
    thread_local std::array<scratch, most_shard_levels + 1> s;
    return s[level];
}

/// Decodes the chunk bytes [in, in + n) through `c` and copies them into the output.
template <class T>
void decode_place(const state& s, const std::string& key, const chain& c, const unsigned char* in, std::size_t n,
                  const std::vector<std::size_t>& extent, std::vector<std::vector<run>>& runs, T* out, const request& q,
                  std::vector<unsigned char>& a, std::vector<unsigned char>& b) {
    std::size_t elems = 1;
    for (std::size_t e : extent) elems *= e;
    try {
        if (T* direct = c.bytes_codecs.empty() ? nullptr : direct_target<T>(s, c, extent, runs, out, q)) {
            (void)decode_bytes(s.store, c, in, n, elems, s.m.type, a, b, reinterpret_cast<unsigned char*>(direct));
            return;
        }
        place<T>(s, decode_bytes(s.store, c, in, n, elems, s.m.type, a, b), c, extent, runs, out, q);
    } catch (const error&) {
        throw;
    } catch (const std::exception& e) {
        throw error(s.store, key, e.what());
    }
}

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/read.ipp>
#endif
