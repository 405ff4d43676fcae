#include <chunkwise/chunkwise.hpp>
#include <string>
int main() {
    chunkwise::serial_policy p;
    auto blocks = chunkwise::partition(10, chunkwise::parts{2});
    auto r = chunkwise::map_blocks(p, blocks, [](const chunkwise::block& b) { return b.size(); });
    auto s = chunkwise::reduce(p, std::move(r), [](const std::string& a, const std::string&) { return a; });
}
