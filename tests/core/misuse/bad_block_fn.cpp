#include <chunkwise/chunkwise.hpp>
#include <string>
int main() {
    chunkwise::serial_policy p;
    auto blocks = chunkwise::partition(10, chunkwise::parts{2});
    auto r = chunkwise::map_blocks(p, blocks, [](const std::string& s) { return s.size(); });
}
