// docs/guide.md: map_blocks, gather and reduce, and a read_scope, as the guide shows them.
#include <chunkwise/chunkwise.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

// What a user's analysis would be: load a block's frames, reduce them to one number.
static std::vector<float> load(const chunkwise::block& b) {
    std::vector<float> frames(b.size());
    std::iota(frames.begin(), frames.end(), static_cast<float>(b.begin));
    return frames;
}
static double analyse(const std::vector<float>& frames) { return std::accumulate(frames.begin(), frames.end(), 0.0); }

int main() {
    chunkwise::thread_policy policy(2);
    chunkwise::thread_policy& pool = policy;
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{7});
    auto fn = [](const chunkwise::block& b) { return static_cast<double>(b.size()); };
    using R = double;

    auto partial = chunkwise::map_blocks(policy, blocks, fn);   // partial_results<R>
    auto partial2 = chunkwise::map_blocks(policy, blocks, fn);

    std::vector<R> all = chunkwise::gather(policy, std::move(partial));        // block order
    R total = chunkwise::reduce(policy, std::move(partial2), std::plus<>{});    // fixed tree
    std::printf("%zu blocks, first %.0f items, %.0f items in all\n", all.size(), all[0], total);

    {
        auto partial = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
            std::vector<float> frames;
            {
                chunkwise::read_scope r;                              // counted as read time
                frames = load(b);
                chunkwise::count_read_bytes(frames.size() * sizeof(float));  // and as bytes read
            }
            return analyse(frames);
        });
        const double sum = chunkwise::reduce(pool, std::move(partial), std::plus<>{});
        std::size_t run = 0;
        for (const chunkwise::worker_stats& w : partial.stats().workers) run += w.blocks;
        std::printf("sum of 0..999 = %.0f, blocks run: %zu, read time counted: %s\n", sum, run,
                    partial.stats().total(&chunkwise::worker_stats::read) > 0 ? "yes" : "no");
    }
}
