#pragma once
// Internal: the filters chunkwise decodes in the reading thread, one line each. A new filter is
// one header in this folder (its codec) and one line here; the read path (detail/hdf5/chunked.hpp)
// runs a dataset's pipeline through them, and open.hpp decides from them which datasets it reads
// itself. Filters not listed (or whose parameters or library a codec refuses) are decoded by HDF5
// (or by an installed plugin called in the worker, plugin.hpp).
#include <chunkwise/detail/hdf5/filters/bitshuffle.hpp>
#include <chunkwise/detail/hdf5/filters/blosc.hpp>
#include <chunkwise/detail/hdf5/filters/bzip2.hpp>
#include <chunkwise/detail/hdf5/filters/codec.hpp>
#include <chunkwise/detail/hdf5/filters/deflate.hpp>
#include <chunkwise/detail/hdf5/filters/fletcher32.hpp>
#include <chunkwise/detail/hdf5/filters/lz4.hpp>
#include <chunkwise/detail/hdf5/filters/lzf.hpp>
#include <chunkwise/detail/hdf5/filters/plugin.hpp>
#include <chunkwise/detail/hdf5/filters/shuffle.hpp>
#include <chunkwise/detail/hdf5/filters/zstd.hpp>

#include <span>

namespace chunkwise::h5::detail {

/// Every filter chunkwise knows how to decode (with or without its library in this build).
inline std::span<const codec* const> all_codecs() noexcept {
    static const codec* const all[] = {
        &deflate_codec, &shuffle_codec, &fletcher32_codec, &lzf_codec,        &lz4_codec,
        &zstd_codec,    &bzip2_codec,   &blosc_codec,      &bitshuffle_codec,
    };
    return all;
}

/// chunkwise's decoder for filter `id`, or null.
inline const codec* find_codec(int id) noexcept {
    for (const codec* c : all_codecs()) {
        if (c->id == id) return c;
    }
    return nullptr;
}

}  // namespace chunkwise::h5::detail
