#pragma once
/// \file
/// The hdf5 component's library: compile this header in a source file of its own (as
/// src/chunkwise_hdf5.cpp does) and link the object, or libchunkwise_hdf5, into a program whose other
/// files define CHUNKWISE_HDF5_SEPARATE_COMPILATION (or CHUNKWISE_SEPARATE_COMPILATION). It defines
/// the component's functions that are not templates once, where header-only programs compile them
/// in every file (docs/installing.md, "Header-only or compiled").
#if !defined(CHUNKWISE_HDF5_SEPARATE_COMPILATION)
/// Compiled mode for the hdf5 component: its headers declare, this file defines.
#define CHUNKWISE_HDF5_SEPARATE_COMPILATION 1
#endif
#include <chunkwise/detail/core/compiled.hpp>
#if CHUNKWISE_HDF5_HEADER_ONLY
#error "chunkwise/hdf5/src.hpp: a chunkwise header came first, header-only: include src.hpp first, in a file of its own"
#endif

#include <chunkwise/hdf5.hpp>
#include <chunkwise/detail/hdf5/read/instances.hpp>
#include <chunkwise/detail/hdf5/attributes.hpp>
#include <chunkwise/detail/hdf5/dimensions.hpp>
#include <chunkwise/detail/hdf5/format/btree1.hpp>
#include <chunkwise/detail/hdf5/format/checksum.hpp>
#include <chunkwise/detail/hdf5/format/chunk_index.hpp>
#include <chunkwise/detail/hdf5/format/index_walk.hpp>
#include <chunkwise/detail/hdf5/format/object_header.hpp>
#include <chunkwise/detail/hdf5/header.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/names.hpp>
#include <chunkwise/detail/hdf5/open.hpp>
#include <chunkwise/detail/hdf5/read/box.hpp>
#include <chunkwise/detail/hdf5/read/bytes.hpp>
#include <chunkwise/detail/hdf5/read/chunked.hpp>
#include <chunkwise/detail/hdf5/read/copy.hpp>
#include <chunkwise/detail/hdf5/read/decode.hpp>
#include <chunkwise/detail/hdf5/read/fallback.hpp>
#include <chunkwise/detail/hdf5/read/inventory.hpp>
#include <chunkwise/detail/hdf5/read/locate.hpp>
#include <chunkwise/detail/hdf5/read/probe_driver.hpp>
#include <chunkwise/detail/hdf5/read/run_plan.hpp>
#include <chunkwise/detail/hdf5/read/select.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/detail/hdf5/types.hpp>
#include <chunkwise/detail/hdf5/write/create.hpp>
#include <chunkwise/detail/hdf5/write/spill.hpp>
#include <chunkwise/hdf5/attributes.hpp>
#include <chunkwise/hdf5/chunk_writer.hpp>
#include <chunkwise/hdf5/chunks.hpp>
#include <chunkwise/hdf5/dataset.hpp>
#include <chunkwise/hdf5/filters.hpp>
#include <chunkwise/hdf5/layout.hpp>
#include <chunkwise/hdf5/partition.hpp>
#include <chunkwise/hdf5/series.hpp>
#include <chunkwise/hdf5/write.hpp>

#include <chunkwise/detail/hdf5/attributes.ipp>
#include <chunkwise/detail/hdf5/dimensions.ipp>
#include <chunkwise/detail/hdf5/format/btree1.ipp>
#include <chunkwise/detail/hdf5/format/checksum.ipp>
#include <chunkwise/detail/hdf5/format/chunk_index.ipp>
#include <chunkwise/detail/hdf5/format/index_walk.ipp>
#include <chunkwise/detail/hdf5/format/object_header.ipp>
#include <chunkwise/detail/hdf5/header.ipp>
#include <chunkwise/detail/hdf5/library.ipp>
#include <chunkwise/detail/hdf5/names.ipp>
#include <chunkwise/detail/hdf5/open.ipp>
#include <chunkwise/detail/hdf5/read/box.ipp>
#include <chunkwise/detail/hdf5/read/bytes.ipp>
#include <chunkwise/detail/hdf5/read/chunked.ipp>
#include <chunkwise/detail/hdf5/read/copy.ipp>
#include <chunkwise/detail/hdf5/read/decode.ipp>
#include <chunkwise/detail/hdf5/read/fallback.ipp>
#include <chunkwise/detail/hdf5/read/inventory.ipp>
#include <chunkwise/detail/hdf5/read/locate.ipp>
#include <chunkwise/detail/hdf5/read/probe_driver.ipp>
#include <chunkwise/detail/hdf5/read/run_plan.ipp>
#include <chunkwise/detail/hdf5/read/select.ipp>
#include <chunkwise/detail/hdf5/state.ipp>
#include <chunkwise/detail/hdf5/types.ipp>
#include <chunkwise/detail/hdf5/write/create.ipp>
#include <chunkwise/detail/hdf5/write/spill.ipp>
#include <chunkwise/hdf5/attributes.ipp>
#include <chunkwise/hdf5/chunk_writer.ipp>
#include <chunkwise/hdf5/chunks.ipp>
#include <chunkwise/hdf5/dataset.ipp>
#include <chunkwise/hdf5/filters.ipp>
#include <chunkwise/hdf5/layout.ipp>
#include <chunkwise/hdf5/partition.ipp>
#include <chunkwise/hdf5/series.ipp>
#include <chunkwise/hdf5/write.ipp>

// Every arithmetic type's read and write paths, once (programs declare them extern).
namespace chunkwise::h5::detail {
/// One element type's instances, defined here.
#define CHUNKWISE_HDF5_INSTANTIATE(T) CHUNKWISE_HDF5_READ_INSTANCES(, T) CHUNKWISE_HDF5_WRITE_INSTANCES(, T)
CHUNKWISE_ARITHMETIC_TYPES(CHUNKWISE_HDF5_INSTANTIATE)
#undef CHUNKWISE_HDF5_INSTANTIATE
}  // namespace chunkwise::h5::detail
