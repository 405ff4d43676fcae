#pragma once
// Internal: one chunk's bytes through the filters a write applies (write_pipeline: shuffle, then
// deflate or a codec, from the filter table), in the calling thread, as the filters' plugins
// decode them. Used by h5::chunk_writer (each worker encodes its chunks) and h5::write.
#include <chunkwise/detail/hdf5/write/create.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// The bytes to store for one chunk of `size` bytes at `bytes`, through `pipeline` (from
/// write_pipeline): `bytes` itself where it is empty, else one of the two scratch vectors.
inline std::pair<const unsigned char*, std::size_t> encode_chunk(
    const std::vector<std::pair<const codec*, encode_request>>& pipeline, const unsigned char* bytes, std::size_t size,
    std::vector<unsigned char>& a, std::vector<unsigned char>& b) {
    std::vector<unsigned char>* out = &a;
    for (const auto& [c, r] : pipeline) {
        if (c->encode == nullptr) throw std::runtime_error(std::string("filter ") + c->name + " is not built in");
        size = c->encode(r, bytes, size, *out);  // (each encoder resizes *out: its data() is taken after)
        bytes = out->data();
        out = out == &a ? &b : &a;
    }
    return {bytes, size};
}

}  // namespace chunkwise::h5::detail
