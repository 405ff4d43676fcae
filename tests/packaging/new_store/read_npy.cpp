// packaging.new_store: a toy store (tests/packaging/new_store/npy/, copied into a copy of the tree
// as include/chunkwise/npy/) read through the store-neutral face alone: chunkwise::partition of a
// chunked_array, map_blocks on 2 threads, read_into, with and without indices; every value equal
// to numpy's (make_npy.py).
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/npy/array.hpp>
#include <chunkwise/store.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

static_assert(chunkwise::chunked_array<chunkwise::npy::array>);

namespace {

std::vector<double> file_values(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    std::vector<double> v(bytes.size() / sizeof(double));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(double));
    return v;
}

// Every block of the array read on the pool through the neutral face, in block order.
template <class Array>
std::vector<double> read_all(chunkwise::thread_policy& pool, const Array& a, const chunkwise::indices* sel) {
    const auto blocks = chunkwise::partition(a, chunkwise::parts{5});
    auto parts = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
        std::size_t per_row = 1;
        for (std::size_t d = 1; d < a.shape().size(); ++d) per_row *= sel != nullptr && d == sel->axis ? sel->idx.size() : a.shape()[d];
        std::vector<double> v(b.size() * per_row);
        if (sel != nullptr) {
            a.read_into(b, *sel, std::span<double>(v));
        } else {
            a.read_into(b, std::span<double>(v));
        }
        return v;
    });
    return chunkwise::concatenate(chunkwise::gather(pool, std::move(parts)));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const std::filesystem::path dir = argv[1];
    const chunkwise::npy::array a(dir / "store");
    chunkwise::thread_policy pool(2);
    const bool whole = read_all(pool, a, nullptr) == file_values(dir / "whole.bin");
    const chunkwise::indices sel{1, {6, 0, 3, 3}};
    const bool selected = read_all(pool, a, &sel) == file_values(dir / "selected.bin");
    bool aligned = true;
    for (const auto& b : chunkwise::partition(a, chunkwise::parts{5})) aligned = aligned && b.begin % 10 == 0;
    std::string refused;
    try {
        std::vector<double> v(3);
        a.read_into(chunkwise::block{0, 100, 104}, std::span<double>(v));
    } catch (const chunkwise::error& e) {
        refused = e.what();
    }
    std::printf("npy store of %s: %zu rows in chunk rows of %zu, read on %zu threads through the store-neutral face: "
                "whole %s, selected %s, blocks %s; a bad read: %s\n",
                a.dtype().c_str(), a.shape()[0], a.chunks()[0], pool.workers(), whole ? "equal to numpy" : "WRONG",
                selected ? "equal to numpy" : "WRONG", aligned ? "on chunk rows" : "SPLIT", refused.c_str());
    return whole && selected && aligned ? 0 : 1;
}
