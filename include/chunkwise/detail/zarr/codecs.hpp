#pragma once
// Internal: a Zarr chunk's bytes codecs undone, last to first. Compressors and checksums by the
// codec floor's codec of their name (detail/codecs/table.hpp: zlib, gzip, zstd, blosc, bz2,
// numcodecs' lz4, shuffle, crc32c); numcodecs' filters that change the values' type
// (type_filters.hpp: delta, quantize, bitround, fixedscaleoffset, astype) here, as numcodecs
// decodes them. Every codec of a chain is checked before any is decoded, so a codec chunkwise does
// not decode is named itself. Each stage decodes into exactly the size it must have, or, where no
// earlier stage says it (a compressor after a compressor, everything after sharding), into the
// size the encoded data states (zstd, blosc, gzip, numcodecs' lz4); else std::runtime_error says
// what is wrong (the reader adds store and key).
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/codecs/table.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>
#include <chunkwise/detail/zarr/type_filters.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise::zarr::detail {

namespace codecs = chunkwise::detail::codecs;

/// The most bytes a stage may decode to where only the encoded data states its size.
inline constexpr std::uint64_t most_stated_bytes = std::uint64_t{16} << 30;

/// The codecs this build decodes in format `format`, for messages: "zlib, gzip, ...".
CHUNKWISE_ZARR_DECL std::string decodable(int format);

/// Throws where a codec of `c` is not one chunkwise decodes (naming it), or its parameters are
/// refused; nothing is decoded before.
CHUNKWISE_ZARR_DECL void check_decodable(const chain& c);

/// The bytes a chunk of `elems` elements holds after each of `c`'s bytes codecs (in encoding
/// order): sizes[0] the raw values, sizes[k + 1] after codec k (0: not known in advance).
CHUNKWISE_ZARR_DECL std::vector<std::size_t> stage_sizes(const std::string& store, const chain& c, std::size_t elems,
                                                         std::size_t item);

/// The size codec `k` decodes [in, in + n) to, where no earlier stage says it: what the encoded
/// data states. \throws std::runtime_error where it states none, or more than most_stated_bytes
CHUNKWISE_ZARR_DECL std::size_t stated_size(const codec_spec& k, const unsigned char* in, std::size_t n);

/// Decodes one bytes codec: [in, in + n) into [out, out + want), which it must fill exactly.
/// `elems` and `t` are the chunk's element count and stored type (for the type filters).
CHUNKWISE_ZARR_DECL void decode_stage(const std::string& store, const codec_spec& c, const unsigned char* in,
                                      std::size_t n, unsigned char* out, std::size_t want, std::size_t elems,
                                      const dtype& t, int format);

/// Decodes a chunk's bytes through `c`'s bytes codecs; returns the raw values' bytes: `in` itself
/// where there is no codec, else `final_out` where given (the last stage decodes into it: it must
/// hold the chunk's bytes), else a or b. With `elems` 0 the values' size is not known (the bytes
/// after sharding): every stage takes the size its input states, and `decoded` says the result's.
CHUNKWISE_ZARR_DECL const unsigned char* decode_bytes(const std::string& store, const chain& c, const unsigned char* in,
                                                      std::size_t n, std::size_t elems, const dtype& t,
                                                      std::vector<unsigned char>& a, std::vector<unsigned char>& b,
                                                      unsigned char* final_out = nullptr,
                                                      std::size_t* decoded = nullptr);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/codecs.ipp>
#endif
