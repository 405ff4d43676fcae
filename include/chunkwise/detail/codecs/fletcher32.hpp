#pragma once
// Internal: HDF5's Fletcher-32 checksum filter (id 3): the chunk's bytes, then 4 bytes of their
// checksum. Decoding checks it (a mismatch is the error H5Dread reports: "data error detected by
// Fletcher32 checksum") and drops it. As HDF5 does, a checksum stored with its two 16-bit halves
// byte-swapped (files of HDF5 before 1.6.3) is accepted too.
#include <chunkwise/detail/codecs/codec.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

/// HDF5's H5_checksum_fletcher32 of [data, data + len): 16-bit big-endian words, sums reduced
/// every 360 words.
inline std::uint32_t fletcher32(const unsigned char* data, std::size_t len) noexcept {
    std::size_t words = len / 2;
    std::uint32_t sum1 = 0, sum2 = 0;
    while (words > 0) {
        std::size_t t = words > 360 ? 360 : words;
        words -= t;
        do {
            sum1 += (static_cast<std::uint32_t>(data[0]) << 8) | data[1];
            data += 2;
            sum2 += sum1;
        } while (--t > 0);
        sum1 = (sum1 & 0xffffu) + (sum1 >> 16);
        sum2 = (sum2 & 0xffffu) + (sum2 >> 16);
    }
    if (len % 2 != 0) {
        sum1 += static_cast<std::uint32_t>(*data) << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffffu) + (sum1 >> 16);
        sum2 = (sum2 & 0xffffu) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffffu) + (sum1 >> 16);
    sum2 = (sum2 & 0xffffu) + (sum2 >> 16);
    return (sum2 << 16) | sum1;
}

inline const codec fletcher32_codec{
    .id = 3,  // H5Z_FILTER_FLETCHER32
    .name = "fletcher32",
    .provider = "built into HDF5",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char*, std::size_t n) -> std::size_t {
        return n < 4 ? 0 : n - 4;
    },
    .decode = nullptr,
    .trim = [](const std::vector<unsigned>&, const unsigned char* in, std::size_t n) -> std::size_t {
        if (n < 4) damaged("a chunk too short for its Fletcher32 checksum (" + std::to_string(n) + " bytes)");
        const std::size_t size = n - 4;
        const std::uint32_t stored =
            static_cast<std::uint32_t>(in[size]) | (static_cast<std::uint32_t>(in[size + 1]) << 8) |
            (static_cast<std::uint32_t>(in[size + 2]) << 16) | (static_cast<std::uint32_t>(in[size + 3]) << 24);
        const std::uint32_t sum = fletcher32(in, size);
        // The same value with the bytes of each 16-bit half swapped (HDF5 before 1.6.3).
        const std::uint32_t reversed = ((sum & 0x00ff00ffu) << 8) | ((sum & 0xff00ff00u) >> 8);
        if (stored != sum && stored != reversed) {
            char text[96];
            std::snprintf(text, sizeof text, "data error detected by Fletcher32 checksum (stored %08x, computed %08x)",
                          stored, sum);
            damaged(text);
        }
        return size;
    },
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) -> std::size_t { return bound_add(n, 4); },
    .library = []() -> std::string { return {}; }};

}  // namespace chunkwise::detail::codecs
