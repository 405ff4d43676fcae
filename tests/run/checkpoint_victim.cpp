// A run that the SIGKILL test kills at random moments and then lets finish:
//   checkpoint_victim DIR N RESULT_FILE
// runs N blocks on 2 threads with checkpoints in DIR; when it completes it writes the gathered
// results (raw doubles) to RESULT_FILE and the number of blocks loaded from the checkpoint to
// RESULT_FILE.summary. DIR "-" runs without a checkpoint.
#include <chunkwise/chunkwise.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 4) return 2;
    const std::string dir = argv[1], out = argv[3];
    const std::size_t n = std::strtoull(argv[2], nullptr, 10);
    chunkwise::thread_policy pool(2);
    chunkwise::run_options opt;
    opt.checkpoint = dir.empty() || dir == "-" ? std::filesystem::path() : std::filesystem::path(dir);
    const auto blocks = chunkwise::partition(n * 10, chunkwise::parts{n});
    auto r = chunkwise::map_blocks(
        pool, blocks,
        [](const chunkwise::block& b) {
            std::vector<double> v;
            for (std::size_t i = b.begin; i < b.end; ++i) v.push_back(std::sin(static_cast<double>(i)) / 3.0);
            std::this_thread::sleep_for(std::chrono::microseconds(500 + 300 * (b.index % 7)));
            return v;
        },
        opt);
    const std::size_t loaded = r.stats().from_checkpoint;
    const auto all = chunkwise::gather(pool, std::move(r));
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    for (const auto& v : all)
        f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
    std::ofstream(out + ".summary") << loaded << "\n";
    return 0;
}
