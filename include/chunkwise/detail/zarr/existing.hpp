#pragma once
// Internal: writing into an existing Zarr array (write_mode::append and update): its metadata loaded and checked
// against the values and the options, the write options that reproduce its encoding, its new extent written last,
// and the locks that keep writers of one array, in any process, from losing each other's rows.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/zarr/groups.hpp>
#include <chunkwise/detail/zarr/json_fields.hpp>
#include <chunkwise/detail/zarr/metadata_v3.hpp>
#include <chunkwise/detail/zarr/open.hpp>
#include <chunkwise/detail/zarr/read_box.hpp>
#include <chunkwise/detail/zarr/write.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr/error.hpp>
#include <chunkwise/zarr/write_options.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace chunkwise::zarr::detail {

/// An existing array that an append or update writes into.
struct existing_array {
    std::string metadata_name;           // ".zarray" or "zarr.json"
    json metadata;                       // that file, as loaded
    json attrs = json::object();         // format 2: .zattrs (for the consolidated metadata)
    write_options options;               // the options that reproduce its encoding
    std::vector<std::size_t> shape;      // its shape before the write
    std::vector<std::size_t> new_shape;  // after it (an append's rows added)
    std::size_t first_row = 0;           // where the values' first row goes
};

/// Loads the array at `store` and checks it against values of `shape` (of numpy kind `kind`, `size` bytes) and the
/// options `o` (mode append or update, first_row, and any chunk, shard, codec and dimension names given, which must
/// be the array's).
/// \throws zarr::error "append: ..." or "update: ..." naming what differs, rows past the end, no array there, or a
///         CHUNKWISE_ZARR_REMOVERS that is no count (removal_threads)
CHUNKWISE_ZARR_DECL existing_array open_existing(const std::string& store, const std::vector<std::size_t>& shape,
                                                 char kind, std::size_t size, const write_options& o);

/// Checks that `generated`, the metadata chunkwise writes for the options of `e`, encodes chunks as the array's does
/// (chunks, type, codecs, key encoding).
/// \throws zarr::error naming the field that differs: chunkwise then does not write into this array
CHUNKWISE_ZARR_DECL void check_encoding(const std::string& store, const existing_array& e, const std::string& generated,
                                        const write_options& o);

/// The array at `store` opened for reading as if it held `rows` rows: rows past its extent (an append's, written
/// before its new extent is) read from the chunk files that hold them, the fill value where there are none.
/// \throws zarr::error as zarr::array's constructor
CHUNKWISE_ZARR_DECL state extended_state(const std::string& store, std::size_t rows);

/// Rows [r0, r1) of the array `s` reads, every other axis whole, into `out` (resized).
template <class T>
void read_rows(const state& s, std::size_t r0, std::size_t r1, std::vector<T>& out) {
    request q;
    q.lo.assign(s.m.shape.size(), 0);
    q.hi = s.m.shape;
    q.lo[0] = r0;
    q.hi[0] = r1;
    q.out_shape = q.hi;
    q.out_shape[0] = r1 - r0;
    std::size_t n = 1;
    for (std::size_t e : q.out_shape) n *= e;
    out.resize(n);
    if (n > 0) read_request<T>(s, q, out.data());
}

/// Ends an append: the metadata with the new shape put in place (its rows now visible), then the consolidated
/// metadata of the groups above.
CHUNKWISE_ZARR_DECL void write_extent(const std::string& store, const existing_array& e);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/existing.ipp>
#endif
