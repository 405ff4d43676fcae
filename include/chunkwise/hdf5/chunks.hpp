#pragma once
/// \file
/// What a chunked dataset holds and how chunkwise reads it, for tools and benchmarks: every stored
/// chunk (`h5::stored_chunks`), where the reads learn chunk locations (`h5::chunk_locations`), one
/// stored chunk decoded by the dataset's own pipeline in the calling thread (`h5::decode_chunk`),
/// and how large blocks are copied (`h5::large_read_copies`).

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/read/bytes.hpp>
#include <chunkwise/detail/hdf5/read/run_plan.hpp>
#include <chunkwise/detail/hdf5/read/inventory.hpp>
#include <chunkwise/hdf5/dataset.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace chunkwise::h5 {

/// One stored chunk of a dataset.
struct stored_chunk {
    std::vector<std::size_t> offset;  ///< its first element, per axis
    std::uint64_t address = 0;        ///< where its bytes start in the file
    std::uint64_t size = 0;           ///< how many bytes are stored
    std::uint32_t filter_mask = 0;    ///< the filters skipped for it (bit i: filter i of ds.filters())
};

/// Every stored chunk of `ds`, row-major in its chunk grid (chunks never written are absent; a
/// dataset that is not chunked has none). From the file's own chunk index, walked without the
/// HDF5 lock where chunkwise walks it, else from HDF5 under the lock: in time linear in the
/// number of chunks wherever the index is walked or HDF5 lists them all at once.
/// \throws h5::error where HDF5 cannot say where a chunk is
CHUNKWISE_HDF5_DECL std::vector<stored_chunk> stored_chunks(const dataset& ds);

/// Where the reads of a dataset learn where its chunks are.
enum class chunk_source {
    not_chunked,   ///< contiguous (pread, no lock) or another layout (H5Dread)
    file_index,    ///< the file's own chunk index, walked by each reading thread without a lock
    probe_driver,  ///< one lookup per chunk through chunkwise's file driver, under the lock, then cached
    listing,       ///< HDF5's listing of every chunk, once, under the lock
    hdf5,          ///< none: H5Dread reads the chunks, under the lock
};

/// Where the reads of `ds` learn its chunk locations.
CHUNKWISE_HDF5_DECL chunk_source chunk_locations(const dataset& ds);

/// A sentence for `c` ("the file's chunk index, walked by each reader without a lock").
CHUNKWISE_HDF5_DECL std::string describe(chunk_source c);

/// The type of `ds`'s chunk index as the HDF5 file format names it: "v1 B-tree", "single chunk",
/// "implicit", "fixed array", "extensible array" or "v2 B-tree"; "" where `ds` is not chunked or
/// chunkwise does not read its index (its reads then ask HDF5 where chunks are).
inline std::string chunk_index_type(const dataset& ds) {
    const detail::index_kind k = detail::dataset_access::state(ds).index_type;
    return k == detail::index_kind::none ? std::string() : std::string(detail::index_name(k));
}

/// Decodes one stored chunk of `ds` (its bytes as stored, and its filter mask) by the dataset's
/// own pipeline, in the calling thread, as reads do, into `out` (at least the chunk's decoded
/// size). Returns the decoded size.
/// \throws h5::error where the chunk is damaged, or where chunkwise does not decode these filters
CHUNKWISE_HDF5_DECL std::size_t decode_chunk(const dataset& ds, std::span<const unsigned char> stored,
                                             std::uint32_t filter_mask, std::span<unsigned char> out);

/// How reads into large outputs (16 MiB or more by default) copy uncompressed bytes: pread, or
/// copies from mappings of the file; the first such read measures both on its own bytes and the
/// process keeps the faster (CHUNKWISE_HDF5_MMAP overrides: docs/hdf5.md).
struct copy_method {
    std::size_t min_bytes = 0;  ///< outputs of at least this many bytes are "large"
    std::string method;         ///< "pread", "mapped copies", or "not decided yet"
    double pread_ms = 0;        ///< the measurement's best pread, ms (0: not measured)
    double mapped_ms = 0;       ///< the measurement's best mapped copy, ms (0: not measured)
};

/// How this process copies large outputs (see copy_method).
CHUNKWISE_HDF5_DECL copy_method large_read_copies();

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/chunks.ipp>
#endif
