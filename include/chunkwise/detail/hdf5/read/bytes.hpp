#pragma once
// Internal: the bytes of a read, from the file into memory: the calling thread's decode buffers
// (scratch), whole positioned reads that name what failed, and large uncompressed reads copied
// from read-only mappings of the file with streaming stores (CHUNKWISE_HDF5_MMAP).
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/detail/core/env_count.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/// Decode buffers of the calling thread: kept between reads up to keep_bytes in all, released
/// after any read that needed more (64 MiB chunks would otherwise stay resident per thread).
struct scratch {
    static constexpr std::size_t keep_bytes = std::size_t{32} << 20;
    std::vector<unsigned char> a, b, c;
    std::vector<unsigned char> run;  // a run of stored chunks read at once (read/chunked.hpp)

    static scratch& mine() {
        thread_local scratch s;
        return s;
    }
    [[nodiscard]] std::size_t held() const noexcept {
        return a.capacity() + b.capacity() + c.capacity() + run.capacity();
    }
    void trim() {
        if (held() > keep_bytes) {
            std::vector<unsigned char>().swap(a);
            std::vector<unsigned char>().swap(b);
            std::vector<unsigned char>().swap(c);
            std::vector<unsigned char>().swap(run);
        }
    }
};

/// Bytes of the calling thread's decode buffers (for tests of the bound).
inline std::size_t scratch_bytes_held() { return scratch::mine().held(); }

CHUNKWISE_HDF5_DECL void grow(std::vector<unsigned char>& v, std::size_t bytes, const dataset_state& s);

/// pread_all calls made by the calling thread, ever (for tests of how reads are coalesced).
inline std::uint64_t& thread_preads() noexcept {
    thread_local std::uint64_t n = 0;
    return n;
}

/// All `bytes` at `address` of fd into dst, or h5::error naming what(): the description is
/// made only when the read fails (a read of a small chunk costs about a microsecond).
template <class What>
void pread_all(const dataset_state& s, int fd, std::uint64_t address, unsigned char* dst, std::size_t bytes,
               What&& what) {
    ++thread_preads();
    const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(fd, dst, bytes, address);
    chunkwise::detail::thread_read_bytes += static_cast<double>(bytes);  // worker_stats::read_bytes
    if (got != static_cast<std::ptrdiff_t>(bytes)) {
        s.fail("reading " + std::string(what()) + " failed: " +
               (got < 0 ? std::string(std::strerror(errno)) : std::string("the file ends early (truncated?)")));
    }
}

/// Reads of uncompressed bytes into an output of at least this many bytes (a block larger than
/// the caches) may copy from a read-only mapping of the file with streaming stores instead of
/// pread: on some CPUs pread's copy into such a block costs 1.3x of one into a block that stays
/// in cache, on others the mapped copy is the slower one (docs/performance.md). So by default the
/// first such read of a process measures both on its own bytes (a few milliseconds) and the
/// faster one is kept for the process; the environment variable CHUNKWISE_HDF5_MMAP, read once,
/// overrides it: a byte count (outputs of at least that many bytes are always copied from
/// mappings), or `off` (never).
inline constexpr std::size_t default_map_min_bytes = std::size_t{16} << 20;
/// Mapped at a time (so the mapping adds at most this much to the resident memory of a reader).
inline constexpr std::size_t map_slice_bytes = std::size_t{2} << 20;
/// Pieces smaller than this (or than the setting, if smaller) are read by pread even into a
/// large output (mapping costs more).
inline constexpr std::size_t map_min_piece = std::size_t{64} << 10;

/// How large outputs are copied: not measured yet, being measured (by one thread; the others
/// use pread meanwhile), pread, or mapped copies.
enum class copy_choice : int { unmeasured, measuring, pread, mapped };

/// The smallest output read through mappings, settable (tests lower it); SIZE_MAX: never.
/// `choice` is what large outputs use (forced to `mapped` by a byte count in CHUNKWISE_HDF5_MMAP,
/// to `pread` by `off`); `invalid` holds a CHUNKWISE_HDF5_MMAP that is neither (every read then
/// fails naming it); `copies` counts mapped copies done, process-wide (for tests); the two
/// `measured_*` hold the calibration's best times in nanoseconds (0: not measured).
struct map_setting {
    std::atomic<std::size_t> min_bytes{default_map_min_bytes};
    std::atomic<copy_choice> choice{copy_choice::unmeasured};
    std::string invalid;
    std::atomic<std::uint64_t> copies{0};
    std::atomic<std::uint64_t> measured_pread_ns{0}, measured_mapped_ns{0};

    static map_setting& get() {
        static map_setting m(std::getenv("CHUNKWISE_HDF5_MMAP"));
        return m;
    }

private:
    explicit map_setting(const char* v) {
        if (v == nullptr || *v == '\0') return;
        if (std::string_view(v) == "off") {
            min_bytes = std::numeric_limits<std::size_t>::max();
            choice = copy_choice::pread;
        } else if (const auto n = chunkwise::detail::env_count(v, 0, std::numeric_limits<std::size_t>::max())) {
            min_bytes = static_cast<std::size_t>(*n);
            choice = copy_choice::mapped;
        } else {
            invalid = v;
        }
    }
};

/// dst[0, n) = src[0, n), stored past the caches (the output is larger than they are, and the
/// stores then need not read the destination's lines first). Four pages are copied side by side
/// (as glibc's large memcpy does), which keeps more reads in flight.
CHUNKWISE_HDF5_DECL void stream_copy(unsigned char* dst, const unsigned char* src, std::size_t n) noexcept;

/// Copies `bytes` at `address` of fd from read-only mappings of those pages, map_slice_bytes
/// at a time; false where the range does not lie inside the file as it is now, or mapping
/// fails: pread then reads it, and reports what is wrong. The file's size is checked just before
/// mapping, so only a file truncated by another process during the copy can fault (SIGBUS), as
/// it can for any reader that maps files; CHUNKWISE_HDF5_MMAP=off avoids mappings altogether.
CHUNKWISE_HDF5_DECL bool copy_mapped(int fd, std::uint64_t address, unsigned char* dst, std::size_t bytes) noexcept;

/// True when a read into an output of `output_bytes` may copy through mappings (copy_mapped):
/// large enough, and not measured (or set) to be better off with pread.
CHUNKWISE_HDF5_DECL bool maps_into(const dataset_state& s, std::size_t output_bytes);

/// Measures, on `bytes` at `address` of fd copied into dst, pread against the mapped copy (each
/// warmed once, then alternately, the best of each), records both in map_setting and returns
/// true where the mapped copy is at least 10% faster. The copies write the same bytes the read
/// writes anyway. A few milliseconds, once per process.
CHUNKWISE_HDF5_DECL bool mapped_measures_faster(int fd, std::uint64_t address, unsigned char* dst,
                                                std::size_t bytes) noexcept;

/// Whether this large read copies from mappings: as forced by CHUNKWISE_HDF5_MMAP (or a test),
/// else as the first such read of the process measured (made by that read, on its own bytes).
CHUNKWISE_HDF5_DECL bool copy_through_mapping(int fd, std::uint64_t address, unsigned char* dst,
                                              std::size_t bytes) noexcept;

/// All `bytes` at `address` of fd into dst: through mappings where `mapped` (the output is large),
/// the piece is worth mapping and mapped copies are the faster ones here; else (or where mapping
/// declines) by pread_all.
template <class What>
void read_all(const dataset_state& s, int fd, std::uint64_t address, unsigned char* dst, std::size_t bytes, bool mapped,
              What&& what) {
    if (mapped && bytes >= std::min(map_min_piece, map_setting::get().min_bytes.load(std::memory_order_relaxed)) &&
        copy_through_mapping(fd, address, dst, bytes) && copy_mapped(fd, address, dst, bytes)) {
        chunkwise::detail::thread_read_bytes += static_cast<double>(bytes);  // worker_stats::read_bytes
        return;
    }
    pread_all(s, fd, address, dst, bytes, std::forward<What>(what));
}

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/bytes.ipp>
#endif
