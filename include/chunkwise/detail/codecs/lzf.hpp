#pragma once
// Internal: h5py's LZF filter (id 32000; Debian hdf5-plugin-lzf, bitshuffle): liblzf's format,
// decoded here with every length checked against both buffers (liblzf's own checks, always on).
// The plugin grows its output until the chunk fits; chunkwise decodes into the bound it is
// given. Parameters: the plugin's (version, liblzf version, chunk bytes); none needed to decode.
#include <chunkwise/detail/codecs/codec.hpp>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

/// liblzf's lzf_decompress of [in, in + n) into at most cap bytes at out; returns the size.
inline std::size_t lzf_decode(const unsigned char* in, std::size_t n, unsigned char* out, std::size_t cap) {
    const unsigned char* ip = in;
    const unsigned char* const in_end = in + n;
    std::size_t op = 0;
    while (ip < in_end) {
        std::size_t ctrl = *ip++;
        if (ctrl < (1u << 5)) {  // a literal run of ctrl + 1 bytes
            ++ctrl;
            if (ctrl > cap - op) damaged("LZF data decodes to more than " + std::to_string(cap) + " bytes");
            if (ctrl > static_cast<std::size_t>(in_end - ip))
                damaged("LZF data ends inside a literal run (truncated?)");
            std::memcpy(out + op, ip, ctrl);
            op += ctrl;
            ip += ctrl;
        } else {  // a back reference
            std::size_t len = ctrl >> 5;
            std::size_t back = ((ctrl & 0x1fu) << 8) + 1;
            if (ip >= in_end) damaged("LZF data ends inside a back reference (truncated?)");
            if (len == 7) {
                len += *ip++;
                if (ip >= in_end) damaged("LZF data ends inside a back reference (truncated?)");
            }
            back += *ip++;
            len += 2;
            if (len > cap - op) damaged("LZF data decodes to more than " + std::to_string(cap) + " bytes");
            if (back > op) damaged("LZF back reference before the start of the chunk (corrupted?)");
            const unsigned char* ref = out + op - back;
            for (std::size_t k = 0; k < len; ++k) out[op + k] = ref[k];  // may overlap: byte by byte
            op += len;
        }
    }
    return op;
}

inline const codec lzf_codec{
    .id = 32000,
    .name = "lzf",
    .provider = "Debian package hdf5-plugin-lzf (or bitshuffle)",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char*, std::size_t) -> std::size_t { return 0; },
    .decode = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) { return lzf_decode(in, n, out, cap); },
    .trim = nullptr,
    // The plugin stores a chunk LZF cannot shrink unfiltered; LZF's own worst case is one control
    // byte per 32 literals.
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) -> std::size_t { return bound_add(n, n / 32 + 64); },
    .library = []() -> std::string { return {}; }};

}  // namespace chunkwise::detail::codecs
