#pragma once
// Internal: every filter HDF5 users meet, one line each, with what chunkwise does with it (its
// codec: filters/codec.hpp). The only list: the read path runs a dataset's pipeline through these
// codecs (detail/hdf5/read/chunked.hpp), open.hpp decides from them which datasets it reads itself,
// the writers take their options from them (write_options::codec, detail/hdf5/write/), messages
// and chunkwise-doctor their names and plugins, and a test checks CMake's codec libraries against
// their `needs`. A new filter is one header in this folder holding its codec, and one line here
// (its include beside it); docs/architecture.md shows one.
#include <chunkwise/detail/hdf5/filters/bitshuffle.hpp>
#include <chunkwise/detail/hdf5/filters/blosc.hpp>
#include <chunkwise/detail/hdf5/filters/bzip2.hpp>
#include <chunkwise/detail/hdf5/filters/codec.hpp>
#include <chunkwise/detail/hdf5/filters/deflate.hpp>
#include <chunkwise/detail/hdf5/filters/fletcher32.hpp>
#include <chunkwise/detail/hdf5/filters/lz4.hpp>
#include <chunkwise/detail/hdf5/filters/lzf.hpp>
#include <chunkwise/detail/hdf5/filters/others.hpp>
#include <chunkwise/detail/hdf5/filters/shuffle.hpp>
#include <chunkwise/detail/hdf5/filters/zstd.hpp>

#include <span>
#include <string>

namespace chunkwise::h5::detail {

/// Every filter chunkwise knows, by id.
inline std::span<const codec* const> all_codecs() noexcept {
    static const codec* const all[] = {
        &deflate_codec,     // 1
        &shuffle_codec,     // 2
        &fletcher32_codec,  // 3
        &szip_codec,        // 4
        &nbit_codec,        // 5
        &scaleoffset_codec, // 6
        &lzo_codec,         // 305
        &bzip2_codec,       // 307
        &lzf_codec,         // 32000
        &blosc_codec,       // 32001
        &lz4_codec,         // 32004
        &bitshuffle_codec,  // 32008
        &zfp_codec,         // 32013
        &zstd_codec,        // 32015
        &sz_codec,          // 32017
        &vbz_codec,         // 32020
        &blosc2_codec,      // 32026
    };
    return all;
}

/// chunkwise's codec of filter `id`, or null where it does not know the filter.
inline const codec* find_codec(int id) noexcept {
    for (const codec* c : all_codecs()) {
        if (c->id == id) return c;
    }
    return nullptr;
}

/// The codec a write_options::codec names ("lz4", "blosc", "blosc:zstd": the part before ':'),
/// or null.
inline const codec* find_codec_option(const std::string& option) noexcept {
    const std::string name = option.substr(0, option.find(':'));
    for (const codec* c : all_codecs()) {
        if (c->option != nullptr && name == c->option) return c;
    }
    return nullptr;
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

}  // namespace chunkwise::h5::detail
