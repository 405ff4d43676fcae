#pragma once
/// \file
/// The Zarr layer (component `zarr`, target chunkwise::zarr): `zarr::array` reads Zarr v2 and v3
/// arrays (sharded or not) from directory stores, `zarr::partition` splits them, `zarr::write` and
/// `zarr::write_blocks` write them from threads and ranks at once (docs/zarr.md).

#include <chunkwise/zarr/array.hpp>
#include <chunkwise/zarr/attributes.hpp>
#include <chunkwise/zarr/error.hpp>
#include <chunkwise/zarr/group.hpp>
#include <chunkwise/zarr/partition.hpp>
#include <chunkwise/zarr/stream_writer.hpp>
#include <chunkwise/zarr/write.hpp>
#include <chunkwise/zarr/write_options.hpp>
#include <chunkwise/zarr/write_blocks.hpp>
