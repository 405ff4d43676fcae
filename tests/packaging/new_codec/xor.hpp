#pragma once
// A new codec, as docs/architecture.md says to add one: this header, and one line in the codec
// floor's codecs/table.hpp (its include beside it). An example only (HDF5 filter id 40000, no
// plugin; Zarr "xor"): each byte XORed with a key, the key its one parameter ("level" in Zarr's
// configuration). The test packaging.new_codec adds it to a copy of the tree and writes and reads
// an HDF5 dataset and Zarr v2 and v3 arrays through it.
#include <chunkwise/detail/codecs/codec.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace chunkwise::detail::codecs {

inline const codec xor_codec{
    .id = 40000,
    .name = "xor",
    .provider = "none (an example of a new filter)",
    .accepts = [](const std::vector<unsigned>& cd) -> std::string {
        return cd.size() == 1 && cd[0] < 256 ? std::string() : std::string("an xor key that is not one byte");
    },
    .stated_size = [](const std::vector<unsigned>&, const unsigned char*, std::size_t n) -> std::size_t { return n; },
    .decode = [](const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n, unsigned char* out,
                 std::size_t cap) -> std::size_t {
        if (n > cap) damaged("an xor chunk of " + std::to_string(n) + " bytes, more than " + std::to_string(cap));
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>(in[i] ^ cd[0]);
        return n;
    },
    .trim = nullptr,
    .max_encoded = [](const std::vector<unsigned>&, std::size_t n) -> std::size_t { return n; },
    .library = []() -> std::string { return {}; },
    .option = "xor",
    .check = [](const encode_request& r) -> std::string {
        return r.level >= 0 && r.level < 256 ? std::string() : "level (the key) must be 0-255";
    },
    .parameters = [](const encode_request& r) { return std::vector<unsigned>{static_cast<unsigned>(r.level)}; },
    .encode = [](const encode_request& r, const unsigned char* in, std::size_t n,
                 std::vector<unsigned char>& out) -> std::size_t {
        out.resize(n);
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>(in[i] ^ static_cast<unsigned>(r.level));
        return n;
    },
    .own_shuffle = false,
    .needs = nullptr,
    .variants = nullptr,
    .aliases = nullptr,
    .default_level = 0,
    .zarr_v2 = "xor",
    .zarr_v3 = "xor",
    .zarr_params = "level",
    .zarr_config = [](const encode_request& r, int) { return zarr_level_config(r.level); }};

}  // namespace chunkwise::detail::codecs
