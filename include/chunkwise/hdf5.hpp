#pragma once
/// \file
/// chunkwise's HDF5 layer (CMake component `hdf5`, target chunkwise::hdf5): `h5::dataset` reads
/// rows in chunk-aligned blocks and decodes chunks in the calling thread; `h5::partition` by
/// count or by bytes, `h5::read_buffer`, `h5::write`, `h5::write_blocks`, `h5::chunk_writer`,
/// `h5::analyze_layout`, selected `h5::indices`, `h5::ragged` records (`read_ragged`,
/// `h5::write_ragged`), `h5::dataset_series` over many files; every problem is an `h5::error`.

#include <chunkwise/hdf5/attributes.hpp>
#include <chunkwise/hdf5/chunk_writer.hpp>
#include <chunkwise/hdf5/chunks.hpp>
#include <chunkwise/hdf5/concatenate.hpp>
#include <chunkwise/hdf5/dataset.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/filters.hpp>
#include <chunkwise/hdf5/layout.hpp>
#include <chunkwise/hdf5/lock.hpp>
#include <chunkwise/hdf5/partition.hpp>
#include <chunkwise/hdf5/ragged.hpp>
#include <chunkwise/hdf5/series.hpp>
#include <chunkwise/hdf5/stream_writer.hpp>
#include <chunkwise/hdf5/write.hpp>
#include <chunkwise/hdf5/write_options.hpp>
