// 01: how partition splits an index space, and what map_blocks and gather give back.
#include <chunkwise/chunkwise.hpp>

#include <cstdio>

int main() {
    // 10 frames in 3 balanced blocks: larger blocks first, none empty.
    for (const chunkwise::block& b : chunkwise::partition(10, chunkwise::parts{3})) {
        std::printf("block %zu: frames [%zu, %zu)\n", b.index, b.begin, b.end);
    }
    // 10 rows stored in chunks of 4 rows, 2 blocks: boundaries on chunk edges.
    for (const chunkwise::block& b : chunkwise::partition(10, chunkwise::parts{2}, chunkwise::align{4})) {
        std::printf("aligned block %zu: rows [%zu, %zu)\n", b.index, b.begin, b.end);
    }
    // Each block's result, gathered in block order.
    chunkwise::thread_policy pool(2);
    auto sizes = chunkwise::gather(pool, chunkwise::map_blocks(pool, chunkwise::partition(10, chunkwise::parts{3}),
                                                               [](const chunkwise::block& b) { return b.size(); }));
    std::printf("sizes:");
    for (std::size_t s : sizes) std::printf(" %zu", s);
    std::printf("\n");
}
