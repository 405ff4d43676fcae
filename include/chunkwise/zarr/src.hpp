#pragma once
/// \file
/// The zarr component's library: compile this header in a source file of its own (as
/// src/chunkwise_zarr.cpp does) and link the object, or libchunkwise_zarr, into a program whose other
/// files define CHUNKWISE_ZARR_SEPARATE_COMPILATION (or CHUNKWISE_SEPARATE_COMPILATION). It defines
/// the component's functions that are not templates once, where header-only programs compile them
/// in every file (docs/installing.md, "Header-only or compiled").
#if !defined(CHUNKWISE_ZARR_SEPARATE_COMPILATION)
/// Compiled mode for the zarr component: its headers declare, this file defines.
#define CHUNKWISE_ZARR_SEPARATE_COMPILATION 1
#endif
#include <chunkwise/detail/core/compiled.hpp>
#if CHUNKWISE_ZARR_HEADER_ONLY
#error "chunkwise/zarr/src.hpp: a chunkwise header came first, header-only: include src.hpp first, in a file of its own"
#endif

#include <chunkwise/zarr.hpp>
#include <chunkwise/detail/zarr/attributes.hpp>
#include <chunkwise/detail/zarr/codecs.hpp>
#include <chunkwise/detail/zarr/existing.hpp>
#include <chunkwise/detail/zarr/groups.hpp>
#include <chunkwise/detail/zarr/json_fields.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>
#include <chunkwise/detail/zarr/metadata_v3.hpp>
#include <chunkwise/detail/zarr/open.hpp>
#include <chunkwise/detail/zarr/read.hpp>
#include <chunkwise/detail/zarr/read_box.hpp>
#include <chunkwise/detail/zarr/type_filters.hpp>
#include <chunkwise/detail/zarr/write.hpp>
#include <chunkwise/zarr/array.hpp>
#include <chunkwise/zarr/attributes.hpp>
#include <chunkwise/zarr/group.hpp>
#include <chunkwise/zarr/partition.hpp>
#include <chunkwise/zarr/write.hpp>
#include <chunkwise/zarr/write_options.hpp>

#include <chunkwise/detail/zarr/attributes.ipp>
#include <chunkwise/detail/zarr/codecs.ipp>
#include <chunkwise/detail/zarr/existing.ipp>
#include <chunkwise/detail/zarr/groups.ipp>
#include <chunkwise/detail/zarr/json_fields.ipp>
#include <chunkwise/detail/zarr/metadata.ipp>
#include <chunkwise/detail/zarr/metadata_v3.ipp>
#include <chunkwise/detail/zarr/open.ipp>
#include <chunkwise/detail/zarr/read.ipp>
#include <chunkwise/detail/zarr/read_box.ipp>
#include <chunkwise/detail/zarr/type_filters.ipp>
#include <chunkwise/detail/zarr/write.ipp>
#include <chunkwise/zarr/array.ipp>
#include <chunkwise/zarr/attributes.ipp>
#include <chunkwise/zarr/group.ipp>
#include <chunkwise/zarr/partition.ipp>
#include <chunkwise/zarr/write.ipp>
#include <chunkwise/zarr/write_options.ipp>

// Every element type's read and write paths, once (programs declare them extern).
namespace chunkwise::zarr::detail {
/// One element type's instances, defined here.
#define CHUNKWISE_ZARR_INSTANTIATE(T) CHUNKWISE_ZARR_READ_INSTANCES(, T) CHUNKWISE_ZARR_WRITE_INSTANCES(, T)
CHUNKWISE_ARITHMETIC_TYPES(CHUNKWISE_ZARR_INSTANTIATE)
CHUNKWISE_ZARR_READ_INSTANCES(, bool)
#undef CHUNKWISE_ZARR_INSTANTIATE
}  // namespace chunkwise::zarr::detail
