#pragma once
// Internal: how a read is served. chunkwise reads and decodes the stored bytes itself wherever
// it can, and leaves to HDF5 only what HDF5 must do:
//
// - contiguous data: pread of the rows from the file the dataset lives in;
// - chunks with no filters, deflate and shuffle: their locations are looked up under the lock
//   (one H5Dread_chunk probe per chunk, then cached), their bytes read with pread and decoded
//   (inflate, unshuffle, every decoded size checked) outside it; unfiltered chunks of T's own
//   representation that hold whole rows go straight into the output;
// - values are converted to T in the calling thread where the conversion is exact (same type or
//   widening), else by HDF5's rules (H5Tconvert, what H5Dread applies) under the lock;
// - everything else (other filters, compact/external/virtual storage): H5Dread under the lock.
// Chunks never written read as the fill value (0 where HDF5 would leave the buffer untouched).
// Whatever HDF5 would read differently from call to call (bytes past a chunk stored short, data
// outside the file's allocated space, a damaged fill value) is an h5::error. So every read gives
// what H5Dread gives, or an h5::error.
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/copy.hpp>
#include <chunkwise/detail/hdf5/decode.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/detail/hdf5/types.hpp>

#include <hdf5.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/// Decode buffers of the calling thread: kept between reads up to keep_bytes in all, released
/// after any read that needed more (64 MiB chunks would otherwise stay resident per thread).
struct scratch {
    static constexpr std::size_t keep_bytes = std::size_t{32} << 20;
    std::vector<unsigned char> a, b, c;

    static scratch& mine() {
        thread_local scratch s;
        return s;
    }
    [[nodiscard]] std::size_t held() const noexcept { return a.capacity() + b.capacity() + c.capacity(); }
    void trim() {
        if (held() > keep_bytes) {
            std::vector<unsigned char>().swap(a);
            std::vector<unsigned char>().swap(b);
            std::vector<unsigned char>().swap(c);
        }
    }
};

/// Bytes of the calling thread's decode buffers (for tests of the bound).
inline std::size_t scratch_bytes_held() { return scratch::mine().held(); }

inline void grow(std::vector<unsigned char>& v, std::size_t bytes, const dataset_state& s) {
    try {
        if (v.size() < bytes) v.resize(bytes);
    } catch (const std::bad_alloc&) {
        s.fail("cannot allocate " + std::to_string(bytes) + " bytes to decode a chunk");
    }
}

/// All `bytes` at `address` of fd into dst, or h5::error naming what(): the description is
/// made only when the read fails (a read of a small chunk costs about a microsecond).
template <class What>
void pread_all(const dataset_state& s, int fd, std::uint64_t address, unsigned char* dst, std::size_t bytes,
               What&& what) {
    const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(fd, dst, bytes, address);
    if (got != static_cast<std::ptrdiff_t>(bytes)) {
        s.fail("reading " + std::string(what()) + " failed: " +
               (got < 0 ? std::string(std::strerror(errno)) : std::string("the file ends early (truncated?)")));
    }
}

/// Reads of uncompressed bytes into an output of at least this many bytes (a block larger than
/// the caches) copy from a read-only mapping of the file with streaming stores instead of pread:
/// pread's copy into such a block costs about 1.3x of one into a block that stays in cache
/// (docs/performance.md). The environment variable CHUNKWISE_HDF5_MMAP, read once, sets it:
/// a byte count, or `off`.
inline constexpr std::size_t default_map_min_bytes = std::size_t{16} << 20;
/// Mapped at a time (so the mapping adds at most this much to the resident memory of a reader).
inline constexpr std::size_t map_slice_bytes = std::size_t{2} << 20;
/// Pieces smaller than this (or than the setting, if smaller) are read by pread even into a
/// large output (mapping costs more).
inline constexpr std::size_t map_min_piece = std::size_t{64} << 10;

/// The smallest output read through mappings, settable (tests lower it); SIZE_MAX: never.
/// `invalid` holds a CHUNKWISE_HDF5_MMAP that is neither a byte count nor `off` (every read
/// then fails naming it); `copies` counts mapped copies done, process-wide (for tests).
struct map_setting {
    std::atomic<std::size_t> min_bytes{default_map_min_bytes};
    std::string invalid;
    std::atomic<std::uint64_t> copies{0};

    static map_setting& get() {
        static map_setting m(std::getenv("CHUNKWISE_HDF5_MMAP"));
        return m;
    }

private:
    explicit map_setting(const char* v) {
        if (v == nullptr || *v == '\0') return;
        char* end = nullptr;
        errno = 0;
        const unsigned long long n = std::strtoull(v, &end, 10);
        if (std::string_view(v) == "off") {
            min_bytes = std::numeric_limits<std::size_t>::max();
        } else if (*v >= '0' && *v <= '9' && *end == '\0' && errno != ERANGE) {
            min_bytes = static_cast<std::size_t>(n);
        } else {
            invalid = v;
        }
    }
};

/// dst[0, n) = src[0, n), stored past the caches (the output is larger than they are, and the
/// stores then need not read the destination's lines first). Four pages are copied side by side
/// (as glibc's large memcpy does), which keeps more reads in flight.
inline void stream_copy(unsigned char* dst, const unsigned char* src, std::size_t n) noexcept {
#if defined(__SSE2__)
    // Whole 64-byte lines only: a streamed line written in parts costs a read at the memory.
    const std::size_t head = std::min(n, (64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64);
    std::memcpy(dst, src, head);
    const auto line = [](unsigned char* d, const unsigned char* s) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
    };
    constexpr std::size_t page = 4096;
    std::size_t i = head;
    for (; i + 4 * page <= n; i += 4 * page) {
        for (std::size_t j = 0; j < page; j += 64) {
            for (std::size_t p = 0; p < 4 * page; p += page) {
                _mm_prefetch(reinterpret_cast<const char*>(src + std::min(i + p + j + 256, n - 1)), _MM_HINT_T0);
                line(dst + i + p + j, src + i + p + j);
            }
        }
    }
    for (; i + 64 <= n; i += 64) line(dst + i, src + i);
    _mm_sfence();
    std::memcpy(dst + i, src + i, n - i);
#else
    std::memcpy(dst, src, n);
#endif
}

/// Copies `bytes` at `address` of fd from read-only mappings of those pages, map_slice_bytes
/// at a time; false where the range does not lie inside the file as it is now, or mapping
/// fails: pread then reads it, and reports what is wrong. The file's size is checked just before
/// mapping, so only a file truncated by another process during the copy can fault (SIGBUS), as
/// it can for any reader that maps files; CHUNKWISE_HDF5_MMAP=off avoids mappings altogether.
inline bool copy_mapped(int fd, std::uint64_t address, unsigned char* dst, std::size_t bytes) noexcept {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) return false;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (address > size || bytes > size - address) return false;
    static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    for (std::size_t done = 0; done < bytes;) {
        const std::uint64_t at = address + done;
        const std::uint64_t base = at / page * page;
        const std::size_t skip = static_cast<std::size_t>(at - base);
        const std::size_t count = std::min(bytes - done, map_slice_bytes - skip);
        void* map = ::mmap(nullptr, skip + count, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(base));
        if (map == MAP_FAILED) return false;
        stream_copy(dst + done, static_cast<const unsigned char*>(map) + skip, count);
        ::munmap(map, skip + count);
        done += count;
    }
    map_setting::get().copies.fetch_add(1, std::memory_order_relaxed);
    return true;
}

/// True when a read into an output of `output_bytes` copies through mappings (copy_mapped).
inline bool maps_into(const dataset_state& s, std::size_t output_bytes) {
    map_setting& m = map_setting::get();
    if (!m.invalid.empty()) {
        s.fail("CHUNKWISE_HDF5_MMAP='" + m.invalid +
               "': must be a byte count (the smallest block read through mappings of the file) or 'off'");
    }
    return output_bytes >= m.min_bytes.load(std::memory_order_relaxed);
}

/// All `bytes` at `address` of fd into dst: through mappings where `mapped` (the output is large)
/// and the piece is worth mapping, else (or where that declines) by pread_all.
template <class What>
void read_all(const dataset_state& s, int fd, std::uint64_t address, unsigned char* dst, std::size_t bytes,
              bool mapped, What&& what) {
    if (mapped && bytes >= std::min(map_min_piece, map_setting::get().min_bytes.load(std::memory_order_relaxed)) &&
        copy_mapped(fd, address, dst, bytes)) {
        return;
    }
    pread_all(s, fd, address, dst, bytes, std::forward<What>(what));
}

/// The box [lo, hi) of the dataset, read and converted by HDF5 (H5Dread under the lock) into
/// out (extent out_shape) at out_lo. Fill values for chunks never written, any conversion.
template <class T>
void hdf5_read_box(const dataset_state& s, const std::size_t* lo, const std::size_t* hi, T* out,
                   const std::size_t* out_shape, const std::size_t* out_lo) {
    const std::size_t n = s.dims.size();
    std::vector<hsize_t> start(n), count(n), mshape(n), mstart(n);
    std::size_t elements = 1;
    for (std::size_t d = 0; d < n; ++d) {
        start[d] = lo[d];
        count[d] = hi[d] - lo[d];
        mshape[d] = out_shape[d];
        mstart[d] = out_lo[d];
        elements *= hi[d] - lo[d];
    }
    if (elements == 0) return;
    auto failed = [&] { s.fail("reading " + box_text(lo, n) + " to " + box_text(hi, n) + " failed: " + last_error()); };
    library_lock lock;
    handle fspace(H5Dget_space(s.dset_h.get()), H5Sclose);
    if (!fspace.valid() ||
        H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0) {
        failed();
    }
    if (!s.type.via_base) {
        handle mspace(H5Screate_simple(static_cast<int>(n), mshape.data(), nullptr), H5Sclose);
        if (!mspace.valid() ||
            H5Sselect_hyperslab(mspace.get(), H5S_SELECT_SET, mstart.data(), nullptr, count.data(), nullptr) < 0 ||
            H5Dread(s.dset_h.get(), native_type<T>(), mspace.get(), fspace.get(), H5P_DEFAULT, out) < 0) {
            failed();
        }
        return;
    }
    // Enums and bitfields: HDF5 converts enums only to enums (mapping values that are not members
    // to all ones) and bitfields only to bitfields. Read the stored bytes through the dataset's
    // own type (no conversion), then convert their integers to T by HDF5's integer rules: the
    // stored integers, as h5py and the fast path give them.
    const std::size_t width = std::max(s.element_bytes, sizeof(T));
    std::vector<unsigned char> buffer;
    try {
        buffer.resize(elements * width);
    } catch (const std::bad_alloc&) {
        s.fail("cannot allocate " + std::to_string(elements * width) + " bytes to read " + s.type.text + " values");
    }
    handle mspace(H5Screate_simple(static_cast<int>(n), count.data(), nullptr), H5Sclose);
    if (!mspace.valid() ||
        H5Dread(s.dset_h.get(), s.file_type.get(), mspace.get(), fspace.get(), H5P_DEFAULT, buffer.data()) < 0 ||
        H5Tconvert(s.stored_type.get(), native_type<T>(), elements, buffer.data(), nullptr, H5P_DEFAULT) < 0) {
        failed();
    }
    std::vector<std::size_t> zero(n, 0), extent(count.begin(), count.end());
    copy_box<T>(buffer.data(), element_type_of<T>(), extent.data(), zero.data(), extent.data(), out, out_shape, out_lo,
                n);
}

/// The value chunks never written read as, converted to T: HDF5's fill value, or 0 where HDF5
/// writes nothing (fill time "never", no fill value). Call with the lock held.
template <class T>
T fill_value(const dataset_state& s) {
    if (!s.fill_defect.empty())
        s.fail("a chunk never written reads as the fill value, but " + s.fill_defect + " (corrupted?)");
    if (!s.writes_fill) return T{0};
    if (!s.type.via_base) {
        T v{};
        if (H5Pget_fill_value(s.dcpl_h.get(), native_type<T>(), &v) < 0)
            s.fail("cannot read the fill value: " + last_error());
        return v;
    }
    // The stored integer of an enum or bitfield (through the dataset's own type: no mapping).
    unsigned char buffer[64] = {};
    if (H5Tget_size(s.file_type.get()) > sizeof buffer || sizeof(T) > sizeof buffer ||
        H5Pget_fill_value(s.dcpl_h.get(), s.file_type.get(), buffer) < 0 ||
        H5Tconvert(s.stored_type.get(), native_type<T>(), 1, buffer, nullptr, H5P_DEFAULT) < 0) {
        s.fail("cannot read the fill value: " + last_error());
    }
    T v;
    std::memcpy(&v, buffer, sizeof(T));
    return v;
}

/// Writes `value` into the box [dst_lo, dst_lo + extent) of dst (extent dst_shape).
template <class T>
void fill_box(T* dst, const std::size_t* dst_shape, const std::size_t* dst_lo, const std::size_t* extent, std::size_t n,
              T value) {
    std::vector<std::size_t> at(n, 0);
    std::size_t stride = 1;
    for (std::size_t d = 0; d < n; ++d) {
        if (extent[d] == 0) return;
    }
    for (;;) {
        std::size_t o = 0;
        stride = 1;
        for (std::size_t d = n; d-- > 0;) {
            o += (dst_lo[d] + at[d]) * stride;
            stride *= dst_shape[d];
        }
        std::fill(dst + o, dst + o + extent[n - 1], value);
        std::size_t d = n - 1;
        for (;;) {
            if (d == 0) return;
            --d;
            if (++at[d] < extent[d]) break;
            at[d] = 0;
        }
    }
}

/// The box [lo, hi) of a chunk never written, filled in place (out at out_lo, extent out_shape).
/// HDF5 is asked for the first few of these values too: a damaged fill value message makes it
/// fill a pattern, not one value, which is then an h5::error rather than a guess.
template <class T>
void fill_absent(const dataset_state& s, const std::size_t* lo, const std::size_t* hi, T* out,
                 const std::size_t* out_shape, const std::size_t* out_lo) {
    const std::size_t n = s.dims.size();
    std::vector<std::size_t> extent(n);
    for (std::size_t d = 0; d < n; ++d) extent[d] = hi[d] - lo[d];
    T value{};
    {
        library_lock lock;
        value = fill_value<T>(s);
        if (s.writes_fill && !s.type.via_base) {
            std::vector<hsize_t> start(lo, lo + n), count(n, 1);
            count[n - 1] = std::min<std::size_t>(extent[n - 1], 16);
            std::vector<T> check(static_cast<std::size_t>(count[n - 1]));
            handle fspace(H5Dget_space(s.dset_h.get()), H5Sclose);
            handle mspace(H5Screate_simple(static_cast<int>(n), count.data(), nullptr), H5Sclose);
            bool same =
                fspace.valid() && mspace.valid() &&
                H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) >= 0 &&
                H5Dread(s.dset_h.get(), native_type<T>(), mspace.get(), fspace.get(), H5P_DEFAULT, check.data()) >= 0;
            for (const T& v : check) same = same && std::memcmp(&v, &value, sizeof(T)) == 0;
            if (!same) {
                s.fail("chunk at " + box_text(lo, n) +
                       " was never written and HDF5 does not fill it with one fill value "
                       "(a damaged fill value message?)" +
                       (H5Eget_num(H5E_DEFAULT) > 0 ? ": " + last_error() : std::string()));
            }
        }
    }
    fill_box(out, out_shape, out_lo, extent.data(), n, value);
}

/// Converts n stored values in place (buf holds n * max(stored size, sizeof(T)) bytes) to T by
/// HDF5's rules (H5Tconvert: the conversion H5Dread applies), under the lock.
template <class T>
void convert_through_hdf5(const dataset_state& s, unsigned char* buf, std::size_t n) {
    library_lock lock;
    if (H5Tconvert(s.stored_type.get(), native_type<T>(), n, buf, nullptr, H5P_DEFAULT) < 0) {
        s.fail("converting " + s.type.text + " values failed: " + last_error());
    }
}

/// The box [lo, hi) of an array of `esize`-byte elements (extent src_shape) gathered into dst,
/// contiguous, row-major.
inline void gather_box_bytes(const unsigned char* src, std::size_t esize, const std::size_t* src_shape,
                             const std::size_t* lo, const std::size_t* hi, unsigned char* dst, std::size_t n) {
    std::vector<std::size_t> stride(n), at(lo, lo + n);
    stride[n - 1] = esize;
    for (std::size_t d = n - 1; d > 0; --d) stride[d - 1] = stride[d] * src_shape[d];
    const std::size_t run = (hi[n - 1] - lo[n - 1]) * esize;
    for (std::size_t d = 0; d < n; ++d) {
        if (lo[d] >= hi[d]) return;
    }
    for (;;) {
        std::size_t o = 0;
        for (std::size_t d = 0; d < n; ++d) o += at[d] * stride[d];
        std::memcpy(dst, src + o, run);
        dst += run;
        std::size_t d = n - 1;
        for (;;) {
            if (d == 0) return;
            --d;
            if (++at[d] < hi[d]) break;
            at[d] = lo[d];
        }
    }
}

/// The box [lo, hi) of decoded stored values (extent src_shape) into out at out_lo, converted to
/// T: in the calling thread where the conversion is exact, else by HDF5's rules.
template <class T>
void place_box(const dataset_state& s, scratch& buf, const unsigned char* src, const std::size_t* src_shape,
               const std::size_t* lo, const std::size_t* hi, T* out, const std::size_t* out_shape,
               const std::size_t* out_lo) {
    const std::size_t n = s.dims.size();
    if (exact_conversion<T>(s.type)) {
        copy_box<T>(src, s.type, src_shape, lo, hi, out, out_shape, out_lo, n);
        return;
    }
    std::vector<std::size_t> extent(n), zero(n, 0);
    std::size_t count = 1;
    for (std::size_t d = 0; d < n; ++d) {
        extent[d] = hi[d] - lo[d];
        count *= extent[d];
    }
    if (count == 0) return;
    grow(buf.c, count * std::max(s.element_bytes, sizeof(T)), s);
    gather_box_bytes(src, s.element_bytes, src_shape, lo, hi, buf.c.data(), n);
    convert_through_hdf5<T>(s, buf.c.data(), count);
    copy_box<T>(buf.c.data(), element_type_of<T>(), extent.data(), zero.data(), extent.data(), out, out_shape, out_lo,
                n);
}

/// Rows [row_begin, row_end) of a contiguous dataset by pread.
template <class T>
void read_contiguous(const dataset_state& s, std::size_t row_begin, std::size_t row_end, T* out) {
    const std::size_t esize = s.element_bytes;
    const std::size_t row_bytes = s.row_elements * esize;
    const std::uint64_t start = s.contiguous_address + static_cast<std::uint64_t>(row_begin) * row_bytes;
    const auto what = [&] { return "rows [" + std::to_string(row_begin) + ", " + std::to_string(row_end) + ")"; };
    const std::size_t elements = (row_end - row_begin) * s.row_elements;
    if (same_representation<T>(s.type)) {
        read_all(s, s.contiguous_fd, start, reinterpret_cast<unsigned char*>(out), elements * esize,
                 maps_into(s, elements * esize), what);
        return;
    }
    // Converted in pieces, so the buffer stays small.
    scratch& buf = scratch::mine();
    const bool exact = exact_conversion<T>(s.type);
    const std::size_t width = std::max(esize, sizeof(T));
    const std::size_t piece = std::max<std::size_t>(1, (std::size_t{4} << 20) / width);
    for (std::size_t done = 0; done < elements; done += piece) {
        const std::size_t count = std::min(piece, elements - done);
        grow(buf.a, count * width, s);
        pread_all(s, s.contiguous_fd, start + done * esize, buf.a.data(), count * esize, what);
        if (exact) {
            convert_run<T>(s.type, buf.a.data(), out + done, count);
        } else {
            convert_through_hdf5<T>(s, buf.a.data(), count);
            std::memcpy(out + done, buf.a.data(), count * sizeof(T));
        }
    }
    buf.trim();
}

/// Chunks one element wide on the last axis are woven together when that axis holds at most
/// interleave_most of them and they take at most this many bytes together.
inline constexpr std::size_t weave_most_bytes = std::size_t{8} << 20;

/// Groups of chunks woven so far, process-wide (for tests).
inline std::atomic<std::uint64_t>& woven_groups() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}

/// Undoes the chunk's filters (in reverse, skipping those its mask says were skipped) on
/// buf.a[0, stored); returns the chunk_bytes decoded bytes (in buf.a or buf.b, or in `into`
/// when given: then the last filter writes straight there, which must have room for chunk_bytes).
inline const unsigned char* decode_chunk(const dataset_state& s, scratch& buf, std::size_t stored, std::uint32_t mask,
                                         const std::size_t* offset, unsigned char* into = nullptr) {
    const auto skipped = [&](std::size_t i) { return i < 32 && (mask & (1u << i)) != 0; };
    std::size_t last = s.filters.size();  // the filter undone last: the lowest one not skipped
    for (std::size_t i = 0; i < s.filters.size() && last == s.filters.size(); ++i) {
        if (!skipped(i)) last = i;
    }
    std::vector<unsigned char>* cur = &buf.a;
    std::vector<unsigned char>* other = &buf.b;
    const unsigned char* in = cur->data();
    std::size_t size = stored;
    try {
        for (std::size_t i = s.filters.size(); i-- > 0;) {
            if (skipped(i)) continue;  // skipped for this chunk when written
            const bool final = into != nullptr && i == last;
            unsigned char* dst = nullptr;
            if (s.filters[i].id == H5Z_FILTER_DEFLATE) {
                if (!final) grow(*other, s.chunk_bytes, s);
                dst = final ? into : other->data();
                inflate_exact(in, size, dst, s.chunk_bytes);
                size = s.chunk_bytes;
            } else {                                        // shuffle, by its own parameter
                if (final && size != s.chunk_bytes) break;  // reported below, nothing written
                if (!final) grow(*other, size, s);
                dst = final ? into : other->data();
                unshuffle(in, dst, size, s.filters[i].param);
            }
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

/// The box [lo, hi) of a chunked dataset into out (extent hi - lo). Only where every filter is
/// decodable and the dataset's file is open through the probe driver.
template <class T>
void read_chunked(const dataset_state& s, const std::size_t* lo, const std::size_t* hi, T* out) {
    const std::size_t n = s.dims.size();
    // H5Dread asks whether a fill value is defined before reading any chunk, and fails when it
    // cannot tell: so does chunkwise.
    if (!s.fill_defect.empty()) s.fail("cannot read chunks: " + s.fill_defect + " (corrupted?)");
    std::vector<std::size_t> out_shape(n), c_lo(n), c_hi(n), c(n), gstride(n), off(n), blo(n), bhi(n), dst_lo(n),
        rel_lo(n), rel_hi(n), sub_shape(n);
    for (std::size_t d = 0; d < n; ++d) {
        out_shape[d] = hi[d] - lo[d];
        if (out_shape[d] == 0) return;
        c_lo[d] = lo[d] / s.chunk[d];
        c_hi[d] = (hi[d] - 1) / s.chunk[d];
    }
    gstride[n - 1] = 1;
    for (std::size_t d = n - 1; d > 0; --d) gstride[d - 1] = gstride[d] * s.grid[d];

    // Every chunk the box touches, row-major, located under one lock.
    std::size_t touched = 1;
    for (std::size_t d = 0; d < n; ++d) touched *= c_hi[d] - c_lo[d] + 1;
    std::vector<chunk_location> locations(touched);
    {
        std::vector<hsize_t> hoff(n);
        c = c_lo;
        library_lock lock;
        for (std::size_t k = 0; k < touched; ++k) {
            std::uint64_t linear = 0;
            for (std::size_t d = 0; d < n; ++d) {
                hoff[d] = static_cast<hsize_t>(c[d]) * s.chunk[d];
                linear += static_cast<std::uint64_t>(c[d]) * gstride[d];
            }
            locations[k] = s.locate(linear, hoff.data());
            for (std::size_t d = n; d-- > 0;) {
                if (++c[d] <= c_hi[d]) break;
                c[d] = c_lo[d];
            }
        }
    }

    const std::size_t esize = s.element_bytes;
    const std::size_t inner = s.chunk_elements / s.chunk[0];  // elements per chunk row
    bool whole_rows = true;                                   // chunks and box span whole trailing axes
    for (std::size_t d = 1; d < n; ++d)
        whole_rows = whole_rows && s.chunk[d] == s.dims[d] && lo[d] == 0 && hi[d] == s.dims[d];
    const bool direct = whole_rows && same_representation<T>(s.type);
    std::size_t out_row = 1;
    for (std::size_t d = 1; d < n; ++d) out_row *= out_shape[d];
    // Any filtered chunk larger than this is corrupted (deflate never expands by more than 0.1%).
    const std::size_t max_stored = s.chunk_bytes + s.chunk_bytes / 64 + 4096;

    std::size_t out_bytes = sizeof(T);
    for (std::size_t d = 0; d < n; ++d) out_bytes *= out_shape[d];
    const bool mapped = direct && maps_into(s, out_bytes);  // unfiltered chunks through mappings

    const auto is_filtered = [&](const chunk_location& loc) {
        bool filtered = false;
        for (std::size_t i = 0; i < s.filters.size(); ++i)
            filtered = filtered || i >= 32 || (loc.mask & (1u << i)) == 0;
        return filtered;
    };
    // Chunks one element wide on a short last axis read whole (h5py's automatic chunks of a
    // (frames, atoms, 3) trajectory: one coordinate each): the `ways` chunks side by side are
    // decoded together and woven into the output, each output line written once.
    const std::size_t ways = s.dims[n - 1];
    const bool weave = n >= 2 && s.chunk[n - 1] == 1 && ways >= 2 && ways <= interleave_most && lo[n - 1] == 0 &&
                       hi[n - 1] == ways && same_representation<T>(s.type) &&
                       ways * s.chunk_bytes <= weave_most_bytes;
    // True when chunks k .. k + ways - 1 are all stored and readable as they are (anything else
    // goes one chunk at a time, which reports it).
    const auto weavable = [&](std::size_t k) {
        for (std::size_t j = 0; j < ways; ++j) {
            const chunk_location& loc = locations[k + j];
            if (loc.state != chunk_location::kind::stored) return false;
            if (is_filtered(loc) ? loc.size > max_stored : loc.size < s.chunk_bytes) return false;
        }
        return true;
    };

    scratch& buf = scratch::mine();
    c = c_lo;
    for (std::size_t k = 0; k < touched; ++k) {
        const chunk_location& loc = locations[k];
        for (std::size_t d = 0; d < n; ++d) {
            off[d] = c[d] * s.chunk[d];
            blo[d] = std::max(off[d], lo[d]);
            bhi[d] = std::min(off[d] + s.chunk[d], hi[d]);
            dst_lo[d] = blo[d] - lo[d];
            rel_lo[d] = blo[d] - off[d];
            rel_hi[d] = bhi[d] - off[d];
        }
        const bool filtered = is_filtered(loc);
        if (weave && c[n - 1] == 0 && weavable(k)) {
            // The chunk rows the box needs, of each chunk, side by side in buf.c.
            const std::size_t rows = rel_hi[0] - rel_lo[0];
            const std::size_t skip = rel_lo[0] * inner * esize;
            grow(buf.c, ways * s.chunk_bytes, s);
            const T* planes[interleave_most];
            for (std::size_t j = 0; j < ways; ++j) {
                const chunk_location& lj = locations[k + j];
                off[n - 1] = j;
                unsigned char* slot = buf.c.data() + j * s.chunk_bytes;
                const auto what = [&] { return "chunk at " + box_text(off.data(), n); };
                if (!is_filtered(lj)) {
                    pread_all(s, lj.fd, lj.address + skip, slot, rows * inner * esize, what);
                } else {
                    grow(buf.a, static_cast<std::size_t>(lj.size), s);
                    pread_all(s, lj.fd, lj.address, buf.a.data(), static_cast<std::size_t>(lj.size), what);
                    (void)decode_chunk(s, buf, static_cast<std::size_t>(lj.size), lj.mask, off.data(), slot);
                    slot += skip;
                }
                planes[j] = reinterpret_cast<const T*>(slot);
            }
            sub_shape = s.chunk;
            sub_shape[0] = rows;
            rel_hi[0] = rows;
            rel_lo[0] = 0;
            interleave_box<T>(planes, ways, sub_shape.data(), rel_lo.data(), rel_hi.data(), out, out_shape.data(),
                              dst_lo.data(), n);
            woven_groups().fetch_add(1, std::memory_order_relaxed);
            k += ways - 1;
            c[n - 1] = ways - 1;  // the last of them: the step below goes on from there
        } else if (loc.state == chunk_location::kind::absent) {
            fill_absent<T>(s, blo.data(), bhi.data(), out, out_shape.data(), dst_lo.data());
        } else if (!filtered && loc.size < s.chunk_bytes) {
            // HDF5 reads the chunk's size from this address: past the stored bytes it returns
            // whatever its buffer held (not reproducible), so refuse rather than guess.
            s.fail("chunk at " + box_text(off.data(), n) + " is stored in " + std::to_string(loc.size) +
                   " bytes, fewer than its " + std::to_string(s.chunk_bytes) +
                   " (written short with write_direct_chunk, or corrupted); its other values are undefined");
        } else if (!filtered) {  // stored at its size, or larger (HDF5 then reads the first chunk_bytes too)
            // Only the chunk rows the box needs: contiguous in the chunk.
            const std::size_t rows = rel_hi[0] - rel_lo[0];
            const std::uint64_t at = loc.address + static_cast<std::uint64_t>(rel_lo[0]) * inner * esize;
            const auto what = [&] { return "chunk at " + box_text(off.data(), n); };
            if (direct) {
                read_all(s, loc.fd, at, reinterpret_cast<unsigned char*>(out + dst_lo[0] * out_row),
                         rows * inner * esize, mapped, what);
            } else {
                grow(buf.a, rows * inner * esize, s);
                pread_all(s, loc.fd, at, buf.a.data(), rows * inner * esize, what);
                sub_shape = s.chunk;
                sub_shape[0] = rows;
                rel_hi[0] = rows;
                rel_lo[0] = 0;
                place_box<T>(s, buf, buf.a.data(), sub_shape.data(), rel_lo.data(), rel_hi.data(), out,
                             out_shape.data(), dst_lo.data());
            }
        } else {
            if (loc.size > max_stored) {
                s.fail("chunk at " + box_text(off.data(), n) + " is stored in " + std::to_string(loc.size) +
                       " bytes, more than any filter makes of " + std::to_string(s.chunk_bytes) + " (corrupted?)");
            }
            grow(buf.a, static_cast<std::size_t>(loc.size), s);
            pread_all(s, loc.fd, loc.address, buf.a.data(), static_cast<std::size_t>(loc.size),
                      [&] { return "chunk at " + box_text(off.data(), n); });
            // A whole chunk that lands as it is in the output is decoded straight into it.
            const bool whole_chunk = direct && rel_lo[0] == 0 && rel_hi[0] == s.chunk[0];
            unsigned char* into = whole_chunk ? reinterpret_cast<unsigned char*>(out + dst_lo[0] * out_row) : nullptr;
            const unsigned char* bytes =
                decode_chunk(s, buf, static_cast<std::size_t>(loc.size), loc.mask, off.data(), into);
            if (!whole_chunk) {
                place_box<T>(s, buf, bytes, s.chunk.data(), rel_lo.data(), rel_hi.data(), out, out_shape.data(),
                             dst_lo.data());
            }
        }
        for (std::size_t d = n; d-- > 0;) {
            if (++c[d] <= c_hi[d]) break;
            c[d] = c_lo[d];
        }
    }
    buf.trim();
}

/// True when chunkwise reads and decodes the stored bytes itself (pread, inflate, unshuffle):
/// contiguous data inside the file, or chunks with only deflate and shuffle, in a file opened
/// through the probe driver.
inline bool reads_bytes_itself(const dataset_state& s) {
    if (!s.type.numeric) return false;
    if (s.layout == storage::contiguous) return s.contiguous_fd >= 0;
    return s.layout == storage::chunked && s.decodable && s.probing;
}

/// True when reads into T are wholly in the calling thread: chunkwise reads the bytes and the
/// conversion to T is exact (no lock at all).
template <class T>
bool decodes_in_worker(const dataset_state& s) {
    return reads_bytes_itself(s) && exact_conversion<T>(s.type);
}

/// The box [lo, hi) of the dataset into out (extent hi - lo), converted to T, by whichever path
/// serves it. The type must be numeric (checked by the caller).
template <class T>
void read_box(const dataset_state& s, const std::size_t* lo, const std::size_t* hi, T* out) {
    const std::size_t n = s.dims.size();
    if (s.storage_outside) {
        s.fail("the dataset's data is said to lie at byte " + std::to_string(s.contiguous_address) +
               ", outside the file's allocated space (corrupted or truncated?)");
    }
    if (reads_bytes_itself(s)) {
        if (s.layout == storage::chunked) {
            read_chunked<T>(s, lo, hi, out);
            return;
        }
        bool whole_rows = true;
        for (std::size_t d = 1; d < n; ++d) whole_rows = whole_rows && lo[d] == 0 && hi[d] == s.dims[d];
        if (whole_rows) {
            read_contiguous<T>(s, lo[0], hi[0], out);
            return;
        }
    }
    std::vector<std::size_t> shape(n), zero(n, 0);
    for (std::size_t d = 0; d < n; ++d) shape[d] = hi[d] - lo[d];
    hdf5_read_box<T>(s, lo, hi, out, shape.data(), zero.data());
}

}  // namespace chunkwise::h5::detail
