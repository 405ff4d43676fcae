#pragma once
// Internal: what a write does to each chunk, for either store: the codecs it applies in order
// (`pipeline`: shuffle unless the main codec shuffles itself, then the main codec, with its level
// resolved to the codec's default where 0), and one chunk's bytes through them in the calling
// worker (`encode_chunk`). HDF5's writers and Zarr's build their pipelines here.
#include <chunkwise/detail/codecs/table.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::detail::codecs {

/// The codecs one chunk goes through when written, in order, each with its request.
using pipeline = std::vector<std::pair<const codec*, encode_request>>;

/// The codec a write's options name for `store` (`deflate`: a deflate level, 0 for none; `option`:
/// write_options::codec), or why this build cannot write them: `problem` reads "deflate level
/// must be 0-9, got 12", "deflate and codec 'lz4' are both asked for: choose one", "codec 'lzma'
/// is not one of ...", "codec 'lz4' is not a Zarr v3 codec: ...", "codec 'lz4:x': lz4 takes no
/// ':NAME'", or "codec 'zstd' " and the codec's own check ("level must be 0-22, got 30", "needs
/// chunkwise built with libzstd (Debian: libzstd-dev)"). Both stores check their options here.
struct write_codec {
    const codec* main = nullptr;  ///< null: no compression
    std::string option;           ///< the name asked for ("blosc:zstd"; "deflate" for `deflate`)
    int level = 0;                ///< as asked (0: the codec's default)
    std::string problem;          ///< "" where this build writes it
};

/// Resolves (deflate, option, level) for `store`; see write_codec.
inline write_codec resolve_write_codec(int deflate, const std::string& option, int level, store_kind store) {
    write_codec w;
    w.option = option;
    w.level = level;
    if (deflate < 0 || deflate > 9) {
        w.problem = "deflate level must be 0-9, got " + std::to_string(deflate);
        return w;
    }
    if (option.empty()) {
        if (deflate > 0) {
            w.main = &deflate_codec;
            w.option = "deflate";
            w.level = deflate;
        }
        return w;
    }
    if (deflate > 0) {
        w.problem = "deflate and codec '" + option + "' are both asked for: choose one";
        return w;
    }
    w.main = find_codec_option(option, store);
    if (w.main == nullptr) {
        const store_kind other = store == store_kind::zarr3 ? store_kind::zarr2 : store_kind::zarr3;
        if (store != store_kind::hdf5 && find_codec_option(option, other) != nullptr) {
            w.problem = "codec '" + option + "' is not a Zarr v" + (store == store_kind::zarr3 ? "3" : "2") +
                        " codec: use format " + (store == store_kind::zarr3 ? "2" : "3") + ", or one of " +
                        option_names(store);
        } else {
            w.problem = "codec '" + option + "' is not one of " + option_names(store);
        }
        return w;
    }
    const auto colon = option.find(':');
    encode_request r;
    r.variant = colon == std::string::npos ? std::string() : option.substr(colon + 1);
    r.level = level;
    if (colon != std::string::npos && w.main->variants == nullptr) {
        w.problem = "codec '" + option + "': " + w.main->option + " takes no ':NAME'";
    } else if (const std::string why = w.main->check(r); !why.empty()) {
        w.problem = "codec '" + option + "' " + why;
    }
    return w;
}

/// The pipeline of a write: byte shuffle where asked (by the main codec itself where it shuffles,
/// as Blosc does, else by the shuffle codec before it), then `main` (null: none) with `option`'s
/// inner codec ("blosc:zstd") and `level` (0: the codec's default). `elem_size` and `chunk_bytes`
/// describe the chunks. Call after the codec's check found nothing.
inline pipeline make_pipeline(const codec* main, const std::string& option, int level, bool shuffle,
                              std::size_t elem_size, std::size_t chunk_bytes) {
    encode_request base;
    base.elem_size = elem_size;
    base.chunk_bytes = chunk_bytes;
    pipeline out;
    if (shuffle && (main == nullptr || !main->own_shuffle)) out.emplace_back(&shuffle_codec, base);
    if (main != nullptr) {
        encode_request r = base;
        const auto colon = option.find(':');
        r.variant = colon == std::string::npos ? std::string() : option.substr(colon + 1);
        r.level = level;
        r.level = level_of(*main, r);
        r.shuffle = shuffle && main->own_shuffle;
        out.emplace_back(main, r);
    }
    return out;
}

/// The bytes to store for one chunk of `size` bytes at `bytes`, through `p`: `bytes` itself where
/// `p` is empty, else one of the two scratch vectors.
/// \throws std::runtime_error from a codec, or where a codec of `p` has no encoder in this build
inline std::pair<const unsigned char*, std::size_t> encode_chunk(const pipeline& p, const unsigned char* bytes,
                                                                 std::size_t size, std::vector<unsigned char>& a,
                                                                 std::vector<unsigned char>& b) {
    std::vector<unsigned char>* out = &a;
    for (const auto& [c, r] : p) {
        if (c->encode == nullptr) throw std::runtime_error(std::string("codec ") + c->name + " is not built in");
        size = c->encode(r, bytes, size, *out);  // (each encoder resizes *out: its data() is taken after)
        bytes = out->data();
        out = out == &a ? &b : &a;
    }
    return {bytes, size};
}

}  // namespace chunkwise::detail::codecs
