#pragma once
/// \file
/// `h5::known_filters()`: every HDF5 filter chunkwise knows and what this build does with it
/// (decodes it in the worker, with which library; writes it, under which option; or leaves it to
/// HDF5), from chunkwise's one filter table. chunkwise-doctor prints it; docs/hdf5.md, "Filters".

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>

#include <string>
#include <vector>

namespace chunkwise::h5 {

/// One HDF5 filter as this build of chunkwise knows it.
struct filter_info {
    int id = 0;                   ///< its HDF5 filter id (1 deflate, 32004 LZ4, ...)
    std::string name;             ///< its usual name ("lz4")
    std::string provider;         ///< where other readers get its HDF5 plugin (a Debian package, ...)
    bool decoded_here = false;    ///< decoded by chunkwise in the reading thread, outside HDF5's lock
    std::string library;          ///< with what: "liblz4 1.9.4", "" for chunkwise's own code
    bool needs_library = false;   ///< chunkwise decodes it given a library this build lacks
    std::string missing_library;  ///< that library's CMake name ("lz4"), where it is missing
    std::string option;           ///< its write_options::codec name, "" where not written that way
    bool writable = false;        ///< this build writes it (h5::write, write_blocks, chunk_writer)
};

/// Every filter chunkwise knows, in id order, and what this build does with each.
CHUNKWISE_HDF5_DECL std::vector<filter_info> known_filters();

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/filters.ipp>
#endif
