#pragma once
// Internal: every codec HDF5 and Zarr users meet, one line each, with what chunkwise does with it
// (its codec: codecs/codec.hpp), keyed by HDF5 filter id, Zarr v2 numcodecs id and Zarr v3 name.
// The only list: HDF5's read path runs a dataset's pipeline through these codecs
// (detail/hdf5/read/decode.hpp) and open.hpp decides from them which datasets it reads itself;
// Zarr's reader finds each codec of a chunk's chain here by its name (detail/zarr/codecs.hpp); the
// writers of both stores take their options from them (write_options::codec); messages and
// chunkwise-doctor their names and plugins; and a test checks CMake's codec libraries against
// their `needs`. A new codec is one header in this folder holding its codec, and one line here
// (its include beside it); docs/architecture.md shows one.
#include <chunkwise/detail/codecs/bitshuffle.hpp>
#include <chunkwise/detail/codecs/blosc.hpp>
#include <chunkwise/detail/codecs/bzip2.hpp>
#include <chunkwise/detail/codecs/codec.hpp>
#include <chunkwise/detail/codecs/crc32c.hpp>
#include <chunkwise/detail/codecs/deflate.hpp>
#include <chunkwise/detail/codecs/fletcher32.hpp>
#include <chunkwise/detail/codecs/gzip.hpp>
#include <chunkwise/detail/codecs/lz4.hpp>
#include <chunkwise/detail/codecs/lzf.hpp>
#include <chunkwise/detail/codecs/others.hpp>
#include <chunkwise/detail/codecs/shuffle.hpp>
#include <chunkwise/detail/codecs/zstd.hpp>

#include <algorithm>
#include <span>
#include <string>

namespace chunkwise::detail::codecs {

/// Every codec chunkwise knows: HDF5's filters by id, then the framings only Zarr has.
inline std::span<const codec* const> all_codecs() noexcept {
    static const codec* const all[] = {
        &deflate_codec,        // 1
        &shuffle_codec,        // 2
        &fletcher32_codec,     // 3
        &szip_codec,           // 4
        &nbit_codec,           // 5
        &scaleoffset_codec,    // 6
        &lzo_codec,            // 305
        &bzip2_codec,          // 307
        &lzf_codec,            // 32000
        &blosc_codec,          // 32001
        &lz4_codec,            // 32004
        &bitshuffle_codec,     // 32008
        &zfp_codec,            // 32013
        &zstd_codec,           // 32015
        &sz_codec,             // 32017
        &vbz_codec,            // 32020
        &blosc2_codec,         // 32026
        &gzip_codec,           // Zarr: gzip
        &numcodecs_lz4_codec,  // Zarr v2: lz4
        &crc32c_codec,         // Zarr v3: crc32c
    };
    return all;
}

/// chunkwise's codec of HDF5 filter `id`, or null where it does not know the filter.
inline const codec* find_codec(int id) noexcept {
    if (id == 0) return nullptr;
    for (const codec* c : all_codecs()) {
        if (c->id == id) return c;
    }
    return nullptr;
}

/// True where `name` is one of the comma-separated `list`.
inline bool listed(const char* list, const std::string& name) noexcept {
    if (list == nullptr) return false;
    const std::string l = list;
    for (std::size_t at = 0; at <= l.size();) {
        const std::size_t end = std::min(l.find(',', at), l.size());
        if (l.compare(at, end - at, name) == 0) return true;
        at = end + 1;
    }
    return false;
}

/// Whether a codec can be written to a store: HDF5 (an HDF5 filter), Zarr v2 or Zarr v3.
enum class store_kind { hdf5, zarr2, zarr3 };

/// The codec's name in `store`'s metadata: its HDF5 name, numcodecs id or v3 name; null where the
/// store has no such codec.
inline const char* store_name(const codec& c, store_kind store) noexcept {
    if (store == store_kind::hdf5) return c.id != 0 ? c.name : nullptr;
    return store == store_kind::zarr2 ? c.zarr_v2 : c.zarr_v3;
}

/// The codec a write_options::codec names for `store` ("lz4", "blosc", "blosc:zstd": the part
/// before ':'): the store's own name for a codec first (Zarr's "gzip", "zlib", "bz2"), then any
/// codec's option name or alias that the store has. Null where none.
inline const codec* find_codec_option(const std::string& option, store_kind store = store_kind::hdf5) noexcept {
    const std::string name = option.substr(0, option.find(':'));
    if (name.empty()) return nullptr;
    if (store != store_kind::hdf5) {
        for (const codec* c : all_codecs()) {
            const char* own = store_name(*c, store);
            if (own != nullptr && name == own && c->option != nullptr) return c;
        }
    }
    for (const codec* c : all_codecs()) {
        if (c->option == nullptr || store_name(*c, store) == nullptr) continue;
        if (name == c->option || listed(c->aliases, name)) return c;
    }
    return nullptr;
}

/// The codec Zarr metadata names `name` (a v2 numcodecs id for format 2, a v3 name for 3), or null.
inline const codec* find_zarr_codec(const std::string& name, int format) noexcept {
    const store_kind store = format == 3 ? store_kind::zarr3 : store_kind::zarr2;
    for (const codec* c : all_codecs()) {
        const char* own = store_name(*c, store);
        if (own != nullptr && name == own) return c;
    }
    return nullptr;
}

/// The names write_options::codec takes for `store`, for messages: "lz4, zstd, blosc (or
/// blosc:NAME, NAME one of ...)".
inline std::string option_names(store_kind store) {
    std::string known;
    for (const codec* c : all_codecs()) {
        if (c->option == nullptr || store_name(*c, store) == nullptr) continue;
        known += (known.empty() ? "" : ", ") + std::string(c->option);
        if (c->variants != nullptr)
            known += " (or " + std::string(c->option) + ":NAME, NAME one of " + c->variants + ")";
    }
    return known;
}

/// The usual name of filter `id` ("filter 12345" where unknown).
inline std::string filter_name(int id) {
    const codec* c = find_codec(id);
    return c != nullptr ? std::string(c->name) : "filter " + std::to_string(id);
}

/// Where filter `id`'s HDF5 plugin comes from, for messages ("" where unknown).
inline std::string filter_provider(int id) {
    const codec* c = find_codec(id);
    return c != nullptr ? std::string(c->provider) : std::string();
}

}  // namespace chunkwise::detail::codecs
