#pragma once
// Internal: a Zarr array's metadata as chunkwise reads it: v2 (.zarray, or the store's consolidated
// .zmetadata) and v3 (zarr.json), parsed with nlohmann::json into one `meta`: shape, chunk grid,
// stored type and byte order, fill value as the stored type's bytes, chunk keys, and the codec
// chain (detail/zarr/codecs.hpp decodes it). Everything it refuses is a zarr::error naming the
// store and the field.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/codecs/table.hpp>
#include <chunkwise/detail/zarr/json_fields.hpp>
#include <chunkwise/zarr/error.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace chunkwise::zarr::detail {

/// A stored element type: kind 'i' (signed), 'u' (unsigned), 'f' (IEEE float), 'b' (bool, 1 byte).
struct dtype {
    char kind = 'f';
    std::size_t size = 8;
    bool big = false;  ///< big-endian as stored (v2 '>'; v3 the bytes codec's endian)
    /// numpy's name: "float64", "int16", "bool".
    [[nodiscard]] std::string name() const {
        if (kind == 'b') return "bool";
        return std::string(kind == 'f' ? "float" : kind == 'i' ? "int" : "uint") + std::to_string(size * 8);
    }
};

/// One codec as the metadata names it, with its configuration, and the codec floor's codec of
/// that name (null where chunkwise has none) with its decode parameters from the configuration.
struct codec_spec {
    std::string name;
    json config;
    const chunkwise::detail::codecs::codec* impl = nullptr;
    std::vector<unsigned> params;
};

/// The codec of the registry that format `format` names `name`, with its decode parameters: the
/// configuration's integers at the codec's `zarr_params` keys (0 where absent or not an integer).
CHUNKWISE_ZARR_DECL codec_spec bind_codec(std::string name, json config, int format);

struct chain;

/// sharding_indexed: inner chunks of `inner` shape, each through `codecs`; the index of
/// (offset, nbytes) pairs through `index`, at the shard's start or end.
struct shard_spec {
    std::vector<std::size_t> inner;       // in the array's axes (metadata_v3.hpp: to_array_axes)
    std::vector<std::size_t> index_axes;  // the array axis of each axis of the index's row-major order
    std::shared_ptr<chain> codecs;
    std::shared_ptr<chain> index;
    bool index_at_start = false;
};

/// How a chunk's bytes become its values: bytes codecs (decoded last to first), the stored byte
/// order, and the layout of the decoded values: the buffer is row-major over the chunk's axes in
/// the order `perm` (identity: C order; reversed: F order; v3 transpose codecs compose into it).
struct chain {
    int format = 2;                        // the Zarr format whose names the codecs have
    std::vector<codec_spec> bytes_codecs;  // in encoding order
    bool big = false;
    std::vector<std::size_t> perm;
    std::shared_ptr<shard_spec> shard;  // a v3 sharding codec (then bytes_codecs follow the shard)
};

/// One array's metadata.
struct meta {
    int format = 2;
    std::vector<std::size_t> shape;
    std::vector<std::size_t> chunks;  // the grid's chunk (a shard's shape where sharded)
    dtype type;
    std::vector<unsigned char> fill;  // one element of the stored type, native byte order
    char separator = '.';
    bool v3_default_keys = false;  // keys "c/i/j" (v3 default encoding), else "i.j"
    chain codecs;
    json attributes = json::object();
    json dimension_names = json(nullptr);  // format 3: zarr.json's dimension_names, checked (null: none)
};

CHUNKWISE_ZARR_DECL std::vector<std::size_t> sizes(const std::string& store, const json& j, const char* field);

/// A v2 dtype string: "<f8", ">i2", "|u1", "|b1".
CHUNKWISE_ZARR_DECL dtype parse_v2_dtype(const std::string& store, const json& j);

/// A v3 data_type name: "float64", "int8", "bool".
CHUNKWISE_ZARR_DECL dtype parse_v3_dtype(const std::string& store, const json& j);

template <class S>
std::vector<unsigned char> bytes_of(S v) {
    std::vector<unsigned char> out(sizeof(S));
    std::memcpy(out.data(), &v, sizeof(S));
    return out;
}

/// The fill value as one element of `t` in native byte order: null (0), a number, true/false,
/// "NaN", "Infinity", "-Infinity", or (v3) "0x..." the value's bits.
CHUNKWISE_ZARR_DECL std::vector<unsigned char> parse_fill(const std::string& store, const json& j, const dtype& t);

CHUNKWISE_ZARR_DECL std::vector<std::size_t> identity(std::size_t n);

/// A v2 numcodecs entry {"id": NAME, ...}.
CHUNKWISE_ZARR_DECL codec_spec v2_codec(const std::string& store, const json& j);

/// .zarray as parsed JSON.
CHUNKWISE_ZARR_DECL meta parse_v2(const std::string& store, const json& z);

/// The most inner chunks a shard may hold: its index then takes at most 1 GiB.
inline constexpr std::uint64_t most_inner_chunks = std::uint64_t{1} << 26;

/// The inner chunks of a shard of `extent` (array axes) under `s`, checked: each extent a multiple
/// of the inner chunk's, and at most most_inner_chunks of them (an index that large, or a count
/// that overflows, is refused rather than looped over).
CHUNKWISE_ZARR_DECL std::uint64_t inner_chunks(const std::string& store, const std::vector<std::size_t>& extent,
                                               const shard_spec& s);

/// Checks what both formats share: shape and chunks of one rank, chunks > 0, shards (nested too)
/// multiples of their inner chunks and of a bounded count of them, the decoded chunk at most 16 GiB.
CHUNKWISE_ZARR_DECL void check_grid(const std::string& store, const meta& m);

/// The key of the chunk at grid position `at`.
CHUNKWISE_ZARR_DECL std::string chunk_key(const meta& m, const std::vector<std::size_t>& at);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/metadata.ipp>
#endif
