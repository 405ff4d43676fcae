#pragma once
// Internal: the checksum of every HDF5 metadata structure of format version 2 and later (Bob
// Jenkins' lookup3 hash, "hashlittle", initial value 0), and small integer helpers of the format.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace chunkwise::h5::detail {

/// Jenkins' lookup3 hash of `n` bytes (hashlittle, initial value 0): the checksum of every HDF5
/// metadata structure of format version 2 and later.
inline std::uint32_t lookup3(const unsigned char* k, std::size_t n) {
    auto rot = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
    std::uint32_t a = 0xdeadbeefu + static_cast<std::uint32_t>(n), b = a, c = a;
    auto word = [&](std::size_t i) {
        return static_cast<std::uint32_t>(k[i]) | static_cast<std::uint32_t>(k[i + 1]) << 8 |
               static_cast<std::uint32_t>(k[i + 2]) << 16 | static_cast<std::uint32_t>(k[i + 3]) << 24;
    };
    while (n > 12) {
        a += word(0);
        b += word(4);
        c += word(8);
        a -= c;
        a ^= rot(c, 4);
        c += b;  // NOLINT: lookup3's mix, as published
        b -= a;
        b ^= rot(a, 6);
        a += c;
        c -= b;
        c ^= rot(b, 8);
        b += a;
        a -= c;
        a ^= rot(c, 16);
        c += b;
        b -= a;
        b ^= rot(a, 19);
        a += c;
        c -= b;
        c ^= rot(b, 4);
        b += a;
        n -= 12;
        k += 12;
    }
    if (n == 0) return c;
    unsigned char tail[12] = {};
    std::memcpy(tail, k, n);
    a += static_cast<std::uint32_t>(tail[0]) | static_cast<std::uint32_t>(tail[1]) << 8 |
         static_cast<std::uint32_t>(tail[2]) << 16 | static_cast<std::uint32_t>(tail[3]) << 24;
    b += static_cast<std::uint32_t>(tail[4]) | static_cast<std::uint32_t>(tail[5]) << 8 |
         static_cast<std::uint32_t>(tail[6]) << 16 | static_cast<std::uint32_t>(tail[7]) << 24;
    c += static_cast<std::uint32_t>(tail[8]) | static_cast<std::uint32_t>(tail[9]) << 8 |
         static_cast<std::uint32_t>(tail[10]) << 16 | static_cast<std::uint32_t>(tail[11]) << 24;
    c ^= b;
    c -= rot(b, 14);  // lookup3's final
    a ^= c;
    a -= rot(c, 11);
    b ^= a;
    b -= rot(a, 25);
    c ^= b;
    c -= rot(b, 16);
    a ^= c;
    a -= rot(c, 4);
    b ^= a;
    b -= rot(a, 14);
    c ^= b;
    c -= rot(b, 24);
    return c;
}

/// floor(log2(v)) for v > 0.
inline unsigned log2_floor(std::uint64_t v) { return 63u - static_cast<unsigned>(__builtin_clzll(v)); }

}  // namespace chunkwise::h5::detail
