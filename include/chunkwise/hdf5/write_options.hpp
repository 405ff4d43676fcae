#pragma once
/// \file
/// `chunkwise::h5::write_options`: how h5::write, h5::write_blocks and h5::chunk_writer store a
/// dataset (chunks, shuffle, deflate, a codec, what to do where it exists), and
/// `h5::codec_problem`, which says why a build cannot write the options asked for. The codecs are
/// those of chunkwise's codec floor, shared with Zarr (docs/writing.md).

#include <chunkwise/detail/codecs/pipeline.hpp>
#include <chunkwise/store.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::h5 {

/// How `write`, `write_blocks` and `chunk_writer` store a dataset. The fields, their order and
/// their defaults are those of zarr::write_options (whose format and shard follow `level`).
struct write_options {
    std::vector<std::size_t> chunk{};  ///< chunk shape; empty: contiguous (or about 1 MiB of rows when compressing)
    int deflate = 0;                   ///< 0: none; 1-9: deflate at this level (chunked storage)
    bool shuffle = false;              ///< byte shuffle before compressing (helps floats compress)
    /// Instead of deflate, a codec chunkwise encodes itself, chunk by chunk: "lz4" (HDF5 filter
    /// 32004), "zstd" (32015), "bzip2" or "bz2" (307), "blosc" (32001, its lz4 codec; "blosc:zstd",
    /// "blosc:lz4hc", "blosc:zlib", "blosc:blosclz" pick another; `shuffle` is then Blosc's own),
    /// or "deflate" ("gzip", "zlib": HDF5's one deflate filter). Each but deflate needs chunkwise
    /// built with its library; readers need the filter's HDF5 plugin (docs/writing.md). "" (the
    /// default): none.
    std::string codec{};  // (initialized here: aggregate initialisation of the first three stays warning-free)
    int level = 0;        ///< the codec's level; 0: the codec's own default (deflate 6, Zstandard 3, bzip2 9, Blosc 5)
    /// Where the dataset exists already: `create` (the default) refuses it, `replace` unlinks it
    /// first; `append` adds the rows at the end of the dataset there, `update` writes them from
    /// `first_row` (h5::write; docs/writing.md, "Write modes").
    write_mode mode = write_mode::create;
    /// write_mode::update: the dataset's row where the values' first row goes.
    std::size_t first_row = 0;
    /// Axis 0 unlimited (HDF5's H5S_UNLIMITED), so that write_mode::append can add rows; the
    /// dataset is then chunked (about 1 MiB of rows where `chunk` is empty).
    bool growable = false;
    /// Attributes written on the new dataset (units, descriptions), as h5::set_attributes writes them.
    chunkwise::attributes attributes{};
    /// One name per axis ("time", "atom", ...), as netCDF-4 names dimensions: dimension scales in the
    /// dataset's group, so that netCDF readers and xarray see them (docs/writing.md); empty (the default): none.
    std::vector<std::string> dimensions{};
};

/// Why this build cannot write `opt`'s codecs ("" if it can): a deflate level out of range, both
/// deflate and a codec, a codec chunkwise does not write (naming those it does), a level or
/// inner codec the codec refuses, or a codec built without its library (naming the Debian
/// package that provides it). The same words as zarr::options_problem.
inline std::string codec_problem(const write_options& opt) {
    namespace cs = chunkwise::detail::codecs;
    return cs::resolve_write_codec(opt.deflate, opt.codec, opt.level, cs::store_kind::hdf5).problem;
}

namespace detail {
using h5::codec_problem;  // deprecated: h5::codec_problem (<chunkwise/hdf5/write_options.hpp>)
}  // namespace detail

}  // namespace chunkwise::h5
