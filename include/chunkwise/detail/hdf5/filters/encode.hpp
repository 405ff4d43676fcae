#pragma once
// Internal: one chunk's bytes through the filters write_options asks for, in the calling thread:
// shuffle (HDF5's filter, or Blosc's own), then deflate or a codec (LZ4, Zstandard, Blosc), as
// the filters' plugins decode them. Used by h5::chunk_writer (each worker encodes its chunks)
// and h5::write for codecs HDF5 itself cannot apply.
#include <chunkwise/detail/hdf5/create.hpp>
#include <chunkwise/detail/hdf5/filters/blosc.hpp>
#include <chunkwise/detail/hdf5/filters/deflate.hpp>
#include <chunkwise/detail/hdf5/filters/lz4.hpp>
#include <chunkwise/detail/hdf5/filters/shuffle.hpp>
#include <chunkwise/detail/hdf5/filters/zstd.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// The bytes to store for one chunk of `size` bytes (elements of `elem_size` bytes) at `bytes`:
/// either `bytes` itself or one of the two scratch vectors.
inline std::pair<const unsigned char*, std::size_t> encode_chunk(const write_options& opt, std::size_t elem_size,
                                                                 const unsigned char* bytes, std::size_t size,
                                                                 std::vector<unsigned char>& shuffled,
                                                                 std::vector<unsigned char>& packed) {
    const std::string blosc = blosc_codec_of(opt.codec);
    if (opt.shuffle && blosc.empty()) {
        shuffled.resize(size);
        shuffle_bytes(bytes, shuffled.data(), size, elem_size);
        bytes = shuffled.data();
    }
    // (Each encoder resizes `packed`: its data() is taken after.)
    std::size_t n = 0;
    if (opt.deflate > 0) {
        n = deflate_bytes(bytes, size, packed, opt.deflate);
        return {packed.data(), n};
    }
#if defined(CHUNKWISE_USE_LZ4)
    if (opt.codec == "lz4") {
        n = lz4_encode(bytes, size, packed, 0);
        return {packed.data(), n};
    }
#endif
#if defined(CHUNKWISE_USE_ZSTD)
    if (opt.codec == "zstd") {
        n = zstd_encode(bytes, size, packed, opt.level > 0 ? opt.level : 3);
        return {packed.data(), n};
    }
#endif
#if defined(CHUNKWISE_USE_BLOSC)
    if (!blosc.empty()) {
        n = blosc_encode(bytes, size, packed, elem_size, opt.level > 0 ? opt.level : 5,
                         opt.shuffle ? blosc_shuffle::byte : blosc_shuffle::none, blosc.c_str());
        return {packed.data(), n};
    }
#endif
    if (!opt.codec.empty()) throw std::runtime_error("codec '" + opt.codec + "' is not built in");
    return {bytes, size};
}

}  // namespace chunkwise::h5::detail
