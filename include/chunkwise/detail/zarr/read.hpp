#pragma once
// Internal: reading a box of a Zarr array in the calling thread. Every chunk (or inner chunk of a
// shard) the box touches is read with pread, decoded by detail/zarr/codecs.hpp into per-thread
// buffers, and copied into the output with its byte order, layout (C, F, transposed) and type
// conversion in one pass; a chunk with no file reads as the fill value. No lock: the only shared
// state is the metadata, read-only after the array is opened.
#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/zarr/codecs.hpp>
#include <chunkwise/detail/zarr/convert.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
inline bool pread_all(int fd, unsigned char* out, std::size_t n, std::uint64_t at) {
    const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(fd, out, n, at);
    if (got < 0) throw std::runtime_error(std::string("cannot be read: ") + std::strerror(errno));
    chunkwise::detail::thread_read_bytes += static_cast<double>(got);  // worker_stats::read_bytes
    return static_cast<std::size_t>(got) == n;
}

/// Opens the file of chunk `key` (only a regular file: never blocks on a FIFO); false (fd -1)
/// where it does not exist.
inline bool open_chunk(const state& s, const std::string& key, fd_guard& f, std::uint64_t& size) {
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
inline bool chunk_runs(const request& q, const std::vector<std::size_t>& origin, const std::vector<std::size_t>& extent,
                       std::vector<std::vector<run>>& runs) {
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

/// Merges trailing axes that a chunk and the output both hold whole and contiguously into the axis
/// before them, so that the innermost copy is as long as it can be: a chunk of (1, 50000, 3) rows
/// copies 150000 values at once, not 50000 runs of 3.
inline std::size_t merge_axes(std::vector<std::vector<run>>& runs, std::vector<std::size_t>& sstride,
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
inline std::size_t runs_elements(const std::vector<std::size_t>& extent) {
    std::size_t n = 1;
    for (std::size_t e : extent) n *= e;
    return n;
}

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

/// Per-thread buffers: the stored bytes and two decode stages.
struct scratch {
    std::vector<unsigned char> file, a, b;
};
inline scratch& thread_scratch() {
    thread_local scratch s;
    return s;
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

/// Reads one shard: its index, then each inner chunk the request touches.
template <class T>
void read_shard(const state& s, const std::string& key, const std::vector<std::size_t>& origin, T* out,
                const request& q) {
    const shard_spec& sh = *s.m.codecs.shard;
    const std::size_t rank = origin.size();
    std::vector<std::size_t> per(rank);
    std::size_t inner_count = 1;
    for (std::size_t d = 0; d < rank; ++d) {
        per[d] = s.m.chunks[d] / sh.inner[d];
        inner_count *= per[d];
    }
    std::vector<std::vector<run>> runs;
    fd_guard f;
    std::uint64_t size = 0;
    const bool present = open_chunk(s, key, f, size);
    scratch& buf = thread_scratch();
    std::vector<std::uint64_t> index;
    if (present) {
        const std::vector<std::size_t> sizes = stage_sizes(s.store, *sh.index, inner_count * 2, 8);
        const std::size_t index_bytes = sizes.back();
        if (index_bytes == 0) throw error(s.store, key, "a shard index through a compressing codec is not read");
        if (size < index_bytes)
            throw error(s.store, key,
                        "a shard of " + std::to_string(size) + " bytes, shorter than its index of " +
                            std::to_string(index_bytes));
        buf.file.resize(index_bytes);
        try {
            if (!pread_all(f.fd, buf.file.data(), index_bytes, sh.index_at_start ? 0 : size - index_bytes))
                throw std::runtime_error("the shard ends inside its index");
            const dtype u64{'u', 8, sh.index->big};
            const unsigned char* raw =
                decode_bytes(s.store, *sh.index, buf.file.data(), index_bytes, inner_count * 2, u64, buf.a, buf.b);
            index.resize(inner_count * 2);
            for (std::size_t i = 0; i < index.size(); ++i)
                index[i] = load<std::uint64_t>(raw + 8 * i, sh.index->big != (std::endian::native == std::endian::big));
        } catch (const error&) {
            throw;
        } catch (const std::exception& e) {
            throw error(s.store, key, std::string("its shard index: ") + e.what());
        }
    }
    std::vector<std::size_t> pos(rank, 0), inner_origin(rank);
    for (std::size_t k = 0; k < inner_count; ++k) {
        // pos: row-major position k in the shard's grid of inner chunks
        std::size_t rest = k;
        for (std::size_t d = rank; d-- > 0;) {
            pos[d] = rest % per[d];
            rest /= per[d];
            inner_origin[d] = origin[d] + pos[d] * sh.inner[d];
        }
        if (!chunk_runs(q, inner_origin, sh.inner, runs)) continue;
        const std::uint64_t at = present ? index[2 * k] : 0, n = present ? index[2 * k + 1] : 0;
        const std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
        if (!present || (at == none && n == none)) {
            place<T>(s, nullptr, *sh.codecs, sh.inner, runs, out, q);
            continue;
        }
        std::string where;
        for (std::size_t d = 0; d < rank; ++d) where += (d ? "," : "") + std::to_string(pos[d]);
        if (at > size || n > size - at || n > (std::uint64_t{1} << 40))
            throw error(s.store, key,
                        "its index points outside the shard: inner chunk (" + where + ") at byte " +
                            std::to_string(at) + ", " + std::to_string(n) + " bytes, in a shard of " +
                            std::to_string(size) + " bytes");
        buf.file.resize(static_cast<std::size_t>(n));
        try {
            if (!pread_all(f.fd, buf.file.data(), buf.file.size(), at))
                throw std::runtime_error("the shard ends inside an inner chunk");
        } catch (const std::exception& e) {
            throw error(s.store, key, e.what());
        }
        decode_place<T>(s, key + " (inner chunk " + where + ")", *sh.codecs, buf.file.data(), buf.file.size(), sh.inner,
                        runs, out, q, buf.a, buf.b);
    }
}

/// Reads the request into `out` (row-major, q.out_shape).
template <class T>
void read_request(const state& s, request& q, T* out) {
    const std::size_t rank = s.m.shape.size();
    q.out_stride.assign(rank, 1);
    for (std::size_t d = rank; d-- > 1;) q.out_stride[d - 1] = q.out_stride[d] * q.out_shape[d];
    // The grid positions touched per axis.
    std::vector<std::vector<std::size_t>> touched(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        const std::size_t c = s.m.chunks[d];
        if (d == q.sel_axis) {
            std::vector<std::size_t> g;
            for (std::size_t i : *q.sel) g.push_back(i / c);
            std::sort(g.begin(), g.end());
            g.erase(std::unique(g.begin(), g.end()), g.end());
            touched[d] = g;
        } else {
            for (std::size_t g = q.lo[d] / c; g * c < q.hi[d]; ++g) touched[d].push_back(g);
        }
        if (touched[d].empty()) return;
    }
    std::vector<std::size_t> at(rank, 0), grid(rank), origin(rank);
    std::vector<std::vector<run>> runs;
    scratch& buf = thread_scratch();
    while (true) {
        for (std::size_t d = 0; d < rank; ++d) {
            grid[d] = touched[d][at[d]];
            origin[d] = grid[d] * s.m.chunks[d];
        }
        const std::string key = chunk_key(s.m, grid);
        if (s.m.codecs.shard) {
            read_shard<T>(s, key, origin, out, q);
        } else if (chunk_runs(q, origin, s.m.chunks, runs)) {
            fd_guard f;
            std::uint64_t size = 0;
            if (!open_chunk(s, key, f, size)) {
                place<T>(s, nullptr, s.m.codecs, s.m.chunks, runs, out, q);
            } else if (T* direct = s.m.codecs.bytes_codecs.empty()
                                       ? direct_target<T>(s, s.m.codecs, s.m.chunks, runs, out, q)
                                       : nullptr) {
                const std::size_t want = runs_elements(s.m.chunks) * sizeof(T);
                if (size != want)
                    throw error(s.store, key,
                                std::to_string(size) + " bytes where the chunk holds " + std::to_string(want));
                try {
                    if (!pread_all(f.fd, reinterpret_cast<unsigned char*>(direct), want, 0))
                        throw std::runtime_error("it changed size while read");
                } catch (const std::exception& e) {
                    throw error(s.store, key, e.what());
                }
            } else {
                buf.file.resize(static_cast<std::size_t>(size));
                try {
                    if (!pread_all(f.fd, buf.file.data(), buf.file.size(), 0))
                        throw std::runtime_error("it changed size while read");
                } catch (const std::exception& e) {
                    throw error(s.store, key, e.what());
                }
                decode_place<T>(s, key, s.m.codecs, buf.file.data(), buf.file.size(), s.m.chunks, runs, out, q, buf.a,
                                buf.b);
            }
        }
        std::size_t d = rank;
        while (d-- > 0) {
            if (++at[d] < touched[d].size()) break;
            at[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
    }
}

}  // namespace chunkwise::zarr::detail
