// docs/guide.md, "Writing a policy": a policy of one's own, from <chunkwise/executor.hpp> alone.
// It starts its own threads for each call and hands out blocks from a shared counter; every
// algorithm runs on it with serial_policy's bits.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/executor.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

class my_threads {
public:
    explicit my_threads(std::size_t n) : n_(n) {}
    std::size_t workers() const noexcept { return n_; }
    int rank() const noexcept { return 0; }
    bool is_root() const noexcept { return true; }

    // The executor: blocks [first, last) on n_ threads; one worker_stats per worker, failures
    // sorted, finish_stats last.
    template <class Body>
    chunkwise::exec_result execute_range(std::size_t first, std::size_t last, Body& body, chunkwise::on_error mode,
                                         int rank) {
        chunkwise::exec_result r = chunkwise::start_exec(rank, n_);
        std::vector<std::vector<chunkwise::failure_record>> failed(n_);
        std::atomic<std::size_t> next{first};
        std::atomic<bool> stop{false};
        const auto t0 = chunkwise::clock::now();
        std::vector<std::thread> threads;
        for (std::size_t w = 0; w < n_; ++w) {
            threads.emplace_back([&, w] {
                chunkwise::worker_clock busy(r.stats.workers[w]);  // busy, read and lock time of this worker
                for (std::size_t i; !stop && (i = next++) < last;) {
                    ++busy.blocks;
                    if (!chunkwise::run_one_block(body, i, failed[w], rank) && mode == chunkwise::on_error::fail_fast)
                        stop = true;
                }
            });
        }
        for (auto& t : threads) t.join();
        for (auto& f : failed)
            for (auto& x : f) r.failures.push_back(std::move(x));
        chunkwise::sort_failures(r.failures);
        chunkwise::finish_stats(r.stats, chunkwise::seconds_since(t0));
        return r;
    }

private:
    std::size_t n_;
};
static_assert(chunkwise::execution_policy<my_threads>);

int main() {
    const auto blocks = chunkwise::partition(1'000'000, chunkwise::parts{40});
    auto work = [](const chunkwise::block& b) {
        double s = 0;
        for (std::size_t i = b.begin; i < b.end; ++i) s += std::sin(static_cast<double>(i));
        return s;
    };
    my_threads mine(3);
    chunkwise::serial_policy serial;
    const double a = chunkwise::reduce(mine, chunkwise::map_blocks(mine, blocks, work), std::plus<>{});
    const double b = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, work), std::plus<>{});
    std::printf("my_threads: %zu workers; the same bits as serial_policy: %s\n", mine.workers(),
                std::memcmp(&a, &b, sizeof a) == 0 ? "yes" : "no");
}
