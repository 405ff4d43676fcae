#include <chunkwise/chunkwise.hpp>
struct not_a_policy {};
int main() {
    not_a_policy p;
    auto blocks = chunkwise::partition(10, chunkwise::parts{2});
    auto r = chunkwise::map_blocks(p, blocks, [](const chunkwise::block& b) { return b.size(); });
}
