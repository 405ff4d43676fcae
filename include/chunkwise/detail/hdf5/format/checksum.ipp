// The definitions of chunkwise/detail/hdf5/format/checksum.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::uint32_t lookup3(const unsigned char* k, std::size_t n) {
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

}  // namespace chunkwise::h5::detail
