#pragma once
// Kept for one release: this codec moved to the codec floor, <chunkwise/detail/codecs/deflate.hpp>
// (namespace chunkwise::detail::codecs); its names stay visible in chunkwise::h5::detail.
#include <chunkwise/detail/codecs/deflate.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
