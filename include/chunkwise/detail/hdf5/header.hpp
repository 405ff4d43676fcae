#pragma once
// Internal: a dataset's header read into its state, one part each: the element type, the extent
// (checked against this machine's address space), the layout and chunk grid, the fill value, the
// filter pipeline (each filter's decoder: chunkwise's codec, an installed plugin, or HDF5) and the
// bounds of each stage. Called by open_dataset (open.hpp) with the lock held.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/filters/plugin.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/detail/hdf5/types.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// The stored type: its description, the type reads convert from (an enum's base, a bitfield as
/// an integer), and for variable-length data the type of its records.
CHUNKWISE_HDF5_DECL void read_element_type(dataset_state& s, hid_t type);

/// The extent: every axis, and every element and byte count a read can compute, fit in size_t
/// (as h5py refuses what does not). Returns the dataset's bytes.
/// \throws h5::error for a null or scalar dataspace, or a dataset too large for this machine
CHUNKWISE_HDF5_DECL std::size_t read_extent(dataset_state& s, hid_t space, hid_t type);

/// The layout: chunked (the chunk shape, checked, and the grid of chunks), or contiguous in the
/// file (its address); anything else (compact, external) is read by HDF5.
CHUNKWISE_HDF5_DECL void read_layout(dataset_state& s, hid_t dcpl);

/// Whether chunks never written read as the fill value: except where HDF5 leaves the reader's
/// buffer as it was (fill time "never", or no fill value), where chunkwise gives 0. Where HDF5
/// cannot even say whether there is a fill value, its message is damaged (and H5Pget_fill_value
/// crashes HDF5 1.10 on some such files): it is never asked for then.
CHUNKWISE_HDF5_DECL void read_fill(dataset_state& s, hid_t dcpl);

/// The folders HDF5 searches for filter plugins, for messages ("HDF5_PLUGIN_PATH or ..."). Call
/// with the lock held.
CHUNKWISE_HDF5_DECL std::string plugin_search_path();

/// Filter `i` of the pipeline: its id, parameters and name. \throws h5::error where unreadable
CHUNKWISE_HDF5_DECL filter_step read_filter(const dataset_state& s, hid_t dcpl, int i);

/// The filter pipeline, each filter with its decoder: chunkwise's codec (detail/codecs/) where
/// it accepts the parameters, else (or first, where CHUNKWISE_HDF5_PLUGIN_FIRST asks) an installed
/// plugin shown to be safe in the worker (filters/plugin.hpp), else HDF5 decodes the dataset; and
/// where HDF5 cannot decode it either, reads fail naming the plugin to install. Then each stage's
/// bound: the codec's worst case of what the stages before it make.
CHUNKWISE_HDF5_DECL void read_filters(dataset_state& s, hid_t dcpl);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/header.ipp>
#endif
