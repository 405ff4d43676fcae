// The README's example: sum of squares of 0..9,999,999 in 64 blocks on all cores.
#include <chunkwise/chunkwise.hpp>
#include <cstdio>
#include <functional>

int main() {
    auto blocks = chunkwise::partition(10'000'000, chunkwise::parts{64});
    chunkwise::thread_policy pool;  // all hardware threads; serial_policy for one core
    auto partial = chunkwise::map_blocks(pool, blocks, [](const chunkwise::block& b) {
        double s = 0;
        for (std::size_t i = b.begin; i < b.end; ++i) s += double(i) * double(i);
        return s;
    });
    double total = chunkwise::reduce(pool, std::move(partial), std::plus<>{});
    std::printf("%.17g\n", total);  // the same bits on 1 core, 64 threads or 112 ranks
}
