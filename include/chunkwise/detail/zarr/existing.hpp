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
/// \throws zarr::error "append: ..." or "update: ..." naming what differs, rows past the end, or no array there
CHUNKWISE_ZARR_DECL existing_array open_existing(const std::string& store, const std::vector<std::size_t>& shape,
                                                 char kind, std::size_t size, const write_options& o);

/// Checks that `generated`, the metadata chunkwise writes for the options of `e`, encodes chunks as the array's does
/// (chunks, type, codecs, key encoding).
/// \throws zarr::error naming the field that differs: chunkwise then does not write into this array
CHUNKWISE_ZARR_DECL void check_encoding(const std::string& store, const existing_array& e, const std::string& generated,
                                        const write_options& o);

/// Ends an append: the metadata with the new shape put in place (its rows now visible), then the consolidated
/// metadata of the groups above.
CHUNKWISE_ZARR_DECL void write_extent(const std::string& store, const existing_array& e);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/existing.ipp>
#endif
