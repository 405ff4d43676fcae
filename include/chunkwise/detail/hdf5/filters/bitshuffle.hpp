#pragma once
// Kept for one release: this codec moved to the codec floor, <chunkwise/detail/codecs/bitshuffle.hpp>
// (namespace chunkwise::detail::codecs); its names stay visible in chunkwise::h5::detail.
#include <chunkwise/detail/codecs/bitshuffle.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
