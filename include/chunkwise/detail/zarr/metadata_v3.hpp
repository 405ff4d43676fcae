#pragma once
// Internal: a v3 array's zarr.json parsed into `meta`: every field read through the checked JSON
// helpers (json_fields.hpp), the codec chain as the spec orders it (array-to-array codecs, one
// array-to-bytes codec, bytes-to-bytes codecs; sharding_indexed nested in sharding_indexed), and
// the chain's geometry brought into the array's axes: a transpose before sharding makes the inner
// chunks and the order of the shard's index those of the transposed shard.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace chunkwise::zarr::detail {

/// The deepest sharding read: a shard of shards of ... this many levels.
inline constexpr std::size_t most_shard_levels = 8;

/// A transpose codec's order, checked to be a permutation of `rank` axes.
CHUNKWISE_ZARR_DECL std::vector<std::size_t> transpose_order(const std::string& store, const json& conf,
                                                             std::size_t rank);

CHUNKWISE_ZARR_DECL chain parse_v3_codecs(const std::string& store, const json& list, std::size_t rank,
                                          std::size_t item, std::size_t level = 0);

/// A sharding_indexed codec's configuration: inner chunks (in the axes of the shard as the codecs
/// before it leave it), their codecs, the index's codecs and place.
CHUNKWISE_ZARR_DECL std::shared_ptr<shard_spec> parse_shard(const std::string& store, const json& conf,
                                                            std::size_t rank, std::size_t item, std::size_t level);

/// A v3 codec list (array -> array, array -> bytes, bytes -> bytes) over chunks of `rank` axes.
/// The chain's perm maps the axes of the values after its transposes to the axes before them.
CHUNKWISE_ZARR_DECL chain parse_v3_codecs(const std::string& store, const json& list, std::size_t rank,
                                          std::size_t item, std::size_t level);

/// Brings a parsed chain into the array's axes: `to_array[j]` is the array axis of axis j of the
/// values the chain encodes. Its perm then maps a decoded chunk's axes to the array's; a shard's
/// inner chunk shape is given in array axes, and `index_axes` says which array axis each axis of
/// its index's row-major order is (a transpose before sharding transposes the shard).
CHUNKWISE_ZARR_DECL void to_array_axes(chain& c, const std::vector<std::size_t>& to_array);

/// The chain that decodes the values themselves: the innermost of nested shards.
inline const chain& innermost(const chain& c) { return c.shard ? innermost(*c.shard->codecs) : c; }

/// zarr.json as parsed JSON.
CHUNKWISE_ZARR_DECL meta parse_v3(const std::string& store, const json& z);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/metadata_v3.ipp>
#endif
