#pragma once
// Internal: Boost.Serialization of chunkwise's own types that travel between ranks.
#include <chunkwise/failure.hpp>

#include <boost/serialization/string.hpp>

namespace chunkwise {

/// Boost.Serialization of a failure, so failures travel between ranks.
template <class Archive>
void serialize(Archive& ar, failure& f, const unsigned int /*version*/) {
    ar& f.index;
    ar& f.block;
    ar& f.rank;
    ar& f.message;
    ar& f.time;
}

}  // namespace chunkwise
