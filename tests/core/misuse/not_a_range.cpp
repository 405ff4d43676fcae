#include <chunkwise/chunkwise.hpp>
#include <list>
int main() {
    chunkwise::serial_policy p;
    std::list<chunkwise::block> blocks{{0, 0, 5}, {1, 5, 10}};
    auto r = chunkwise::map_blocks(p, blocks, [](const chunkwise::block& b) { return b.size(); });
}
