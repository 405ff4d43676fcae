// docs/production.md: a production run (collect failures, checkpoint, log, progress) and the
// callbacks that route progress and log lines to the user's own logger.
#include <chunkwise/chunkwise.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

int main() {
    namespace fs = std::filesystem;
    const fs::path work = fs::temp_directory_path() / "chunkwise-doc-production";
    fs::remove_all(work);
    fs::create_directories(work);
    fs::current_path(work);
    chunkwise::thread_policy pool(2);
    std::vector<std::string> files;
    for (int i = 0; i < 20; ++i) files.push_back("input-" + std::to_string(i) + ".dat");
    auto process_one_file = [](const std::string& f) {
        if (f == "input-7.dat") throw std::runtime_error("cannot parse " + f);
        return f.size();
    };

    for (int pass = 1; pass <= 2; ++pass) {  // the second pass loads finished blocks from the checkpoint
        chunkwise::run_options opt;
        opt.errors = chunkwise::on_error::collect;   // run every block, report failures
        opt.checkpoint = "out/checkpoint";           // save each finished block; load saved ones
        opt.log = "out/run.log";                     // timestamped start/end of every block
        opt.progress = true;                         // done/total, rate, ETA on stderr
        auto partial = chunkwise::map_blocks(pool, files, process_one_file, opt);
        if (!partial.ok()) chunkwise::write_failure_manifest("out/failed.csv", partial.failures());
        std::printf("pass %d: %zu results, %zu failed (%s), %zu loaded from the checkpoint\n", pass,
                    partial.values().size(), partial.failures().size(), partial.failures().at(0).message.c_str(),
                    partial.stats().from_checkpoint);
    }
    std::printf("manifest written: %s\n", fs::exists("out/failed.csv") ? "yes" : "no");

    chunkwise::run_options opt;
    std::vector<std::string> my_log;  // the user's own logger, here a vector
    opt.on_progress = [](const chunkwise::progress_report& p) {   // instead of the stderr line; root only
        std::clog << p.done << '/' << p.total << " blocks, ETA " << p.eta << " s\n";  // eta -1: not known yet
    };
    opt.on_log = [&](const std::string& line) { my_log.push_back(line); };  // every log line, every rank
    auto partial = chunkwise::map_blocks(pool, chunkwise::partition(100, chunkwise::parts{10}),
                                         [](const chunkwise::block& b) { return b.size(); }, opt);
    std::printf("%zu blocks, %zu log lines (run start, start and end of each block, run end)\n", partial.values().size(), my_log.size());
    fs::current_path(work.parent_path());
    fs::remove_all(work);
}
