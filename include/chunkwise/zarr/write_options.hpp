#pragma once
/// \file
/// `chunkwise::zarr::write_options`: how zarr::write, zarr::write_blocks and the stream writer store
/// an array (chunks, a codec, format and shards, what to do where it exists, attributes and
/// dimension names); the fields of h5::write_options, with `format` and `shard` added.

#include <chunkwise/detail/codecs/pipeline.hpp>
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/store.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::zarr {

/// How `write` and `write_blocks` store an array. The fields, their order and their defaults are
/// those of h5::write_options, with `format` and `shard` after `level`.
struct write_options {
    /// Chunk shape (one extent per axis); empty: about 1 MiB of rows, every other axis whole.
    std::vector<std::size_t> chunk{};
    /// 0: none; 1-9: deflate at this level: numcodecs' "zlib" in format 2, "gzip" in format 3
    /// (v3 has no zlib codec).
    int deflate = 0;
    bool shuffle = false;  ///< byte shuffle: Blosc's own, else (format 2) numcodecs' shuffle filter
    /// Instead of deflate, a codec: "gzip", "zstd", "blosc" (its lz4; "blosc:zstd", "blosc:lz4hc",
    /// "blosc:zlib", "blosc:blosclz" pick another), and in format 2 also "zlib" ("deflate"), "lz4",
    /// "bz2" ("bzip2"); numcodecs' ids and h5::write_options' names alike. "" (the default): none.
    std::string codec{};
    int level = 0;   ///< the codec's level; 0: the codec's own default (gzip, zlib 6; Zstandard 3; bzip2 9; Blosc 5)
    int format = 2;  ///< Zarr format: 2 or 3
    /// Format 3 only: the shard shape (a multiple of `chunk` on every axis); empty: no sharding.
    std::vector<std::size_t> shard{};
    /// Where a Zarr array or group is stored at the path already: `create` (the default) refuses
    /// it, `replace` removes it first; `append` adds the rows at the end of the array there,
    /// `update` writes them from `first_row` (docs/writing.md, "Write modes"). A directory holding
    /// anything else is never written into.
    write_mode mode = write_mode::create;
    /// write_mode::update: the array's row where the values' first row goes.
    std::size_t first_row = 0;
    /// Attributes written with the new array (.zattrs in format 2, zarr.json's "attributes" in 3),
    /// as zarr::set_attributes writes them.
    chunkwise::attributes attributes{};
    /// One name per axis ("time", "atom", ...), as xarray names dimensions: the _ARRAY_DIMENSIONS
    /// attribute in format 2, zarr.json's "dimension_names" in 3; empty (the default): none.
    std::vector<std::string> dimensions{};
};

namespace detail {

/// The codec `o` asks for, resolved for its format, or why it cannot be written.
CHUNKWISE_ZARR_DECL chunkwise::detail::codecs::write_codec write_codec_of(const write_options& o);

}  // namespace detail

/// Why these options cannot be written by this build ("" if they can): a format other than 2 or
/// 3, the codec problems h5::codec_problem names (in the same words: a deflate level out of range,
/// deflate and a codec both, a codec the format has not, a level out of range, a codec built
/// without its library, naming the package), shuffle where the format has no filter for it, or a
/// shard shape in format 2.
CHUNKWISE_ZARR_DECL std::string options_problem(const write_options& o);

}  // namespace chunkwise::zarr

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/zarr/write_options.ipp>
#endif
