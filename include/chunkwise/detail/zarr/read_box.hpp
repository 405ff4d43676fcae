#pragma once
// Internal: a box (or selected indices) of a Zarr array read in the calling thread: every chunk
// the box touches (read.hpp), and every shard: its index (read and checked), then each inner chunk
// the box touches, from the file with pread or from memory where codecs follow sharding (the whole
// shard decoded first); an inner chunk that is itself a shard is read the same way, a level down.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/read.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace chunkwise::zarr::detail {

/// A shard's (or chunk's) stored bytes: a file read with pread where asked, or bytes in memory;
/// `present` false where the chunk has no file.
struct stored_bytes {
    int fd = -1;
    const unsigned char* mem = nullptr;
    std::uint64_t size = 0;
    bool present = false;

    /// [at, at + n): in memory, or read into `buf`. \throws std::runtime_error where the file
    /// ends first (the caller checked [at, at + n) against size)
    const unsigned char* get(std::uint64_t at, std::size_t n, std::vector<unsigned char>& buf) const {
        if (mem != nullptr) return mem + at;
        buf.resize(n);
        if (!pread_all(fd, buf.data(), n, at)) throw std::runtime_error("truncated: the file ends while read");
        return buf.data();
    }
};

template <class T>
void read_shard_or_place(const state& s, const std::string& key, const chain& c, const stored_bytes& src,
                         const std::vector<std::size_t>& origin, const std::vector<std::size_t>& extent,
                         std::vector<std::vector<run>>& runs, T* out, const request& q, std::size_t level);
template <class T>
void read_inner(const state& s, const std::string& key, const shard_spec& sh, const stored_bytes& shard,
                const std::vector<std::uint64_t>& index, const std::vector<std::size_t>& pos,
                const std::vector<std::size_t>& inner_origin, const std::vector<std::size_t>& extent, T* out,
                const request& q, std::size_t level);

/// The shard's index: (offset, bytes) of each inner chunk, in the index's row-major order.
CHUNKWISE_ZARR_DECL std::vector<std::uint64_t> read_shard_index(const state& s, const shard_spec& sh,
                                                                const stored_bytes& src, std::uint64_t count,
                                                                scratch& buf);

/// The inner positions of a shard at `origin` of `extent` (array axes) the request touches, per axis.
CHUNKWISE_ZARR_DECL std::vector<std::vector<std::size_t>> touched_inner(const request& q,
                                                                        const std::vector<std::size_t>& origin,
                                                                        const std::vector<std::size_t>& extent,
                                                                        const std::vector<std::size_t>& inner);

/// The position of the inner chunk at `pos` (array axes) in the shard's index.
CHUNKWISE_ZARR_DECL std::uint64_t index_position(const shard_spec& sh, const std::vector<std::size_t>& pos,
                                                 const std::vector<std::size_t>& extent);

/// Reads one shard of chain `c` at `origin` (its `extent`, array axes): its index, then each inner
/// chunk the request touches, at `level` of sharding (its buffers thread_scratch(level)).
template <class T>
void read_shard(const state& s, const std::string& key, const chain& c, const stored_bytes& src,
                const std::vector<std::size_t>& origin, const std::vector<std::size_t>& extent, T* out,
                const request& q, std::size_t level) {
    const shard_spec& sh = *c.shard;
    std::vector<std::vector<run>> runs;
    if (!src.present) {  // no file: the fill value wherever the request meets the shard
        if (chunk_runs(q, origin, extent, runs)) place<T>(s, nullptr, c, extent, runs, out, q);
        return;
    }
    scratch& buf = thread_scratch(level);
    stored_bytes shard = src;
    std::vector<std::uint64_t> index;
    try {
        if (!c.bytes_codecs.empty()) {  // bytes codecs after sharding: the whole shard decoded first
            const unsigned char* whole = src.get(0, static_cast<std::size_t>(src.size), buf.file);
            std::size_t decoded = 0;
            const unsigned char* raw = decode_bytes(s.store, c, whole, static_cast<std::size_t>(src.size), 0, s.m.type,
                                                    buf.a, buf.b, nullptr, &decoded);
            shard = stored_bytes{-1, raw, decoded, true};
        }
        index = read_shard_index(s, sh, shard, inner_chunks(s.store, extent, sh), buf);
    } catch (const error&) {
        throw;
    } catch (const std::exception& e) {
        throw error(s.store, key, e.what());
    }
    const auto touched = touched_inner(q, origin, extent, sh.inner);
    const std::size_t rank = origin.size();
    for (const auto& t : touched)
        if (t.empty()) return;
    std::vector<std::size_t> at(rank, 0), pos(rank), inner_origin(rank);
    while (true) {
        for (std::size_t d = 0; d < rank; ++d) {
            pos[d] = touched[d][at[d]];
            inner_origin[d] = origin[d] + pos[d] * sh.inner[d];
        }
        read_inner<T>(s, key, sh, shard, index, pos, inner_origin, extent, out, q, level);
        std::size_t d = rank;
        while (d-- > 0) {
            if (++at[d] < touched[d].size()) break;
            at[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
    }
}

/// One inner chunk of a shard (at `pos`, inner positions; `inner_origin`, array coordinates): the
/// fill value where the index says it is empty, else its bytes decoded (or read as a shard a level
/// down) into the output.
template <class T>
void read_inner(const state& s, const std::string& key, const shard_spec& sh, const stored_bytes& shard,
                const std::vector<std::uint64_t>& index, const std::vector<std::size_t>& pos,
                const std::vector<std::size_t>& inner_origin, const std::vector<std::size_t>& extent, T* out,
                const request& q, std::size_t level) {
    std::vector<std::vector<run>> runs;
    if (!sh.codecs->shard && !chunk_runs(q, inner_origin, sh.inner, runs)) return;
    const std::uint64_t k = index_position(sh, pos, extent);
    const std::uint64_t at = index[2 * k], n = index[2 * k + 1], none = std::numeric_limits<std::uint64_t>::max();
    std::string where;
    for (std::size_t d = 0; d < pos.size(); ++d) where += (d ? "," : "") + std::to_string(pos[d]);
    const std::string inner_key = key + " (inner chunk " + where + ")";
    if (at == none && n == none) {
        read_shard_or_place<T>(s, inner_key, *sh.codecs, stored_bytes{}, inner_origin, sh.inner, runs, out, q,
                               level + 1);
        return;
    }
    if (at > shard.size || n > shard.size - at || n > (std::uint64_t{1} << 40))
        throw error(s.store, key,
                    "its index points outside the shard: inner chunk (" + where + ") at byte " + std::to_string(at) +
                        ", " + std::to_string(n) + " bytes, in a shard of " + std::to_string(shard.size) + " bytes");
    const unsigned char* bytes = nullptr;
    try {
        bytes = shard.get(at, static_cast<std::size_t>(n), thread_scratch(level).piece);
    } catch (const std::exception& e) {
        throw error(s.store, key, e.what());
    }
    read_shard_or_place<T>(s, inner_key, *sh.codecs, stored_bytes{-1, bytes, n, true}, inner_origin, sh.inner, runs,
                           out, q, level + 1);
}

/// A chunk of chain `c` from `src`: a shard read a level down, or its values decoded and placed
/// (the fill value where absent).
template <class T>
void read_shard_or_place(const state& s, const std::string& key, const chain& c, const stored_bytes& src,
                         const std::vector<std::size_t>& origin, const std::vector<std::size_t>& extent,
                         std::vector<std::vector<run>>& runs, T* out, const request& q, std::size_t level) {
    if (c.shard) {
        read_shard<T>(s, key, c, src, origin, extent, out, q, level);
    } else if (!src.present) {
        place<T>(s, nullptr, c, extent, runs, out, q);
    } else {
        scratch& next = thread_scratch(level);
        decode_place<T>(s, key, c, src.mem, static_cast<std::size_t>(src.size), extent, runs, out, q, next.a, next.b);
    }
}

/// One chunk of an array that is not sharded: the fill value where it has no file, else read
/// straight into the output where it lands there as it is, or decoded and placed.
template <class T>
void read_chunk(const state& s, const std::string& key, const std::vector<std::size_t>& origin, T* out,
                const request& q, std::vector<std::vector<run>>& runs) {
    if (!chunk_runs(q, origin, s.m.chunks, runs)) return;
    scratch& buf = thread_scratch();
    fd_guard f;
    std::uint64_t size = 0;
    if (!open_chunk(s, key, f, size)) {
        place<T>(s, nullptr, s.m.codecs, s.m.chunks, runs, out, q);
        return;
    }
    T* direct = s.m.codecs.bytes_codecs.empty() ? direct_target<T>(s, s.m.codecs, s.m.chunks, runs, out, q) : nullptr;
    const std::size_t want = runs_elements(s.m.chunks) * sizeof(T);
    if (direct != nullptr && size != want)
        throw error(s.store, key,
                    (size < want ? "truncated: " : "") + std::to_string(size) + " bytes where the chunk holds " +
                        std::to_string(want));
    unsigned char* into = direct != nullptr ? reinterpret_cast<unsigned char*>(direct) : nullptr;
    if (into == nullptr) {
        buf.file.resize(static_cast<std::size_t>(size));
        into = buf.file.data();
    }
    try {
        if (!pread_all(f.fd, into, direct != nullptr ? want : buf.file.size(), 0))
            throw std::runtime_error("it changed size while read");
    } catch (const std::exception& e) {
        throw error(s.store, key, e.what());
    }
    if (direct == nullptr)
        decode_place<T>(s, key, s.m.codecs, buf.file.data(), buf.file.size(), s.m.chunks, runs, out, q, buf.a, buf.b);
}

/// Reads the request into `out` (row-major, q.out_shape): every chunk (or shard) it touches.
template <class T>
void read_request(const state& s, request& q, T* out) {
    const std::size_t rank = s.m.shape.size();
    q.out_stride.assign(rank, 1);
    for (std::size_t d = rank; d-- > 1;) q.out_stride[d - 1] = q.out_stride[d] * q.out_shape[d];
    const std::vector<std::size_t> zero(rank, 0);
    const auto touched = touched_inner(q, zero, s.m.shape, s.m.chunks);  // the grid positions touched
    for (const auto& t : touched)
        if (t.empty()) return;
    std::vector<std::size_t> at(rank, 0), grid(rank), origin(rank);
    std::vector<std::vector<run>> runs;
    while (true) {
        for (std::size_t d = 0; d < rank; ++d) {
            grid[d] = touched[d][at[d]];
            origin[d] = grid[d] * s.m.chunks[d];
        }
        const std::string key = chunk_key(s.m, grid);
        if (s.m.codecs.shard) {
            fd_guard f;
            stored_bytes src;
            src.present = open_chunk(s, key, f, src.size);
            src.fd = f.fd;
            read_shard<T>(s, key, s.m.codecs, src, origin, s.m.chunks, out, q, 0);
        } else {
            read_chunk<T>(s, key, origin, out, q, runs);
        }
        std::size_t d = rank;
        while (d-- > 0) {
            if (++at[d] < touched[d].size()) break;
            at[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
    }
}

/// The read path of element type T: `extern` declares it, nothing defines it (compiled mode: the
/// library, <chunkwise/zarr/src.hpp>, compiles it once for bool and each arithmetic type; a
/// program declares it extern and compiles none of it).
#define CHUNKWISE_ZARR_READ_INSTANCES(EXTERN, T) EXTERN template void read_request<T>(const state&, request&, T*);
#if !CHUNKWISE_ZARR_HEADER_ONLY
#define CHUNKWISE_ZARR_EXTERN_READ(T) CHUNKWISE_ZARR_READ_INSTANCES(extern, T)
CHUNKWISE_ARITHMETIC_TYPES(CHUNKWISE_ZARR_EXTERN_READ)
CHUNKWISE_ZARR_EXTERN_READ(bool)
#undef CHUNKWISE_ZARR_EXTERN_READ
#endif

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/read_box.ipp>
#endif
