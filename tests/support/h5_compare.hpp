#pragma once
// The differential check every HDF5 test leans on: each way chunkwise reads a dataset equals
// H5Dread of the same rows, to the bit.
#include "catch.hpp"
#include "h5_files.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace test {

/// Forces uncompressed reads into outputs of at least `min_bytes` to copy from mappings of the
/// file (as CHUNKWISE_HDF5_MMAP=<bytes> does) while it lives; restores the setting after.
class forced_mapping {
public:
    explicit forced_mapping(std::size_t min_bytes)
            : s_(chunkwise::h5::detail::map_setting::get()), min_(s_.min_bytes.load()), choice_(s_.choice.load()) {
        s_.min_bytes = min_bytes;
        s_.choice = chunkwise::h5::detail::copy_choice::mapped;
    }
    ~forced_mapping() {
        s_.min_bytes = min_;
        s_.choice = choice_;
    }
    forced_mapping(const forced_mapping&) = delete;
    forced_mapping& operator=(const forced_mapping&) = delete;

private:
    chunkwise::h5::detail::map_setting& s_;
    std::size_t min_;
    chunkwise::h5::detail::copy_choice choice_;
};

template <class T>
bool same_bits(const T* a, const std::vector<T>& b) {
    return b.empty() || std::memcmp(a, b.data(), b.size() * sizeof(T)) == 0;
}

/// read<T, N>, read<T>, read_into and read with a read_buffer, over blocks that follow the
/// chunks and blocks that cut through them, and a map_blocks pass on 1 and 3 threads: every value
/// equals H5Dread's (native type `mem`) to the bit.
template <class T, std::size_t N>
void require_same_as_hdf5(const std::filesystem::path& file, const std::string& name, hid_t mem) {
    namespace h5 = chunkwise::h5;
    using chunkwise::block;
    h5::dataset ds(file, name, chunkwise::read_options{.convert = true});  // H5Dread's conversions, compared
    const std::size_t rows = ds.shape()[0];
    std::size_t row = 1;
    for (std::size_t d = 1; d < ds.rank(); ++d) row *= ds.shape()[d];
    const std::vector<std::vector<block>> partitions{h5::partition(ds, chunkwise::parts{1}),
                                                     h5::partition(ds, chunkwise::parts{3}),
                                                     chunkwise::partition(rows, chunkwise::parts{5})};
    h5::read_buffer<T> buffer;
    for (const auto& blocks : partitions) {
        for (const block& b : blocks) {
            INFO(file.filename().string() << ":" << name << " rows [" << b.begin << ", " << b.end << ")");
            const auto expect = try_h5dread<T>(file, name, mem, b.begin, b.end);
            REQUIRE(expect.has_value());
            const auto tensor = ds.read<T, N>(b);
            REQUIRE(tensor.size() == expect->size());
            REQUIRE(same_bits(tensor.data(), *expect));
            const auto array = ds.read<T>(b);
            REQUIRE(same_bits(array.data(), *expect));
            std::vector<T> into(expect->size());
            ds.read_into(b, std::span<T>(into));
            REQUIRE(same_bits(into.data(), *expect));
            const auto view = ds.read<T, N>(b, buffer);
            REQUIRE(view.size() == expect->size());
            REQUIRE(same_bits(view.data(), *expect));
        }
        for (std::size_t threads : {1u, 3u}) {
            chunkwise::thread_policy pool(threads);
            auto values = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                                std::vector<T> v(b.size() * row);
                                                ds.read_into(b, std::span<T>(v));
                                                return v;
                                            }));
            for (std::size_t i = 0; i < blocks.size(); ++i) {
                const auto expect = try_h5dread<T>(file, name, mem, blocks[i].begin, blocks[i].end);
                REQUIRE(expect.has_value());
                REQUIRE(same_bits(values[i].data(), *expect));
            }
        }
    }
}

/// A whole file's bytes, and writing them back.
inline std::vector<char> file_bytes(const std::filesystem::path& p) {
    std::vector<char> b(std::filesystem::file_size(p));
    std::ifstream(p, std::ios::binary).read(b.data(), static_cast<std::streamsize>(b.size()));
    return b;
}
inline void write_bytes(const std::filesystem::path& p, const std::vector<char>& b) {
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(b.data(), static_cast<std::streamsize>(b.size()));
}

/// Offset of the first occurrence of `pattern` in `bytes` (throws when absent).
inline std::size_t find_bytes(const std::vector<char>& bytes, const std::vector<unsigned char>& pattern) {
    for (std::size_t i = 0; i + pattern.size() <= bytes.size(); ++i) {
        if (std::memcmp(bytes.data() + i, pattern.data(), pattern.size()) == 0) return i;
    }
    throw std::runtime_error("test: pattern not found in the file");
}

/// Where the shuffle filter's one parameter (the element size) is in `bytes`: after its name in a
/// version 1 filter pipeline message (HDF5 1.x's default), or after id 2, its flags and one
/// value in a version 2 message (which names no predefined filter; HDF5 2.x's default).
inline std::size_t shuffle_parameter(const std::vector<char>& bytes) {
    try {
        return find_bytes(bytes, {'s', 'h', 'u', 'f', 'f', 'l', 'e', 0}) + 8;
    } catch (const std::runtime_error&) {
        return find_bytes(bytes, {2, 0, 1, 0, 1, 0, 4, 0, 0, 0}) + 6;
    }
}

}  // namespace test
