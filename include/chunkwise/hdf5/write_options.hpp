#pragma once
/// \file
/// `chunkwise::h5::write_options`: how h5::write, h5::write_blocks and h5::chunk_writer store a
/// dataset (chunks, shuffle, deflate, a codec), and `h5::codec_problem`, which says why a build
/// cannot write the options asked for. The codecs are those of chunkwise's filter table
/// (docs/hdf5.md, "Filters").

#include <chunkwise/detail/hdf5/filters/table.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::h5 {

/// How `write` and `write_blocks` store a dataset.
struct write_options {
    std::vector<std::size_t> chunk;  ///< chunk shape; empty: contiguous (or automatic when compressing)
    int deflate = 0;                 ///< 0: no compression; 1-9: deflate level (chunked storage)
    bool shuffle = false;            ///< byte shuffle before compressing (helps floats compress)
    /// Instead of deflate, a codec chunkwise encodes itself, chunk by chunk: "lz4" (HDF5 filter
    /// 32004), "zstd" (32015), "bzip2" (307) or "blosc" (32001, its lz4 codec; "blosc:zstd",
    /// "blosc:lz4hc", "blosc:zlib", "blosc:blosclz" pick another; `shuffle` is then Blosc's own).
    /// Each needs chunkwise::hdf5 built with its library; readers need the filter's HDF5 plugin
    /// (docs/hdf5.md, "Filters"). "" (the default): none.
    std::string codec{};  // (initialized here: aggregate initialisation of the first three stays warning-free)
    int level = 0;  ///< the codec's level; 0: its default (LZ4: none, Zstandard 3, bzip2 9, Blosc 5)
};

/// Why this build cannot write `opt`'s filters ("" if it can): a deflate level out of range, both
/// deflate and a codec, a codec chunkwise does not write (naming those it does), a level or
/// inner codec the codec refuses, or a codec built without its library (naming the Debian
/// package that provides it).
inline std::string codec_problem(const write_options& opt) {
    namespace d = detail;
    if (opt.deflate < 0 || opt.deflate > 9) return "deflate level must be 0-9, got " + std::to_string(opt.deflate);
    const std::string& c = opt.codec;
    if (c.empty()) return {};
    if (opt.deflate > 0) return "deflate and codec '" + c + "' are both asked for: choose one";
    const d::codec* k = d::find_codec_option(c);
    if (k == nullptr) {
        std::string known;
        for (const d::codec* x : d::all_codecs()) {
            if (x->option == nullptr) continue;
            known += (known.empty() ? "" : ", ") + std::string(x->option);
            if (x->variants != nullptr) known += " (or " + std::string(x->option) + ":NAME, NAME one of " + x->variants + ")";
        }
        return "codec '" + c + "' is not one of " + known;
    }
    const auto colon = c.find(':');
    if (colon != std::string::npos && k->variants == nullptr) return "codec '" + c + "': " + k->option + " takes no ':NAME'";
    d::encode_request r;
    r.variant = colon == std::string::npos ? std::string() : c.substr(colon + 1);
    r.level = opt.level;
    const std::string why = k->check(r);
    return why.empty() ? std::string() : "codec '" + c + "' " + why;
}

namespace detail {
using h5::codec_problem;  // deprecated: h5::codec_problem (<chunkwise/hdf5/write_options.hpp>)
}  // namespace detail

}  // namespace chunkwise::h5
