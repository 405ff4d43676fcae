#pragma once
// Internal: the codec floor (detail/codecs/) as the HDF5 layer names it: its codecs, table and
// write pipeline, visible in chunkwise::h5::detail as they were before they moved there.
#include <chunkwise/detail/codecs/pipeline.hpp>
#include <chunkwise/detail/codecs/table.hpp>

namespace chunkwise::h5::detail {
namespace codecs = chunkwise::detail::codecs;
using namespace chunkwise::detail::codecs;
}  // namespace chunkwise::h5::detail
