#pragma once
// Internal: one record of the checkpoint log (detail/run/checkpoint_store.hpp): its format, made
// and parsed with every checksum checked, and the key its header names. Both formats: 0.3's
// "cwCKrec2" (header and payload checksummed apart) and 0.2's "cwCKrec1" (one checksum).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace chunkwise::detail {

/// A checksum of bytes, 8 at a time (FNV-style, for corruption, not adversaries).
inline std::uint64_t checksum(const char* p, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
    return h;
}

/// The record format, in one place.
struct checkpoint_record {
    static constexpr std::string_view magic = "cwCKrec2";
    static constexpr std::string_view magic_v1 = "cwCKrec1";  // 0.2's records: read, never written
    static constexpr std::size_t fixed = 48;                  // magic and six u64 fields
    static constexpr std::size_t fixed_v1 = 40;               // magic and four u64 fields
    static constexpr std::uint64_t max_header = std::uint64_t{1} << 20;

    /// A whole record of this format.
    static std::string make(const std::string& header, const std::string& payload, std::uint64_t sequence) {
        std::string r(magic);
        std::uint64_t f[5] = {header.size(), payload.size(), sequence, checksum(payload.data(), payload.size()), 0};
        f[4] = header_checksum(f, header.data(), header.size());
        r.reserve(fixed + header.size() + payload.size());
        r.append(reinterpret_cast<const char*>(f), sizeof f);
        r += header;
        r += payload;
        return r;
    }
    static std::uint64_t header_checksum(const std::uint64_t* four_fields, const char* header, std::size_t n) {
        return checksum(header, n, checksum(reinterpret_cast<const char*>(four_fields), 32));
    }
    static std::uint64_t v1_checksum(const char* fields_then_body, std::size_t body) {
        return checksum(fields_then_body + 32, body, checksum(fields_then_body, 24));
    }
    /// The key in a header "type=...\nkey=...\nblock=...\n"; nullopt if it is not one.
    static std::optional<std::string_view> key_of(std::string_view h) {
        const std::size_t k = h.find("\nkey=");
        const std::size_t e = k == std::string_view::npos ? k : h.find('\n', k + 5);
        if (h.rfind("type=", 0) != 0 || e == std::string_view::npos || h.empty() || h.back() != '\n') {
            return std::nullopt;
        }
        return h.substr(k + 5, e - k - 5);
    }

    /// Parses the record that fills `data` exactly (either format), checking every checksum.
    static bool parse(std::string_view data, std::string_view& header, std::string_view& payload) {
        std::uint64_t f[6];
        if (data.size() >= fixed && data.substr(0, 8) == magic) {
            std::memcpy(f, data.data() + 8, 40);
            if (f[0] > data.size() - fixed || f[1] != data.size() - fixed - f[0]) return false;
            header = data.substr(fixed, static_cast<std::size_t>(f[0]));
            payload = data.substr(fixed + header.size());
            return header_checksum(f, header.data(), header.size()) == f[4] &&
                   checksum(payload.data(), payload.size()) == f[3];
        }
        if (data.size() >= fixed_v1 && data.substr(0, 8) == magic_v1) {
            std::memcpy(f, data.data() + 8, 32);
            if (f[0] > data.size() - fixed_v1 || f[1] != data.size() - fixed_v1 - f[0]) return false;
            if (v1_checksum(data.data() + 8, static_cast<std::size_t>(f[0] + f[1])) != f[3]) return false;
            header = data.substr(fixed_v1, static_cast<std::size_t>(f[0]));
            payload = data.substr(fixed_v1 + header.size());
            return true;
        }
        return false;
    }
};

}  // namespace chunkwise::detail
