// map_blocks overhead per block: serial_policy and thread_policy against OpenMP
// schedule(dynamic) and oneTBB parallel_for, on empty and tiny blocks, at 1 and 2 threads; and the
// latency of one map_blocks call of a single block.
//
//   bench_overhead [--benchmark_filter=...] [--benchmark_repetitions=N] [--benchmark_format=json]
//
// Reported: time per call and per_block (= time per call / blocks per call, in seconds). Every contender
// writes one result per block into a vector, as map_blocks does.
#include <chunkwise/chunkwise.hpp>

#include <benchmark/benchmark.h>
#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace {

constexpr std::size_t blocks_per_call = 10000;

/// 0 .. blocks_per_call - 1, made once: a vector rather than std::views::iota, which clang 14 cannot compile
/// with libstdc++ 12 (the test command builds this benchmark with both).
const std::vector<std::size_t>& block_indices() {
    static const std::vector<std::size_t> v = [] {
        std::vector<std::size_t> x(blocks_per_call);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = i;
        return x;
    }();
    return v;
}

// "empty": return the index. "tiny": about 100 ns of arithmetic.
template <bool Tiny>
double work(std::size_t i) {
    if constexpr (!Tiny) {
        return static_cast<double>(i);
    } else {
        double x = static_cast<double>(i);
        for (int k = 0; k < 24; ++k) x = std::sqrt(x + 1.0);
        return x;
    }
}

void per_block_counter(benchmark::State& state, std::size_t n) {
    state.counters["per_block"] = benchmark::Counter(
        static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

template <bool Tiny>
void chunkwise_serial(benchmark::State& state) {
    chunkwise::serial_policy policy;
    const auto& indices = block_indices();
    for (auto _ : state) {
        auto r = chunkwise::map_blocks(policy, indices, [](std::size_t i) { return work<Tiny>(i); });
        benchmark::DoNotOptimize(r.values().data());
    }
    per_block_counter(state, blocks_per_call);
}

template <bool Tiny>
void chunkwise_threads(benchmark::State& state) {
    chunkwise::thread_policy policy(static_cast<std::size_t>(state.range(0)));
    const auto& indices = block_indices();
    for (auto _ : state) {
        auto r = chunkwise::map_blocks(policy, indices, [](std::size_t i) { return work<Tiny>(i); });
        benchmark::DoNotOptimize(r.values().data());
    }
    per_block_counter(state, blocks_per_call);
}

template <bool Tiny>
void openmp_dynamic(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    std::vector<double> out(blocks_per_call);
    for (auto _ : state) {
#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (std::size_t i = 0; i < blocks_per_call; ++i) out[i] = work<Tiny>(i);
        benchmark::DoNotOptimize(out.data());
    }
    per_block_counter(state, blocks_per_call);
}

// One TBB task per block (simple_partitioner, grain 1): the same granularity as map_blocks.
template <bool Tiny>
void tbb_simple(benchmark::State& state) {
    tbb::task_arena arena(static_cast<int>(state.range(0)));
    std::vector<double> out(blocks_per_call);
    for (auto _ : state) {
        arena.execute([&] {
            tbb::parallel_for(
                tbb::blocked_range<std::size_t>(0, blocks_per_call, 1),
                [&](const tbb::blocked_range<std::size_t>& r) {
                    for (std::size_t i = r.begin(); i < r.end(); ++i) out[i] = work<Tiny>(i);
                },
                tbb::simple_partitioner());
        });
        benchmark::DoNotOptimize(out.data());
    }
    per_block_counter(state, blocks_per_call);
}

// TBB's default: auto_partitioner groups many iterations per task (coarser than a block).
template <bool Tiny>
void tbb_auto(benchmark::State& state) {
    tbb::task_arena arena(static_cast<int>(state.range(0)));
    std::vector<double> out(blocks_per_call);
    for (auto _ : state) {
        arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks_per_call),
                              [&](const tbb::blocked_range<std::size_t>& r) {
                                  for (std::size_t i = r.begin(); i < r.end(); ++i) out[i] = work<Tiny>(i);
                              });
        });
        benchmark::DoNotOptimize(out.data());
    }
    per_block_counter(state, blocks_per_call);
}

// Latency of a whole map_blocks call over one block (and over two, which wakes a pool thread).
void one_call_serial(benchmark::State& state) {
    chunkwise::serial_policy policy;
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{1});
    for (auto _ : state) {
        auto r = chunkwise::map_blocks(policy, blocks, [](const chunkwise::block& b) { return b.size(); });
        benchmark::DoNotOptimize(r.values().data());
    }
}

void one_call_threads(benchmark::State& state) {
    chunkwise::thread_policy policy(2);
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{static_cast<std::size_t>(state.range(0))});
    for (auto _ : state) {
        auto r = chunkwise::map_blocks(policy, blocks, [](const chunkwise::block& b) { return b.size(); });
        benchmark::DoNotOptimize(r.values().data());
    }
}

}  // namespace

BENCHMARK(chunkwise_serial<false>)->Name("empty/chunkwise_serial")->UseRealTime();
BENCHMARK(chunkwise_threads<false>)->Name("empty/chunkwise_threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(openmp_dynamic<false>)->Name("empty/openmp_dynamic")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(tbb_simple<false>)->Name("empty/tbb_simple")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(tbb_auto<false>)->Name("empty/tbb_auto")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(chunkwise_serial<true>)->Name("tiny/chunkwise_serial")->UseRealTime();
BENCHMARK(chunkwise_threads<true>)->Name("tiny/chunkwise_threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(openmp_dynamic<true>)->Name("tiny/openmp_dynamic")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(tbb_simple<true>)->Name("tiny/tbb_simple")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(tbb_auto<true>)->Name("tiny/tbb_auto")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(one_call_serial)->Name("one_call/serial_1_block")->UseRealTime();
BENCHMARK(one_call_threads)->Name("one_call/threads2_blocks")->Arg(1)->Arg(2)->UseRealTime();

BENCHMARK_MAIN();
