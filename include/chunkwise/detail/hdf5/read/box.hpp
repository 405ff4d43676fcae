#pragma once
// Internal: how a read is served. chunkwise reads and decodes the stored bytes itself wherever
// it can, and leaves to HDF5 only what HDF5 must do:
//
// - contiguous data: pread of the rows from the file the dataset lives in;
// - chunks with no filters or only filters chunkwise decodes (its codec table, filters/table.hpp:
//   deflate, shuffle, Fletcher-32, LZ4, Zstandard, Blosc, bitshuffle, LZF, bzip2; plugins shown
//   safe): their locations read from the file's own chunk index by the reading thread
//   (format/btree1.hpp), or else looked up under the lock (one H5Dread_chunk probe per chunk,
//   then cached), their bytes read with pread and decoded (every decoded size checked against
//   each codec's bounds) outside it; unfiltered chunks of T's own representation that hold whole
//   rows go straight into the output;
// - values are converted to T in the calling thread where the conversion is exact (same type or
//   widening), else by HDF5's rules (H5Tconvert, what H5Dread applies) under the lock;
// - everything else (other filters, compact/external/virtual storage): H5Dread under the lock.
// Chunks never written read as the fill value (0 where HDF5 would leave the buffer untouched).
// Whatever HDF5 would read differently from call to call (bytes past a chunk stored short, data
// outside the file's allocated space, a damaged fill value) is an h5::error. So every read gives
// what H5Dread gives, or an h5::error.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/read/bytes.hpp>
#include <chunkwise/detail/hdf5/read/run_plan.hpp>
#include <chunkwise/detail/hdf5/read/copy.hpp>
#include <chunkwise/detail/hdf5/read/fallback.hpp>
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

/// True when chunkwise reads and decodes the stored bytes itself (pread, its codecs): contiguous
/// data inside the file, or chunks with only filters it decodes whose locations it learns (from the file's chunk index,
/// through the probe driver, or from HDF5's listing of every chunk). Else H5Dread.
CHUNKWISE_HDF5_DECL bool reads_bytes_itself(const dataset_state& s);

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
    if (!reads_bytes_itself(s) && !s.missing_filter.empty()) s.fail(s.missing_filter);
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

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/box.ipp>
#endif
