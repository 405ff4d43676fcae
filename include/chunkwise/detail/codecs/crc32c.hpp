#pragma once
// Internal: Zarr v3's crc32c codec: the bytes, then their CRC-32C (Castagnoli) as 4 little-endian
// bytes. Decoding checks the checksum and drops it (no Debian 12 library provides CRC-32C).
#include <chunkwise/detail/codecs/codec.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

/// CRC-32C (Castagnoli) of [p, p + n), as Zarr v3's crc32c codec stores it.
inline std::uint32_t crc32c(const unsigned char* p, std::size_t n) noexcept {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1u) != 0 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/// Little-endian 32-bit reads and writes, as Zarr's framings store sizes and checksums.
inline std::uint32_t read_le32(const unsigned char* p) noexcept {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}
inline void write_le32(unsigned char* p, std::uint32_t v) noexcept {
    for (int b = 0; b < 4; ++b) p[b] = static_cast<unsigned char>(v >> (8 * b));
}

/// The bytes a crc32c-checked buffer [in, in + n) covers, checked: n - 4.
inline std::size_t crc32c_trim(const std::vector<unsigned>&, const unsigned char* in, std::size_t n) {
    if (n < 4)
        damaged("a crc32c-checked chunk of " + std::to_string(n) + " bytes, shorter than its checksum (truncated?)");
    if (crc32c(in, n - 4) != read_le32(in + n - 4)) damaged("its crc32c checksum does not match its bytes");
    return n - 4;
}

inline const codec crc32c_codec{
    .id = 0,  // Zarr v3 only
    .name = "crc32c",
    .provider = "chunkwise (Zarr v3 only)",
    .accepts = accepts_all,
    .stated_size = [](const std::vector<unsigned>&, const unsigned char*, std::size_t n) -> std::size_t {
        return n >= 4 ? n - 4 : 0;
    },
    .decode = nullptr,
    .trim = crc32c_trim,
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) -> std::size_t { return bound_add(n, 4); },
    .library = []() -> std::string { return {}; },
    .option = nullptr,  // written by chunkwise only after a shard's index
    .check = [](const encode_request&) { return std::string(); },
    .parameters = nullptr,
    .encode =
        [](const encode_request&, const unsigned char* in, std::size_t n, std::vector<unsigned char>& out) {
            out.assign(in, in + n);
            out.resize(n + 4);
            write_le32(out.data() + n, crc32c(in, n));
            return n + 4;
        },
    .own_shuffle = false,
    .needs = nullptr,
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 0,
    .zarr_v2 = nullptr,
    .zarr_v3 = "crc32c",
    .zarr_params = nullptr,
    .zarr_config = nullptr};

}  // namespace chunkwise::detail::codecs
